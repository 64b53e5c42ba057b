package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

// The console's HTTP layer (docs/console.md): the session cookie, CSRF,
// roles, and the JSON admin API under /console/api that the pages and
// any script share. The pages (console_pages.go) call the same functions.

const (
	sessionCookie = "tambua_session"
	mfaCookie     = "tambua_mfa"
	// preCookie carries a random value that CSRF tokens of forms shown
	// before sign-in (sign-up, sign-in) are bound to.
	preCookie  = "tambua_pre"
	csrfHeader = "X-CSRF-Token"
	csrfField  = "csrf_token"
)

// perm is what a route needs.
type perm int

const (
	permView   perm = iota // any member: overview, own account
	permBuild              // admin and developer: clients, workflows, webhooks, tests, units
	permAdmin              // admin: members, unit settings
	permReview             // admin and reviewer: the review queue (console_review.go)
)

func roleAllows(role string, p perm) bool {
	switch role {
	case store.RoleAdmin:
		return true
	case store.RoleDeveloper:
		return p <= permBuild
	case store.RoleReviewer:
		return p == permView || p == permReview
	}
	return false
}

// member is the signed-in caller of a console request.
type member struct {
	sess store.Session
	user store.User
	csrf string
	// admin acts for this member: its audit lines name them and their
	// address.
	admin *Admin
}

func (m *member) org() int64 { return m.user.OrganisationID }

// console is the console's shared state.
type console struct {
	s   *Server
	acc *Accounts
	st  store.Console
	wh  *webhook.Service // nil when the store keeps no webhooks
	tpl pages
	// pageRoutes are the registered pages (ConsolePages).
	pageRoutes []pageRoute
	// csp is the pages' Content-Security-Policy: images may come from
	// {files_url}'s origin too (test results' derived images).
	csp string
}

func (s *Server) secureCookies(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(s.cfg.BaseURL, "https://")
}

func (c *console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, ttl time.Duration) {
	ck := &http.Cookie{Name: name, Value: value, Path: "/console", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.s.secureCookies(r)}
	if ttl < 0 {
		ck.MaxAge = -1
	} else if ttl > 0 {
		ck.MaxAge = int(ttl.Seconds())
	}
	http.SetCookie(w, ck)
}

// signedIn resolves the session cookie; nil when there is none or it is
// dead.
func (c *console) signedIn(r *http.Request) *member {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil
	}
	sess, u, err := c.acc.Session(r.Context(), ck.Value)
	if err != nil {
		return nil
	}
	adm := *c.s.consoleAdmin
	adm.Actor = "console:" + u.ID
	adm.Address = c.s.callerAddr(r)
	return &member{sess: sess, user: u, csrf: c.acc.csrfToken(sess.ID), admin: &adm}
}

// preToken returns the CSRF token of a form shown before sign-in, setting
// the cookie it is bound to when missing.
func (c *console) preToken(w http.ResponseWriter, r *http.Request) string {
	v := ""
	if ck, err := r.Cookie(preCookie); err == nil && len(ck.Value) >= 16 && len(ck.Value) <= 64 {
		v = ck.Value
	} else {
		v = randomToken(18)
		c.setCookie(w, r, preCookie, v, 0)
	}
	return c.acc.csrfToken("pre\x00" + v)
}

// checkPreToken checks a pre-sign-in form's token against its cookie.
func (c *console) checkPreToken(r *http.Request, got string) bool {
	ck, err := r.Cookie(preCookie)
	if err != nil || ck.Value == "" || got == "" {
		return false
	}
	return equalString(got, c.acc.csrfToken("pre\x00"+ck.Value))
}

// sameOrigin refuses a state-changing request whose Origin (sent by
// browsers on POST) names another site: a second wall behind the token.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return o == ""
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

type consoleHandler func(w http.ResponseWriter, r *http.Request, m *member) *APIError

// api wraps a JSON admin API handler: a live session, the role's
// permission and, on every method but GET, the CSRF header.
func (c *console) api(p perm, h consoleHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := c.signedIn(r)
		var aerr *APIError
		switch {
		case m == nil:
			aerr = apiErr(CodeUnauthorized, "sign in to the console first")
		case r.Method != http.MethodGet && (!equalString(r.Header.Get(csrfHeader), m.csrf) || !sameOrigin(r)):
			aerr = apiErr(CodeForbidden, "missing or wrong CSRF token: send the X-CSRF-Token header")
		case !roleAllows(m.user.Role, p):
			aerr = apiErr(CodeForbidden, "your role (%s) may not do this", m.user.Role)
		default:
			aerr = h(w, r, m)
		}
		if aerr != nil {
			c.writeErr(w, r, aerr)
		}
	})
}

func (c *console) writeErr(w http.ResponseWriter, r *http.Request, aerr *APIError) {
	if aerr.Code == CodeInternal {
		c.s.log.ErrorContext(r.Context(), "console", "request_id", requestIDFrom(r.Context()), "error", aerr.Message)
		aerr = apiErr(CodeInternal, "internal error")
	}
	if aerr.Code == CodeUnauthorized {
		// Not a Bearer realm: the console signs in with a cookie.
		writeJSON(w, HTTPStatus(aerr.Code), errorBody{Code: aerr.Code, Message: aerr.Message, TraceID: requestIDFrom(r.Context())})
		return
	}
	writeAPIError(w, aerr, requestIDFrom(r.Context()))
}

// consoleErr maps the errors of the service code to the API's shape.
func consoleErr(err error) *APIError {
	var ae *APIError
	var ve *idv.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, ErrInvalidClientSecret), errors.Is(err, ErrClientNotFound), errors.Is(err, ErrClientInactive),
		errors.Is(err, ErrWorkflowName), errors.Is(err, ErrBadCode), errors.Is(err, ErrBadTOTP), errors.Is(err, ErrEmailTaken):
		return apiErr(CodeInvalidRequest, "%s", err.Error())
	case errors.Is(err, ErrBadCredentials):
		return apiErr(CodeUnauthorized, "%s", err.Error())
	case errors.Is(err, ErrLocked):
		return &APIError{Code: CodeRateLimited, Message: err.Error(), RetryAfter: int(lockoutFor.Seconds())}
	case errors.Is(err, ErrNotFound):
		return apiErr(CodeNotFound, "not found")
	case errors.As(err, &ve):
		return apiErr(CodeInvalidRequest, "%s", strings.TrimPrefix(ve.Error(), "idv: "))
	case idv.ErrorCode(err) == idv.EInvalid:
		return apiErr(CodeInvalidRequest, "%s", strings.TrimPrefix(err.Error(), "idv: "))
	}
	if we := webhookErr(err); we != nil && we.Code != CodeInternal {
		return we
	}
	return apiErr(CodeInternal, "%v", err)
}

// ownClient returns a client of the member's organisation; another
// organisation's is "not found", never "forbidden", so ids cannot be probed.
func (c *console) ownClient(ctx context.Context, m *member, id string) (Client, *APIError) {
	cl, err := c.s.store.Client(ctx, id)
	if errors.Is(err, ErrNotFound) || err == nil && cl.OrganisationID != m.org() {
		return Client{}, apiErr(CodeNotFound, "no such client")
	}
	if err != nil {
		return Client{}, consoleErr(err)
	}
	return cl, nil
}

func (c *console) ownWorkflow(ctx context.Context, m *member, id string) (Workflow, *APIError) {
	wf, err := c.s.store.Workflow(ctx, id)
	if errors.Is(err, ErrNotFound) || err == nil && wf.OrganisationID != m.org() {
		return Workflow{}, apiErr(CodeNotFound, "no such workflow")
	}
	if err != nil {
		return Workflow{}, consoleErr(err)
	}
	return wf, nil
}

// ClientView is a client as the console API shows it (no secret hash).
type ClientView struct {
	ClientID  string    `json:"client_id"`
	Name      string    `json:"name"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
	// Secret is set only in the answer to create and rotate.
	Secret string `json:"client_secret,omitempty"`
}

func clientView(c Client, secret string) ClientView {
	return ClientView{ClientID: c.ID, Name: c.Name, Active: c.Active, CreatedAt: c.CreatedAt, Secret: secret}
}

// WorkflowView is a workflow as the console API shows it. The refresh
// token is not shown: the SDK token carries it.
type WorkflowView struct {
	ID         string       `json:"id"`
	ClientID   string       `json:"client_id"`
	Status     string       `json:"status"`
	Cost       int          `json:"cost_units"`
	Version    int64        `json:"version"`
	Definition idv.Workflow `json:"definition"`
	CreatedAt  time.Time    `json:"created_at"`
	UpdatedAt  time.Time    `json:"updated_at"`
}

func toWorkflowView(w Workflow) WorkflowView {
	return WorkflowView{ID: w.ID, ClientID: w.ClientID, Status: w.Status, Cost: w.Definition.Cost(), Version: w.Version,
		Definition: w.Definition, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// decodeBody reads a JSON body strictly (unknown fields refused).
func decodeBody(r *http.Request, v any) *APIError {
	dec := json.NewDecoder(io.LimitReader(r.Body, 256<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apiErr(CodeInvalidRequest, "body: %v", err)
	}
	return nil
}

// ---- the service operations, shared by the API and the pages ----

func (c *console) createClient(ctx context.Context, m *member, name string) (ClientView, error) {
	name, err := cleanText("client name", name, 1, 255)
	if err != nil {
		return ClientView{}, err
	}
	cl, secret, err := m.admin.CreateClient(ctx, m.org(), name)
	if err != nil {
		return ClientView{}, err
	}
	return clientView(cl, secret), nil
}

func (c *console) listClients(ctx context.Context, m *member) ([]ClientView, error) {
	cs, err := c.st.ListClients(ctx, m.org())
	out := make([]ClientView, 0, len(cs))
	for _, cl := range cs {
		out = append(out, clientView(cl, ""))
	}
	return out, err
}

func (c *console) setClientActive(ctx context.Context, m *member, id string, active bool) (ClientView, error) {
	if _, aerr := c.ownClient(ctx, m, id); aerr != nil {
		return ClientView{}, aerr
	}
	cl, err := m.admin.SetClientActive(ctx, id, active)
	return clientView(cl, ""), err
}

func (c *console) rotateClient(ctx context.Context, m *member, id string) (ClientView, error) {
	if _, aerr := c.ownClient(ctx, m, id); aerr != nil {
		return ClientView{}, aerr
	}
	cl, secret, err := m.admin.RotateClientSecret(ctx, id)
	return clientView(cl, secret), err
}

// WorkflowCreate is the body of a workflow creation.
type WorkflowCreate struct {
	ClientID     string       `json:"client_id"`
	ClientSecret string       `json:"client_secret"`
	Workflow     idv.Workflow `json:"workflow"`
}

func (c *console) createWorkflow(ctx context.Context, m *member, in WorkflowCreate) (Workflow, error) {
	// Another organisation's client is "Client not found", as the spec
	// words an unknown one.
	if cl, err := c.s.store.Client(ctx, in.ClientID); err != nil || cl.OrganisationID != m.org() {
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Workflow{}, err
		}
		return Workflow{}, ErrClientNotFound
	}
	return m.admin.CreateWorkflow(ctx, in.ClientID, in.ClientSecret, in.Workflow)
}

func (c *console) listWorkflows(ctx context.Context, m *member) ([]WorkflowView, error) {
	ws, err := c.st.ListOrgWorkflows(ctx, m.org())
	out := make([]WorkflowView, 0, len(ws))
	for _, w := range ws {
		out = append(out, toWorkflowView(w))
	}
	return out, err
}

func (c *console) editWorkflow(ctx context.Context, m *member, id string, def idv.Workflow) (Workflow, error) {
	if _, aerr := c.ownWorkflow(ctx, m, id); aerr != nil {
		return Workflow{}, aerr
	}
	return m.admin.EditWorkflow(ctx, id, def)
}

func (c *console) duplicateWorkflow(ctx context.Context, m *member, id, secret, name string) (Workflow, error) {
	if _, aerr := c.ownWorkflow(ctx, m, id); aerr != nil {
		return Workflow{}, aerr
	}
	return m.admin.DuplicateWorkflow(ctx, id, secret, name)
}

func (c *console) setWorkflowStatus(ctx context.Context, m *member, id, status string) (Workflow, error) {
	if _, aerr := c.ownWorkflow(ctx, m, id); aerr != nil {
		return Workflow{}, aerr
	}
	return m.admin.SetWorkflowStatus(ctx, id, status)
}

// sdkTokenTTL is the lifetime of an SDK token minted in the console: a
// day, enough to hand to an app build or a test page.
const sdkTokenTTL = 24 * time.Hour

func (c *console) sdkToken(ctx context.Context, m *member, id, config string) (string, error) {
	wf, aerr := c.ownWorkflow(ctx, m, id)
	if aerr != nil {
		return "", aerr
	}
	if wf.Status != idv.WorkflowActive {
		return "", idv.Errorf(idv.EInvalid, "only an active workflow can have SDK tokens")
	}
	if config == "" {
		config = wf.Definition.DocumentTypes[0]
	}
	if !contains(wf.Definition.DocumentTypes, config) {
		return "", idv.Errorf(idv.EInvalid, "config must be one of the workflow's document types")
	}
	return m.admin.SDKToken(wf, c.s.cfg.BaseURL+"/postdata", config, sdkTokenTTL)
}

// UnitsView is the units page's data.
type UnitsView struct {
	Balance             int64               `json:"balance"`
	LowBalanceThreshold int64               `json:"low_balance_threshold"`
	Ledger              []store.LedgerEntry `json:"ledger"`
}

func (c *console) units(ctx context.Context, m *member) (UnitsView, error) {
	o, err := c.s.store.Organisation(ctx, m.org())
	if err != nil {
		return UnitsView{}, err
	}
	l, err := c.st.UnitLedger(ctx, m.org(), 200)
	return UnitsView{Balance: o.Balance, LowBalanceThreshold: o.LowBalanceThreshold, Ledger: l}, err
}

// maxThreshold bounds the low-balance threshold: far above any balance
// a self-hosted organisation tops up to.
const maxThreshold = 1_000_000_000

func (c *console) setThreshold(ctx context.Context, m *member, n int64) error {
	if n < 0 || n > maxThreshold {
		return idv.Errorf(idv.EInvalid, "the threshold must be between 0 and %d", maxThreshold)
	}
	if err := c.st.SetLowBalanceThreshold(ctx, m.org(), n); err != nil {
		return err
	}
	return m.admin.audit(ctx, m.org(), "units.threshold", "organisation", "", "")
}

// testFiles are the captures of a test verification.
type testFiles struct {
	config string
	files  []slotFile
}

// readTestForm reads a test verification's multipart form: front, back
// and selfie files and an optional config, within the upload limits.
func (c *console) readTestForm(w http.ResponseWriter, r *http.Request) (*testFiles, *APIError) {
	lim := c.s.cfg.Limits
	if r.ContentLength > lim.RequestBytes {
		return nil, apiErr(CodePayloadTooLarge, "the upload is larger than %d MB", lim.RequestBytes>>20)
	}
	r.Body = http.MaxBytesReader(w, r.Body, lim.RequestBytes)
	if err := r.ParseMultipartForm(8 << 20); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apiErr(CodePayloadTooLarge, "the upload is larger than %d MB", lim.RequestBytes>>20)
		}
		return nil, apiErr(CodeInvalidRequest, "send a multipart form with front, back and selfie images")
	}
	out := &testFiles{config: r.FormValue("config")}
	for _, slot := range []string{"front", "back", "selfie"} {
		fhs := r.MultipartForm.File[slot]
		if len(fhs) == 0 {
			continue
		}
		data, aerr := readPart(fhs[0], lim.FileBytes, slot)
		if aerr != nil {
			return nil, aerr
		}
		if len(data) == 0 {
			continue
		}
		out.files = append(out.files, slotFile{slot: slot, data: data})
	}
	if len(out.files) == 0 || out.files[0].slot != "front" {
		return nil, apiErr(CodeInvalidRequest, "a test verification needs at least the front image")
	}
	return out, nil
}

func readPart(fh *multipart.FileHeader, max int64, slot string) ([]byte, *APIError) {
	if fh.Size > max {
		return nil, apiErr(CodePayloadTooLarge, "%s is larger than %d MB", slot, max>>20)
	}
	f, err := fh.Open()
	if err != nil {
		return nil, apiErr(CodeInvalidRequest, "%s could not be read", slot)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(data)) > max {
		return nil, apiErr(CodePayloadTooLarge, "%s is larger than %d MB", slot, max>>20)
	}
	return data, nil
}

// testWorkflow runs a verification of an active workflow of the member's
// organisation on uploaded captures, through the same path as /upload:
// it is billed (the spec: test verifications consume units) and its
// events are sent.
func (c *console) testWorkflow(ctx context.Context, m *member, id string, tf *testFiles) (json.RawMessage, *APIError) {
	wf, aerr := c.ownWorkflow(ctx, m, id)
	if aerr != nil {
		return nil, aerr
	}
	for i, f := range tf.files {
		format, aerr := c.s.checkImage(ctx, f.slot, f.data)
		if aerr != nil {
			return nil, aerr
		}
		tf.files[i].format = format
	}
	if len(tf.config) > 64 {
		return nil, apiErr(CodeInvalidRequest, "config is too long")
	}
	p := &Principal{ClientID: wf.ClientID, OrganisationID: wf.OrganisationID}
	in := &verifyInput{p: p, clientID: wf.ClientID, workflowID: wf.ID, config: tf.config, files: tf.files,
		message: map[string]json.RawMessage{"console_test": json.RawMessage("true")}}
	body, aerr := c.s.verify(ctx, in)
	if aerr != nil {
		return nil, aerr
	}
	_ = m.admin.audit(ctx, m.org(), "workflow.tested", "workflow", wf.ID, "")
	return body, nil
}

// Overview is the overview page's data.
type Overview struct {
	Today    map[string]int64  `json:"verifications_today"`
	Balance  int64             `json:"units_balance"`
	Webhooks []webhook.Summary `json:"webhooks"`
	// AdminVerification is the admin's personal verification:
	// accept, review, reject, or not_run.
	AdminVerification string             `json:"admin_verification_decision"`
	Profile           *store.OrgProfile  `json:"-"`
	Org               store.Organisation `json:"-"`
}

func (c *console) overview(ctx context.Context, m *member) (Overview, error) {
	o, err := c.s.store.Organisation(ctx, m.org())
	if err != nil {
		return Overview{}, err
	}
	now := c.s.cfg.Now().UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	counts, err := c.st.DecisionCounts(ctx, m.org(), day)
	if err != nil {
		return Overview{}, err
	}
	for _, d := range []string{"accept", "review", "reject"} {
		counts[d] += 0
	}
	ov := Overview{Today: counts, Balance: o.Balance, Org: o, Webhooks: []webhook.Summary{}, AdminVerification: "not_run"}
	if p, err := c.st.OrgProfile(ctx, m.org()); err == nil {
		ov.Profile = &p
		if p.AdminVerificationDecision != "" {
			ov.AdminVerification = p.AdminVerificationDecision
		}
	}
	if c.wh != nil {
		if ov.Webhooks, err = c.wh.List(ctx, m.org()); err != nil {
			return ov, err
		}
	}
	return ov, nil
}
