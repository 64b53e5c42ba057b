package server

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

func equalString(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// mountConsole registers the console's JSON admin API (in Routes and
// docs/openapi.yaml) and its pages (not in Routes: HTML, not API).
func (s *Server) mountConsole(st store.Console, wh *webhook.Service) {
	c := &console{s: s, st: st, wh: wh, acc: newAccounts(st, s.consoleAdmin, s.cfg.Mailer, s.keys.Token, s.cfg.Now, s.log)}
	s.console = c
	open := func(h consoleHandler) http.Handler { return c.anon(h) }
	routes := []apiRoute{
		{"POST", "/console/api/signup/code", "console_signup_code", open(c.apiSignupCode)},
		{"POST", "/console/api/signup", "console_signup", open(c.apiSignup)},
		{"POST", "/console/api/session", "console_signin", open(c.apiSignin)},
		{"DELETE", "/console/api/session", "console_signout", c.api(permView, c.apiSignout)},
		{"GET", "/console/api/me", "console_me", c.api(permView, c.apiMe)},
		{"POST", "/console/api/totp/enrol", "console_totp_enrol", c.api(permView, c.apiTOTPEnrol)},
		{"POST", "/console/api/totp/confirm", "console_totp_confirm", c.api(permView, c.apiTOTPConfirm)},
		{"POST", "/console/api/invitations/accept", "console_invite_accept", open(c.apiAcceptInvite)},
		{"GET", "/console/api/overview", "console_overview", c.api(permView, c.apiOverview)},
		{"GET", "/console/api/members", "console_members", c.api(permAdmin, c.apiMembers)},
		{"POST", "/console/api/members", "console_members_invite", c.api(permAdmin, c.apiInvite)},
		{"DELETE", "/console/api/members/{id}", "console_members_remove", c.api(permAdmin, c.apiRemoveMember)},
		{"GET", "/console/api/clients", "console_clients", c.api(permBuild, c.apiClients)},
		{"POST", "/console/api/clients", "console_clients_create", c.api(permBuild, c.apiCreateClient)},
		{"POST", "/console/api/clients/{id}/activate", "console_clients_activate", c.api(permBuild, c.apiClientActive(true))},
		{"POST", "/console/api/clients/{id}/deactivate", "console_clients_deactivate", c.api(permBuild, c.apiClientActive(false))},
		{"POST", "/console/api/clients/{id}/rotate-secret", "console_clients_rotate", c.api(permBuild, c.apiRotateClient)},
		{"GET", "/console/api/workflows", "console_workflows", c.api(permBuild, c.apiWorkflows)},
		{"POST", "/console/api/workflows", "console_workflows_create", c.api(permBuild, c.apiCreateWorkflow)},
		{"GET", "/console/api/workflows/{id}", "console_workflows_show", c.api(permBuild, c.apiWorkflow)},
		{"PATCH", "/console/api/workflows/{id}", "console_workflows_edit", c.api(permBuild, c.apiEditWorkflow)},
		{"POST", "/console/api/workflows/{id}/duplicate", "console_workflows_duplicate", c.api(permBuild, c.apiDuplicate)},
		{"POST", "/console/api/workflows/{id}/archive", "console_workflows_archive", c.api(permBuild, c.apiWorkflowStatus(idv.WorkflowArchived))},
		{"POST", "/console/api/workflows/{id}/activate", "console_workflows_activate", c.api(permBuild, c.apiWorkflowStatus(idv.WorkflowActive))},
		{"POST", "/console/api/workflows/{id}/sdk-token", "console_workflows_sdk_token", c.api(permBuild, c.apiSDKToken)},
		{"POST", "/console/api/workflows/{id}/test", "console_workflows_test", c.api(permBuild, c.apiTest)},
		{"GET", "/console/api/units", "console_units", c.api(permBuild, c.apiUnits)},
		{"PUT", "/console/api/units/threshold", "console_units_threshold", c.api(permAdmin, c.apiThreshold)},
		{"POST", "/console/api/organisation/verify-admin", "console_verify_admin", c.api(permAdmin, c.apiVerifyAdmin)},
	}
	if wh != nil {
		h := webhookHTTP{svc: wh}
		hook := func(f webhookHandler) http.Handler {
			return c.api(permBuild, func(w http.ResponseWriter, r *http.Request, m *member) *APIError {
				if r.Method != http.MethodGet {
					_ = m.admin.audit(r.Context(), m.org(), "webhook."+r.Method, "webhook", r.PathValue("id"), r.URL.Path)
				}
				return f(w, r, m.org())
			})
		}
		routes = append(routes,
			apiRoute{"POST", "/console/api/webhooks", "console_webhooks_create", hook(h.create)},
			apiRoute{"GET", "/console/api/webhooks", "console_webhooks_list", hook(h.list)},
			apiRoute{"GET", "/console/api/webhooks/{id}", "console_webhooks_show", hook(h.show)},
			apiRoute{"PATCH", "/console/api/webhooks/{id}", "console_webhooks_edit", hook(h.edit)},
			apiRoute{"DELETE", "/console/api/webhooks/{id}", "console_webhooks_delete", hook(h.delete)},
			apiRoute{"POST", "/console/api/webhooks/{id}/activate", "console_webhooks_activate", hook(h.status(wh.Activate))},
			apiRoute{"POST", "/console/api/webhooks/{id}/pause", "console_webhooks_pause", hook(h.status(wh.Pause))},
			apiRoute{"POST", "/console/api/webhooks/{id}/resume", "console_webhooks_resume", hook(h.status(wh.Resume))},
			apiRoute{"POST", "/console/api/webhooks/{id}/test", "console_webhooks_test", hook(h.test)},
			apiRoute{"POST", "/console/api/webhooks/{id}/validate-certificate", "console_webhooks_validate", hook(h.validate)},
			apiRoute{"GET", "/console/api/webhooks/{id}/logs", "console_webhooks_logs", hook(h.logs)},
			apiRoute{"GET", "/console/api/webhooks/{id}/stats", "console_webhooks_stats", hook(h.stats)},
		)
	}
	s.mountAPI(routes)
	c.mountPages()
}

// anon wraps the API's sign-up and sign-in calls: no session, but a
// same-origin check and the per-address rate limit on failures.
func (c *console) anon(h consoleHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "console:" + c.s.callerAddr(r)
		if ok, wait := c.s.ipLimiter.open(key); !ok {
			c.writeErr(w, r, &APIError{Code: CodeRateLimited, Message: "too many failed attempts from this address; wait and retry", RetryAfter: wait})
			return
		}
		if !sameOrigin(r) {
			c.writeErr(w, r, apiErr(CodeForbidden, "cross-origin request refused"))
			return
		}
		if aerr := h(w, r, nil); aerr != nil {
			if aerr.Code != CodeInternal {
				c.s.ipLimiter.charge(key)
			}
			c.writeErr(w, r, aerr)
		}
	})
}

func (c *console) apiSignupCode(w http.ResponseWriter, r *http.Request, _ *member) *APIError {
	var in struct {
		Email string `json:"email"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	if err := c.acc.SendCode(r.Context(), in.Email, "signup"); err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "code_sent"})
	return nil
}

// signedInBody is the answer to a sign-in: who, and the CSRF token for
// the calls that follow.
type signedInBody struct {
	Member    Member `json:"member"`
	CSRFToken string `json:"csrf_token"`
}

func (c *console) startSession(w http.ResponseWriter, r *http.Request, u store.User) *APIError {
	tok, err := c.acc.StartSession(r.Context(), u)
	if err != nil {
		return consoleErr(err)
	}
	c.setCookie(w, r, sessionCookie, tok, SessionTTL)
	c.setCookie(w, r, mfaCookie, "", -1)
	m := c.signedIn(&http.Request{Header: http.Header{"Cookie": {sessionCookie + "=" + tok}}, RemoteAddr: r.RemoteAddr})
	if m == nil {
		return apiErr(CodeInternal, "the new session could not be read")
	}
	writeJSON(w, http.StatusOK, signedInBody{Member: memberOf(u), CSRFToken: m.csrf})
	return nil
}

func (c *console) apiSignup(w http.ResponseWriter, r *http.Request, _ *member) *APIError {
	var in SignupInput
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	u, err := c.acc.Signup(r.Context(), in)
	if err != nil {
		return consoleErr(err)
	}
	return c.startSession(w, r, u)
}

func (c *console) apiSignin(w http.ResponseWriter, r *http.Request, _ *member) *APIError {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Code     string `json:"totp_code"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	u, need, err := c.acc.CheckPassword(r.Context(), in.Email, in.Password)
	if err != nil {
		return consoleErr(err)
	}
	if need {
		if in.Code == "" {
			return apiErr(CodeUnauthorized, "this account has two-factor authentication: send totp_code")
		}
		if u, err = c.acc.CheckSecondFactor(r.Context(), u.ID, in.Code); err != nil {
			return consoleErr(err)
		}
	}
	return c.startSession(w, r, u)
}

func (c *console) apiSignout(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	if err := c.st.RevokeSession(r.Context(), m.sess.ID); err != nil {
		return consoleErr(err)
	}
	c.setCookie(w, r, sessionCookie, "", -1)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (c *console) apiMe(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	writeJSON(w, http.StatusOK, signedInBody{Member: memberOf(m.user), CSRFToken: m.csrf})
	return nil
}

func (c *console) apiTOTPEnrol(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	e, err := c.acc.EnrolTOTP(r.Context(), m.user.ID)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusOK, e)
	return nil
}

func (c *console) apiTOTPConfirm(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	var in struct {
		Code string `json:"code"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	codes, err := c.acc.ConfirmTOTP(r.Context(), m.user.ID, in.Code)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"recovery_codes": codes})
	return nil
}

func (c *console) apiAcceptInvite(w http.ResponseWriter, r *http.Request, _ *member) *APIError {
	var in struct {
		Email    string `json:"email"`
		Code     string `json:"code"`
		Name     string `json:"name"`
		Password string `json:"password"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	u, err := c.acc.AcceptInvite(r.Context(), in.Email, in.Code, in.Name, in.Password)
	if err != nil {
		return consoleErr(err)
	}
	return c.startSession(w, r, u)
}

func (c *console) apiOverview(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	ov, err := c.overview(r.Context(), m)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusOK, ov)
	return nil
}

func (c *console) apiMembers(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	us, err := c.st.ListUsers(r.Context(), m.org())
	if err != nil {
		return consoleErr(err)
	}
	out := make([]Member, 0, len(us))
	for _, u := range us {
		out = append(out, memberOf(u))
	}
	writeJSON(w, http.StatusOK, map[string]any{"members": out})
	return nil
}

func (c *console) apiInvite(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	var in struct {
		Email string `json:"email"`
		Role  string `json:"role"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	u, err := c.acc.Invite(r.Context(), m.org(), in.Email, in.Role)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusCreated, memberOf(u))
	return nil
}

func (c *console) removeMember(r *http.Request, m *member, id string) error {
	if id == m.user.ID {
		return idv.Errorf(idv.EInvalid, "you cannot remove yourself")
	}
	if err := c.st.DeleteUser(r.Context(), m.org(), id); err != nil {
		return err
	}
	return m.admin.audit(r.Context(), m.org(), "member.removed", "user", id, "")
}

func (c *console) apiRemoveMember(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	if err := c.removeMember(r, m, r.PathValue("id")); err != nil {
		return consoleErr(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (c *console) apiClients(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	cs, err := c.listClients(r.Context(), m)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"clients": cs})
	return nil
}

func (c *console) apiCreateClient(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	var in struct {
		Name string `json:"name"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	cv, err := c.createClient(r.Context(), m, in.Name)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusCreated, cv)
	return nil
}

func (c *console) apiClientActive(active bool) consoleHandler {
	return func(w http.ResponseWriter, r *http.Request, m *member) *APIError {
		cv, err := c.setClientActive(r.Context(), m, r.PathValue("id"), active)
		if err != nil {
			return consoleErr(err)
		}
		writeJSON(w, http.StatusOK, cv)
		return nil
	}
}

func (c *console) apiRotateClient(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	cv, err := c.rotateClient(r.Context(), m, r.PathValue("id"))
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusOK, cv)
	return nil
}

func (c *console) apiWorkflows(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	ws, err := c.listWorkflows(r.Context(), m)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"workflows": ws})
	return nil
}

func (c *console) apiCreateWorkflow(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	var in WorkflowCreate
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	wf, err := c.createWorkflow(r.Context(), m, in)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusCreated, toWorkflowView(wf))
	return nil
}

func (c *console) apiWorkflow(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	wf, aerr := c.ownWorkflow(r.Context(), m, r.PathValue("id"))
	if aerr != nil {
		return aerr
	}
	writeJSON(w, http.StatusOK, toWorkflowView(wf))
	return nil
}

func (c *console) apiEditWorkflow(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	var def idv.Workflow
	if aerr := decodeBody(r, &def); aerr != nil {
		return aerr
	}
	wf, err := c.editWorkflow(r.Context(), m, r.PathValue("id"), def)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusOK, toWorkflowView(wf))
	return nil
}

func (c *console) apiDuplicate(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	var in struct {
		Name         string `json:"name"`
		ClientSecret string `json:"client_secret"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	wf, err := c.duplicateWorkflow(r.Context(), m, r.PathValue("id"), in.ClientSecret, in.Name)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusCreated, toWorkflowView(wf))
	return nil
}

func (c *console) apiWorkflowStatus(status string) consoleHandler {
	return func(w http.ResponseWriter, r *http.Request, m *member) *APIError {
		wf, err := c.setWorkflowStatus(r.Context(), m, r.PathValue("id"), status)
		if err != nil {
			return consoleErr(err)
		}
		writeJSON(w, http.StatusOK, toWorkflowView(wf))
		return nil
	}
}

func (c *console) apiSDKToken(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	var in struct {
		Config string `json:"config"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	tok, err := c.sdkToken(r.Context(), m, r.PathValue("id"), in.Config)
	if err != nil {
		return consoleErr(err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"token": tok, "expires_in": int(sdkTokenTTL.Seconds())})
	return nil
}

func (c *console) apiTest(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	tf, aerr := c.readTestForm(w, r)
	if aerr != nil {
		return aerr
	}
	body, aerr := c.testWorkflow(r.Context(), m, r.PathValue("id"), tf)
	if aerr != nil {
		return aerr
	}
	writeRawJSON(w, http.StatusOK, body)
	return nil
}

func (c *console) apiUnits(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	u, err := c.units(r.Context(), m)
	if err != nil {
		return consoleErr(err)
	}
	type entry struct {
		Delta          int64  `json:"delta"`
		Balance        int64  `json:"balance"`
		Reason         string `json:"reason"`
		VerificationID string `json:"verification_id,omitempty"`
		CreatedAt      string `json:"created_at"`
	}
	ledger := make([]entry, 0, len(u.Ledger))
	for _, e := range u.Ledger {
		ledger = append(ledger, entry{e.Delta, e.Balance, e.Reason, e.VerificationID, e.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")})
	}
	writeJSON(w, http.StatusOK, map[string]any{"balance": u.Balance, "low_balance_threshold": u.LowBalanceThreshold, "ledger": ledger})
	return nil
}

func (c *console) apiThreshold(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	var in struct {
		Threshold json.Number `json:"low_balance_threshold"`
	}
	if aerr := decodeBody(r, &in); aerr != nil {
		return aerr
	}
	n, err := strconv.ParseInt(string(in.Threshold), 10, 64)
	if err != nil {
		return apiErr(CodeInvalidRequest, "low_balance_threshold must be a whole number")
	}
	if err := c.setThreshold(r.Context(), m, n); err != nil {
		return consoleErr(err)
	}
	return c.apiUnits(w, r, m)
}
