package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/consoleui"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

// The console's pages: server-rendered html/template, forms that post
// back, a little JavaScript for copy buttons and confirmations. Every
// page handler calls the same functions as the JSON admin API.

// view is what every page template gets.
type view struct {
	Title  string
	Nav    string
	M      *member
	CSRF   string
	Error  string
	Notice string
	D      any
}

// Can reports whether the signed-in member may do what a permission names.
func (v view) Can(what string) bool {
	if v.M == nil {
		return false
	}
	switch what {
	case "build":
		return roleAllows(v.M.user.Role, permBuild)
	case "admin":
		return roleAllows(v.M.user.Role, permAdmin)
	case "review":
		return roleAllows(v.M.user.Role, permReview)
	}
	return true
}

// User is the signed-in member.
func (v view) User() Member {
	if v.M == nil {
		return Member{}
	}
	return memberOf(v.M.user)
}

var pageFuncs = template.FuncMap{
	"when": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			if v.IsZero() {
				return "never"
			}
			return v.UTC().Format("2006-01-02 15:04 UTC")
		case *time.Time:
			if v == nil || v.IsZero() {
				return "never"
			}
			return v.UTC().Format("2006-01-02 15:04 UTC")
		}
		return ""
	},
	"pct":  func(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" },
	"num":  func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
	"join": strings.Join,
	"title": func(s string) string {
		if s == "" {
			return s
		}
		return strings.ToUpper(s[:1]) + strings.ReplaceAll(s[1:], "_", " ")
	},
	"has": func(list []string, s string) bool { return contains(list, s) },
	"units": func(n int) string {
		if n == 1 {
			return "1 unit"
		}
		return strconv.Itoa(n) + " units"
	},
}

// pages holds each page's template, parsed once with the layout.
type pages map[string]*template.Template

func loadPages() pages {
	base := template.Must(template.New("layout.html").Funcs(pageFuncs).ParseFS(consoleui.Templates, "templates/layout.html", "templates/partials.html"))
	names, _ := fs.Glob(consoleui.Templates, "templates/*.html")
	out := pages{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(consoleui.Templates, n))
	}
	return out
}

// pageRoute is one console page (tests walk them).
type pageRoute struct {
	Method, Path string
}

// ConsolePages lists the console's page routes (HTML, not in Routes).
func (s *Server) ConsolePages() []pageRoute {
	if s.console == nil {
		return nil
	}
	return append([]pageRoute(nil), s.console.pageRoutes...)
}

type pageHandler func(w http.ResponseWriter, r *http.Request, m *member) (view, string, error)

func (c *console) mountPages() {
	c.tpl = loadPages()
	img := "'self' data:"
	if u, err := url.Parse(c.s.cfg.FilesURL); err == nil && u.Host != "" {
		img += " " + u.Scheme + "://" + u.Host
	}
	c.csp = "default-src 'self'; img-src " + img + "; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
	static, _ := fs.Sub(consoleui.Static, "static")
	c.s.mux.Handle("GET /console/static/", c.s.instrument("console_static", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		http.StripPrefix("/console/static/", http.FileServerFS(static)).ServeHTTP(w, r)
	}))
	reg := func(method, path string, p perm, h pageHandler) {
		c.pageRoutes = append(c.pageRoutes, pageRoute{method, path})
		c.s.mux.Handle(method+" "+path, c.s.instrument("console_page", c.page(p, h).ServeHTTP))
	}
	anon := func(method, path string, h pageHandler) {
		c.pageRoutes = append(c.pageRoutes, pageRoute{method, path})
		c.s.mux.Handle(method+" "+path, c.s.instrument("console_page", c.anonPage(h).ServeHTTP))
	}
	c.s.mux.Handle("GET /console", http.RedirectHandler("/console/", http.StatusFound))
	c.s.mux.Handle("GET /console/{$}", c.s.instrument("console_page", func(w http.ResponseWriter, r *http.Request) {
		if c.signedIn(r) != nil {
			http.Redirect(w, r, "/console/overview", http.StatusSeeOther)
			return
		}
		http.Redirect(w, r, "/console/signin", http.StatusSeeOther)
	}))
	anon("GET", "/console/signup", c.pgSignup)
	anon("POST", "/console/signup", c.pgSignupPost)
	anon("GET", "/console/signup/verify", c.pgSignupVerify)
	anon("POST", "/console/signup/verify", c.pgSignupVerifyPost)
	anon("GET", "/console/signin", c.pgSignin)
	anon("POST", "/console/signin", c.pgSigninPost)
	anon("GET", "/console/signin/code", c.pgSigninCode)
	anon("POST", "/console/signin/code", c.pgSigninCodePost)
	anon("GET", "/console/invite", c.pgInvite)
	anon("POST", "/console/invite", c.pgInvitePost)
	reg("POST", "/console/signout", permView, c.pgSignout)
	reg("GET", "/console/overview", permView, c.pgOverview)
	reg("GET", "/console/security", permView, c.pgSecurity)
	reg("POST", "/console/security/totp", permView, c.pgTOTPEnrol)
	reg("POST", "/console/security/totp/confirm", permView, c.pgTOTPConfirm)
	reg("GET", "/console/verify-admin", permAdmin, c.pgVerifyAdmin)
	reg("POST", "/console/verify-admin", permAdmin, c.pgVerifyAdminPost)
	reg("GET", "/console/members", permAdmin, c.pgMembers)
	reg("POST", "/console/members", permAdmin, c.pgInviteMember)
	reg("POST", "/console/members/{id}/remove", permAdmin, c.pgRemoveMember)
	reg("GET", "/console/clients", permBuild, c.pgClients)
	reg("POST", "/console/clients", permBuild, c.pgCreateClient)
	reg("POST", "/console/clients/{id}/activate", permBuild, c.pgClientActive(true))
	reg("POST", "/console/clients/{id}/deactivate", permBuild, c.pgClientActive(false))
	reg("POST", "/console/clients/{id}/rotate", permBuild, c.pgRotateClient)
	reg("GET", "/console/workflows", permBuild, c.pgWorkflows)
	reg("GET", "/console/workflows/new", permBuild, c.pgNewWorkflow)
	reg("POST", "/console/workflows/new", permBuild, c.pgCreateWorkflow)
	reg("GET", "/console/workflows/{id}", permBuild, c.pgWorkflow)
	reg("POST", "/console/workflows/{id}", permBuild, c.pgEditWorkflow)
	reg("GET", "/console/workflows/{id}/duplicate", permBuild, c.pgDuplicateForm)
	reg("POST", "/console/workflows/{id}/duplicate", permBuild, c.pgDuplicate)
	reg("GET", "/console/workflows/{id}/archive", permBuild, c.pgArchiveConfirm)
	reg("POST", "/console/workflows/{id}/archive", permBuild, c.pgWorkflowStatus(idv.WorkflowArchived))
	reg("POST", "/console/workflows/{id}/activate", permBuild, c.pgWorkflowStatus(idv.WorkflowActive))
	reg("POST", "/console/workflows/{id}/sdk-token", permBuild, c.pgSDKToken)
	reg("GET", "/console/workflows/{id}/test", permBuild, c.pgTestForm)
	reg("POST", "/console/workflows/{id}/test", permBuild, c.pgTest)
	reg("GET", "/console/units", permBuild, c.pgUnits)
	reg("POST", "/console/units", permAdmin, c.pgThreshold)
	if c.wh != nil {
		reg("GET", "/console/webhooks", permBuild, c.pgWebhooks)
		reg("GET", "/console/webhooks/new", permBuild, c.pgNewWebhook)
		reg("POST", "/console/webhooks/new", permBuild, c.pgCreateWebhook)
		reg("GET", "/console/webhooks/{id}", permBuild, c.pgWebhook)
		reg("POST", "/console/webhooks/{id}", permBuild, c.pgEditWebhook)
		reg("POST", "/console/webhooks/{id}/action", permBuild, c.pgWebhookAction)
		reg("GET", "/console/webhooks/{id}/delete", permBuild, c.pgDeleteWebhookConfirm)
		reg("POST", "/console/webhooks/{id}/delete", permBuild, c.pgDeleteWebhook)
		reg("GET", "/console/webhooks/{id}/logs.csv", permBuild, c.pgLogsCSV)
	}
	c.mountReviewPages(reg)
}

// securityHeaders keeps pages out of frames and scripts to our own files.
func (c *console) securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", c.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// page wraps a signed-in page: no session sends GETs to sign-in; a POST
// must carry the session's CSRF token and come from this origin.
func (c *console) page(p perm, h pageHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.securityHeaders(w)
		m := c.signedIn(r)
		if m == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/console/signin?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
				return
			}
			c.renderStatus(w, r, http.StatusUnauthorized, "Signed out", "Your session has ended. Sign in again.")
			return
		}
		if r.Method != http.MethodGet {
			if !sameOrigin(r) || !equalString(c.formValue(w, r, csrfField), m.csrf) {
				c.renderStatus(w, r, http.StatusForbidden, "Form expired", "This form is missing its security token or has expired. Go back, reload the page and try again. Nothing was changed.")
				return
			}
		}
		if !roleAllows(m.user.Role, p) {
			c.renderStatus(w, r, http.StatusForbidden, "Not allowed", "Your role ("+m.user.Role+") cannot open this page.")
			return
		}
		v, redirect, err := h(w, r, m)
		c.finish(w, r, m, v, redirect, err)
	})
}

// formValue reads a form field; multipart forms are parsed by their
// handler within limits, so only their token is read here.
func (c *console) formValue(w http.ResponseWriter, r *http.Request, name string) string {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		// The token rides in the query of multipart forms' action, so the
		// body is not read twice.
		return r.URL.Query().Get(name)
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		return ""
	}
	return r.PostForm.Get(name)
}

func (c *console) anonPage(h pageHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.securityHeaders(w)
		if r.Method != http.MethodGet {
			key := "console:" + c.s.callerAddr(r)
			if ok, wait := c.s.ipLimiter.open(key); !ok {
				c.renderStatus(w, r, http.StatusTooManyRequests, "Too many attempts", fmt.Sprintf("Too many failed attempts from your address. Wait %d seconds and try again.", wait))
				return
			}
			if !sameOrigin(r) || !c.checkPreToken(r, c.formValue(w, r, csrfField)) {
				c.renderStatus(w, r, http.StatusForbidden, "Form expired", "This form is missing its security token or has expired. Reload the page and try again. Nothing was changed.")
				return
			}
			v, redirect, err := h(w, r, nil)
			if err != nil && idv.ErrorCode(err) != "" || err != nil && !isInternal(err) {
				c.s.ipLimiter.charge(key)
			}
			c.finish(w, r, nil, v, redirect, err)
			return
		}
		v, redirect, err := h(w, r, nil)
		c.finish(w, r, nil, v, redirect, err)
	})
}

func isInternal(err error) bool { return consoleErr(err).Code == CodeInternal }

// finish renders a page's view, follows its redirect, or shows its error
// on the page it came from (v.Title names the template).
func (c *console) finish(w http.ResponseWriter, r *http.Request, m *member, v view, redirect string, err error) {
	if errors.Is(err, errWritten) {
		return
	}
	if err != nil {
		ae := consoleErr(err)
		if ae.Code == CodeInternal {
			c.s.log.ErrorContext(r.Context(), "console page", "request_id", requestIDFrom(r.Context()), "error", ae.Message)
			c.renderStatus(w, r, http.StatusInternalServerError, "Something went wrong", "The server could not complete this. Nothing was changed; try again.")
			return
		}
		if v.Nav == "" {
			c.renderStatus(w, r, HTTPStatus(ae.Code), "Could not do that", ae.Message)
			return
		}
		v.Error = ae.Message
		c.render(w, r, m, HTTPStatus(ae.Code), v)
		return
	}
	if redirect != "" {
		http.Redirect(w, r, redirect, http.StatusSeeOther)
		return
	}
	c.render(w, r, m, http.StatusOK, v)
}

func (c *console) render(w http.ResponseWriter, r *http.Request, m *member, status int, v view) {
	v.M = m
	if m != nil {
		v.CSRF = m.csrf
	} else {
		v.CSRF = c.preToken(w, r)
	}
	if v.Notice == "" {
		v.Notice = noticeText[r.URL.Query().Get("notice")]
	}
	t := c.tpl[v.Nav]
	if t == nil {
		t = c.tpl["message"]
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout.html", v); err != nil {
		c.s.log.ErrorContext(r.Context(), "console template", "page", v.Nav, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func (c *console) renderStatus(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	c.render(w, r, c.signedIn(r), status, view{Title: title, Nav: "message", Error: msg})
}

// noticeText are the confirmations a redirect names (?notice=...): fixed
// strings, so a link cannot put words on the page.
var noticeText = map[string]string{
	"client_activated":   "Client activated.",
	"client_deactivated": "Client deactivated: it can no longer get tokens.",
	"wf_saved":           "Workflow saved. Changes apply to verifications that start from now.",
	"wf_archived":        "Workflow archived. Existing verification data is kept.",
	"wf_active":          "Workflow activated.",
	"wh_saved":           "Webhook saved.",
	"wh_deleted":         "Webhook and its logs deleted.",
	"wh_activate":        "Webhook activated.",
	"wh_pause":           "Webhook paused: events are not delivered while paused.",
	"wh_resume":          "Webhook resumed.",
	"threshold":          "Low-balance threshold saved.",
	"invited":            "Invitation sent.",
	"removed":            "Member removed.",
	"code_sent":          "We sent a 6-digit code to your email.",
	"totp_on":            "Two-factor authentication is on.",
	"signed_out":         "You are signed out.",
}

// ---- accounts ----

func (c *console) pgSignup(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	return view{Title: "Create your account", Nav: "signup"}, "", nil
}

func (c *console) pgSignupPost(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	v := view{Title: "Create your account", Nav: "signup", D: r.PostForm.Get("email")}
	if err := c.acc.SendCode(r.Context(), r.PostForm.Get("email"), "signup"); err != nil {
		return v, "", err
	}
	return v, "/console/signup/verify?notice=code_sent&email=" + url.QueryEscape(NormaliseEmail(r.PostForm.Get("email"))), nil
}

func (c *console) pgSignupVerify(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	return view{Title: "Verify your email", Nav: "signup_verify", D: SignupInput{Email: r.URL.Query().Get("email")}}, "", nil
}

func (c *console) pgSignupVerifyPost(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	f := r.PostForm
	in := SignupInput{Email: f.Get("email"), Code: f.Get("code"), Name: f.Get("name"), Password: f.Get("password"),
		Organisation: f.Get("organisation"), RegistrationNumber: f.Get("registration_number"), Industry: f.Get("industry"), MonthlyVolume: f.Get("monthly_volume")}
	v := view{Title: "Verify your email", Nav: "signup_verify", D: SignupInput{Email: in.Email, Name: in.Name, Organisation: in.Organisation,
		RegistrationNumber: in.RegistrationNumber, Industry: in.Industry, MonthlyVolume: in.MonthlyVolume}}
	u, err := c.acc.Signup(r.Context(), in)
	if err != nil {
		return v, "", err
	}
	if err := c.startPageSession(w, r, u); err != nil {
		return v, "", err
	}
	return v, "/console/verify-admin?welcome=1", nil
}

func (c *console) startPageSession(w http.ResponseWriter, r *http.Request, u store.User) error {
	tok, err := c.acc.StartSession(r.Context(), u)
	if err != nil {
		return err
	}
	c.setCookie(w, r, sessionCookie, tok, SessionTTL)
	c.setCookie(w, r, mfaCookie, "", -1)
	return nil
}

func safeNext(next string) string {
	if strings.HasPrefix(next, "/console/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return "/console/overview"
}

func (c *console) pgSignin(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	return view{Title: "Sign in", Nav: "signin", D: map[string]string{"Next": r.URL.Query().Get("next")}}, "", nil
}

func (c *console) pgSigninPost(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	f := r.PostForm
	v := view{Title: "Sign in", Nav: "signin", D: map[string]string{"Next": f.Get("next"), "Email": f.Get("email")}}
	u, need, err := c.acc.CheckPassword(r.Context(), f.Get("email"), f.Get("password"))
	if err != nil {
		return v, "", err
	}
	if need {
		tok, err := c.acc.mfaToken(u)
		if err != nil {
			return v, "", err
		}
		c.setCookie(w, r, mfaCookie, tok, mfaTTL)
		return v, "/console/signin/code?next=" + url.QueryEscape(safeNext(f.Get("next"))), nil
	}
	if err := c.startPageSession(w, r, u); err != nil {
		return v, "", err
	}
	return v, safeNext(f.Get("next")), nil
}

func (c *console) pgSigninCode(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	return view{Title: "Two-factor authentication", Nav: "signin_code", D: map[string]string{"Next": r.URL.Query().Get("next")}}, "", nil
}

func (c *console) pgSigninCodePost(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	v := view{Title: "Two-factor authentication", Nav: "signin_code", D: map[string]string{"Next": r.PostForm.Get("next")}}
	ck, err := r.Cookie(mfaCookie)
	if err != nil {
		return view{}, "/console/signin", nil
	}
	cl, err := c.acc.parseJWT(ck.Value, "console_mfa")
	if err != nil {
		return view{}, "/console/signin", nil
	}
	u, err := c.acc.CheckSecondFactor(r.Context(), cl.Subject, r.PostForm.Get("code"))
	if err != nil {
		return v, "", err
	}
	if err := c.startPageSession(w, r, u); err != nil {
		return v, "", err
	}
	return v, safeNext(r.PostForm.Get("next")), nil
}

func (c *console) pgInvite(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	return view{Title: "Accept an invitation", Nav: "invite", D: map[string]string{"Email": r.URL.Query().Get("email")}}, "", nil
}

func (c *console) pgInvitePost(w http.ResponseWriter, r *http.Request, _ *member) (view, string, error) {
	f := r.PostForm
	v := view{Title: "Accept an invitation", Nav: "invite", D: map[string]string{"Email": f.Get("email"), "Name": f.Get("name")}}
	u, err := c.acc.AcceptInvite(r.Context(), f.Get("email"), f.Get("code"), f.Get("name"), f.Get("password"))
	if err != nil {
		return v, "", err
	}
	if err := c.startPageSession(w, r, u); err != nil {
		return v, "", err
	}
	return v, "/console/overview", nil
}

func (c *console) pgSignout(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	if err := c.st.RevokeSession(r.Context(), m.sess.ID); err != nil {
		return view{}, "", err
	}
	c.setCookie(w, r, sessionCookie, "", -1)
	return view{}, "/console/signin?notice=signed_out", nil
}

func (c *console) pgSecurity(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	return view{Title: "Account security", Nav: "security", D: map[string]any{"Welcome": r.URL.Query().Get("welcome") != ""}}, "", nil
}

func (c *console) pgTOTPEnrol(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v := view{Title: "Account security", Nav: "security", D: map[string]any{}}
	e, err := c.acc.EnrolTOTP(r.Context(), m.user.ID)
	if err != nil {
		return v, "", err
	}
	v.D = map[string]any{"Enrol": e, "QR": template.URL(e.QR)}
	return v, "", nil
}

func (c *console) pgTOTPConfirm(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v := view{Title: "Account security", Nav: "security", D: map[string]any{}}
	codes, err := c.acc.ConfirmTOTP(r.Context(), m.user.ID, r.PostForm.Get("code"))
	if err != nil {
		return v, "", err
	}
	v.D = map[string]any{"Codes": codes}
	v.Notice = noticeText["totp_on"]
	m.user.TOTPEnabled = true
	return v, "", nil
}

func (c *console) pgMembers(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	us, err := c.st.ListUsers(r.Context(), m.org())
	out := make([]Member, 0, len(us))
	for _, u := range us {
		out = append(out, memberOf(u))
	}
	return view{Title: "Members", Nav: "members", D: out}, "", err
}

func (c *console) pgInviteMember(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	if _, err := c.acc.Invite(r.Context(), m.org(), r.PostForm.Get("email"), r.PostForm.Get("role")); err != nil {
		v, _, lerr := c.pgMembers(w, r, m)
		if lerr != nil {
			return v, "", lerr
		}
		return v, "", err
	}
	return view{}, "/console/members?notice=invited", nil
}

func (c *console) pgRemoveMember(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	if err := c.removeMember(r, m, r.PathValue("id")); err != nil {
		v, _, _ := c.pgMembers(w, r, m)
		return v, "", err
	}
	return view{}, "/console/members?notice=removed", nil
}

// ---- overview, clients, units ----

func (c *console) pgOverview(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	ov, err := c.overview(r.Context(), m)
	var healthy, paused int
	for _, s := range ov.Webhooks {
		if s.Status == webhook.StatusPaused {
			paused++
		} else if s.Status == webhook.StatusActive {
			healthy++
		}
	}
	total := ov.Today["accept"] + ov.Today["review"] + ov.Today["reject"]
	return view{Title: "Overview", Nav: "overview", D: map[string]any{"O": ov, "Total": total, "Active": healthy, "Paused": paused,
		"Queue": c.queueSummary(r.Context(), m)}}, "", err
}

func (c *console) pgClients(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	cs, err := c.listClients(r.Context(), m)
	return view{Title: "API clients", Nav: "clients", D: map[string]any{"Clients": cs}}, "", err
}

func (c *console) pgCreateClient(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	cv, err := c.createClient(r.Context(), m, r.PostForm.Get("name"))
	v, _, lerr := c.pgClients(w, r, m)
	if lerr != nil {
		return v, "", lerr
	}
	if err != nil {
		return v, "", err
	}
	v.D.(map[string]any)["Created"] = cv
	v, _, _ = c.reloadClients(r, m, v)
	return v, "", nil
}

func (c *console) reloadClients(r *http.Request, m *member, v view) (view, string, error) {
	cs, err := c.listClients(r.Context(), m)
	v.D.(map[string]any)["Clients"] = cs
	return v, "", err
}

func (c *console) pgClientActive(active bool) pageHandler {
	return func(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
		if _, err := c.setClientActive(r.Context(), m, r.PathValue("id"), active); err != nil {
			v, _, _ := c.pgClients(w, r, m)
			return v, "", err
		}
		if active {
			return view{}, "/console/clients?notice=client_activated", nil
		}
		return view{}, "/console/clients?notice=client_deactivated", nil
	}
}

func (c *console) pgRotateClient(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	cv, err := c.rotateClient(r.Context(), m, r.PathValue("id"))
	v, _, _ := c.pgClients(w, r, m)
	if err != nil {
		return v, "", err
	}
	v.D.(map[string]any)["Created"] = cv
	v.D.(map[string]any)["Rotated"] = true
	return v, "", nil
}

func (c *console) pgUnits(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	u, err := c.units(r.Context(), m)
	return view{Title: "Units", Nav: "units", D: u}, "", err
}

func (c *console) pgThreshold(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	n, perr := strconv.ParseInt(strings.TrimSpace(r.PostForm.Get("threshold")), 10, 64)
	err := error(idv.Errorf(idv.EInvalid, "the threshold must be a whole number"))
	if perr == nil {
		err = c.setThreshold(r.Context(), m, n)
	}
	if err != nil {
		v, _, _ := c.pgUnits(w, r, m)
		return v, "", err
	}
	return view{}, "/console/units?notice=threshold", nil
}

// ---- workflows ----

// docType is a document type the workflow form offers.
type docType struct{ Config, Name string }

func (c *console) docTypes() []docType {
	var out []docType
	all, ok := c.s.defs.(interface{ Configs() []string })
	if !ok {
		return nil
	}
	for _, cfg := range all.Configs() {
		name := cfg
		if d, ok := c.s.defs.Definition(cfg); ok && d.DisplayName != "" {
			name = d.DisplayName
		}
		out = append(out, docType{cfg, name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// checkLabels are the catalog's checks as the spec's table names them.
var checkLabels = map[string]string{
	idv.CheckOCR: "OCR extraction", idv.CheckMRZ: "MRZ parsing", idv.CheckFace: "Face matching",
	idv.CheckLiveness: "Liveness detection", idv.CheckDocAuth: "Document authenticity", idv.CheckSanctions: "Sanctions screening",
	idv.CheckAge: "Age verification (18+)", idv.CheckAddress: "Address verification", idv.CheckCustomWebhook: "Custom check (webhook)",
}

// wfForm is the workflow form's data.
type wfForm struct {
	Workflow    WorkflowView
	Def         idv.Workflow
	Clients     []ClientView
	ClientID    string
	DocTypes    []docType
	Checks      []checkRow
	Metadata    string
	Locked      bool // editing: document types and required checks locked
	Token       string
	Result      *testResult
	Brands      []brandRow
	WebhookURL  string
	WebhookEvts string
}

type checkRow struct {
	Name, Label         string
	Cost                int
	On, Required        bool
	HasThreshold        bool
	Threshold, Min, Max float64
	ThresholdSet        bool
}

type brandRow struct {
	Key, Label string
	C          idv.SDKConfig
}

func (c *console) wfForm(ctx context.Context, m *member, def idv.Workflow, locked bool) (wfForm, error) {
	cs, err := c.listClients(ctx, m)
	if err != nil {
		return wfForm{}, err
	}
	f := wfForm{Def: def, Clients: cs, DocTypes: c.docTypes(), Locked: locked}
	for _, ci := range idv.Catalog {
		row := checkRow{Name: ci.Name, Label: checkLabels[ci.Name], Cost: ci.Cost, Required: ci.Required}
		for _, cs := range def.Checks {
			if cs.Name == ci.Name {
				row.On = true
				row.Required = row.Required || cs.Required
				if cs.Threshold != nil {
					row.Threshold, row.ThresholdSet = *cs.Threshold, true
				}
			}
		}
		if ci.Name == idv.CheckOCR {
			row.On = true
		}
		if ci.Threshold != nil && !ci.Threshold.CheckDefault {
			row.HasThreshold, row.Min, row.Max = true, ci.Threshold.Min, ci.Threshold.Max
			if !row.ThresholdSet {
				row.Threshold = ci.Threshold.Default
			}
		}
		f.Checks = append(f.Checks, row)
	}
	var md []string
	for k, t := range def.MetadataFields {
		md = append(md, k+": "+t)
	}
	sort.Strings(md)
	f.Metadata = strings.Join(md, "\n")
	rn, web := idv.SDKConfig{}, idv.SDKConfig{}
	if def.ReactNativeSDK != nil {
		rn = *def.ReactNativeSDK
	}
	if def.WebSDK != nil {
		web = *def.WebSDK
	}
	for _, b := range []*idv.SDKConfig{&rn, &web} {
		if b.Colors == nil {
			b.Colors = &idv.SDKColors{}
		}
	}
	f.Brands = []brandRow{{"web", "Web SDK (web_sdk_configs)", web}, {"rn", "React Native SDK (react_native_sdk_configs)", rn}}
	if def.Webhook != nil {
		f.WebhookURL, f.WebhookEvts = def.Webhook.URL, strings.Join(def.Webhook.Events, ", ")
	}
	return f, nil
}

// parseWorkflowForm builds a workflow definition from the form. Bad
// numbers are errors here; the rules are idv.Workflow.Validate's.
func parseWorkflowForm(f url.Values) (idv.Workflow, error) {
	def := idv.Workflow{Name: strings.TrimSpace(f.Get("name")), Description: strings.TrimSpace(f.Get("description")), DocumentTypes: f["document_types"]}
	for _, ci := range idv.Catalog {
		if ci.Name != idv.CheckOCR && f.Get("check_"+ci.Name) == "" {
			continue
		}
		cs := idv.CheckSpec{Name: ci.Name, Required: ci.Required || f.Get("required_"+ci.Name) != ""}
		if raw := strings.TrimSpace(f.Get("threshold_" + ci.Name)); raw != "" && ci.Threshold != nil {
			t, err := strconv.ParseFloat(raw, 64)
			if err != nil {
				return def, idv.Errorf(idv.EInvalid, "the %s threshold must be a number", checkLabels[ci.Name])
			}
			if t != ci.Threshold.Default {
				cs.Threshold = &t
			}
		}
		def.Checks = append(def.Checks, cs)
	}
	def.ManualReview = &idv.ManualReview{Enabled: f.Get("review_enabled") != "", AutoDecline: f.Get("review_auto_decline") != "",
		ReviewerEmail: strings.TrimSpace(f.Get("reviewer_email")), FourEyes: f.Get("review_four_eyes")}
	for _, line := range strings.Split(f.Get("metadata"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, t, ok := strings.Cut(line, ":")
		if !ok {
			return def, idv.Errorf(idv.EInvalid, "custom metadata fields: write one name: type per line (type string or number)")
		}
		if def.MetadataFields == nil {
			def.MetadataFields = map[string]string{}
		}
		def.MetadataFields[strings.TrimSpace(k)] = strings.TrimSpace(t)
	}
	if u := strings.TrimSpace(f.Get("webhook_url")); u != "" {
		def.Webhook = &idv.WebhookConfig{URL: u}
		for _, e := range strings.Split(f.Get("webhook_events"), ",") {
			if e = strings.TrimSpace(e); e != "" {
				def.Webhook.Events = append(def.Webhook.Events, e)
			}
		}
	}
	brand := func(p string) *idv.SDKConfig {
		b := &idv.SDKConfig{Title: f.Get(p + "_title"), Tagline: f.Get(p + "_tagline"), Logo: f.Get(p + "_logo"),
			HeroImage: f.Get(p + "_hero_image"), BackgroundImage: f.Get(p + "_background_image"),
			Colors: &idv.SDKColors{Primary: f.Get(p + "_primary"), Secondary: f.Get(p + "_secondary"), Text: f.Get(p + "_text"), Background: f.Get(p + "_background")}}
		if *b.Colors == (idv.SDKColors{}) {
			b.Colors = nil
		}
		if b.Colors == nil && b.Title == "" && b.Tagline == "" && b.Logo == "" && b.HeroImage == "" && b.BackgroundImage == "" {
			return nil
		}
		return b
	}
	def.WebSDK, def.ReactNativeSDK = brand("web"), brand("rn")
	return def, nil
}

func (c *console) pgWorkflows(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	ws, err := c.listWorkflows(r.Context(), m)
	return view{Title: "Workflows", Nav: "workflows", D: map[string]any{"Workflows": ws, "Labels": checkLabels}}, "", err
}

func (c *console) pgNewWorkflow(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	f, err := c.wfForm(r.Context(), m, idv.Workflow{ManualReview: &idv.ManualReview{Enabled: true}}, false)
	return view{Title: "New workflow", Nav: "workflow_new", D: f}, "", err
}

func (c *console) pgCreateWorkflow(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	def, perr := parseWorkflowForm(r.PostForm)
	f, err := c.wfForm(r.Context(), m, def, false)
	if err != nil {
		return view{}, "", err
	}
	f.ClientID = r.PostForm.Get("client_id")
	v := view{Title: "New workflow", Nav: "workflow_new", D: f}
	if perr != nil {
		return v, "", perr
	}
	wf, err := c.createWorkflow(r.Context(), m, WorkflowCreate{ClientID: r.PostForm.Get("client_id"), ClientSecret: r.PostForm.Get("client_secret"), Workflow: def})
	if err != nil {
		return v, "", err
	}
	return v, "/console/workflows/" + wf.ID + "?notice=wf_saved", nil
}

func (c *console) pgWorkflow(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	wf, aerr := c.ownWorkflow(r.Context(), m, r.PathValue("id"))
	if aerr != nil {
		return view{}, "", aerr
	}
	f, err := c.wfForm(r.Context(), m, wf.Definition, true)
	f.Workflow = toWorkflowView(wf)
	return view{Title: wf.Definition.Name, Nav: "workflow", D: f}, "", err
}

func (c *console) pgEditWorkflow(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	wf, aerr := c.ownWorkflow(r.Context(), m, r.PathValue("id"))
	if aerr != nil {
		return view{}, "", aerr
	}
	def, perr := parseWorkflowForm(r.PostForm)
	// Locked on edit: the document types and required checks stay.
	def.DocumentTypes = wf.Definition.DocumentTypes
	for i := range def.Checks {
		def.Checks[i].Required = false
	}
	for _, rc := range requiredChecks(wf.Definition) {
		for i := range def.Checks {
			if def.Checks[i].Name == rc {
				def.Checks[i].Required = true
			}
		}
	}
	f, err := c.wfForm(r.Context(), m, def, true)
	if err != nil {
		return view{}, "", err
	}
	f.Workflow = toWorkflowView(wf)
	v := view{Title: wf.Definition.Name, Nav: "workflow", D: f}
	if perr != nil {
		return v, "", perr
	}
	if _, err := c.editWorkflow(r.Context(), m, wf.ID, def); err != nil {
		return v, "", err
	}
	return v, "/console/workflows/" + wf.ID + "?notice=wf_saved", nil
}

func (c *console) pgDuplicateForm(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	wf, aerr := c.ownWorkflow(r.Context(), m, r.PathValue("id"))
	if aerr != nil {
		return view{}, "", aerr
	}
	return view{Title: "Duplicate workflow", Nav: "workflow_duplicate", D: map[string]any{"W": toWorkflowView(wf), "Name": wf.Definition.Name + " (copy)"}}, "", nil
}

func (c *console) pgDuplicate(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, _, err := c.pgDuplicateForm(w, r, m)
	if err != nil {
		return v, "", err
	}
	v.D.(map[string]any)["Name"] = r.PostForm.Get("name")
	nw, err := c.duplicateWorkflow(r.Context(), m, r.PathValue("id"), r.PostForm.Get("client_secret"), r.PostForm.Get("name"))
	if err != nil {
		return v, "", err
	}
	return v, "/console/workflows/" + nw.ID + "?notice=wf_saved", nil
}

func (c *console) pgArchiveConfirm(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	wf, aerr := c.ownWorkflow(r.Context(), m, r.PathValue("id"))
	if aerr != nil {
		return view{}, "", aerr
	}
	return view{Title: "Archive workflow", Nav: "workflow_archive", D: toWorkflowView(wf)}, "", nil
}

func (c *console) pgWorkflowStatus(status string) pageHandler {
	return func(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
		if status == idv.WorkflowArchived && r.PostForm.Get("confirm") != "yes" {
			v, _, err := c.pgArchiveConfirm(w, r, m)
			if err != nil {
				return v, "", err
			}
			return v, "", idv.Errorf(idv.EInvalid, "tick the box to confirm the archive")
		}
		wf, err := c.setWorkflowStatus(r.Context(), m, r.PathValue("id"), status)
		if err != nil {
			return view{}, "", err
		}
		n := "wf_active"
		if status == idv.WorkflowArchived {
			n = "wf_archived"
		}
		return view{}, "/console/workflows/" + wf.ID + "?notice=" + n, nil
	}
}

func (c *console) pgSDKToken(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, _, err := c.pgWorkflow(w, r, m)
	if err != nil {
		return v, "", err
	}
	tok, err := c.sdkToken(r.Context(), m, r.PathValue("id"), r.PostForm.Get("config"))
	if err != nil {
		return v, "", err
	}
	f := v.D.(wfForm)
	f.Token = tok
	v.D = f
	return v, "", nil
}

func (c *console) pgTestForm(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	wf, aerr := c.ownWorkflow(r.Context(), m, r.PathValue("id"))
	if aerr != nil {
		return view{}, "", aerr
	}
	return view{Title: "Test " + wf.Definition.Name, Nav: "workflow_test", D: map[string]any{"W": toWorkflowView(wf), "DocTypes": c.docTypes()}}, "", nil
}

func (c *console) pgTest(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, _, err := c.pgTestForm(w, r, m)
	if err != nil {
		return v, "", err
	}
	tf, aerr := c.readTestForm(w, r)
	if aerr != nil {
		return v, "", aerr
	}
	start := time.Now()
	body, aerr := c.testWorkflow(r.Context(), m, r.PathValue("id"), tf)
	if aerr != nil {
		return v, "", aerr
	}
	res, err := readTestResult(body, time.Since(start))
	if err != nil {
		return v, "", err
	}
	v.D.(map[string]any)["Result"] = res
	return v, "", nil
}

// ---- webhooks ----

func (c *console) pgWebhooks(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	ws, err := c.wh.List(r.Context(), m.org())
	type row struct {
		webhook.Summary
		Last *time.Time
	}
	rows := make([]row, 0, len(ws))
	for _, s := range ws {
		rows = append(rows, row{Summary: s, Last: s.LastTriggeredAt})
	}
	return view{Title: "Webhooks", Nav: "webhooks", D: rows}, "", err
}

// whForm is the webhook form's data.
type whForm struct {
	W       webhook.Webhook
	Events  []string
	Headers string
	New     bool
}

func (c *console) pgNewWebhook(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	return view{Title: "New webhook", Nav: "webhook_new", D: whForm{W: webhook.Webhook{Type: webhook.TypeEventNotification, Method: "POST"}, Events: webhook.Events, New: true}}, "", nil
}

// parseWebhookForm turns the form into the webhook API's input.
func parseWebhookForm(f url.Values, create bool) (webhook.Input, error) {
	str := func(k string) *string { v := strings.TrimSpace(f.Get(k)); return &v }
	in := webhook.Input{Name: str("name"), Description: str("description"), URL: str("url"), Method: str("method"),
		CACertificate: str("ca_certificate"), NotifyEmail: str("notify_email")}
	if create {
		in.Type = str("type")
	}
	if s := f.Get("secret"); s != "" || f.Get("clear_secret") != "" {
		in.Secret = &s
	}
	events := f["events"]
	if events == nil {
		events = []string{}
	}
	in.Events = &events
	headers := []webhook.Header{}
	for _, line := range strings.Split(f.Get("headers"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return in, idv.Errorf(idv.EInvalid, "custom headers: write one Name: value per line")
		}
		enabled := true
		if strings.HasPrefix(name, "#") {
			enabled, name = false, strings.TrimPrefix(name, "#")
		}
		headers = append(headers, webhook.Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value), Enabled: enabled})
	}
	in.Headers = &headers
	if (in.Type != nil && *in.Type == webhook.TypeVerificationCheck) || f.Get("min_threshold") != "" {
		t, err := strconv.ParseFloat(strings.TrimSpace(f.Get("min_threshold")), 64)
		if err != nil {
			return in, idv.Errorf(idv.EInvalid, "the minimum threshold must be a number from 0.0 to 1.0")
		}
		rs, rc := f.Get("require_success") != "", f.Get("require_score") != ""
		in.Criteria = &webhook.CriteriaInput{RequireSuccess: &rs, RequireScore: &rc, MinThreshold: &t}
		in.Events = nil
	}
	return in, nil
}

func (c *console) pgCreateWebhook(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	in, perr := parseWebhookForm(r.PostForm, true)
	v := view{Title: "New webhook", Nav: "webhook_new", D: whForm{W: formWebhook(r.PostForm), Events: webhook.Events, Headers: r.PostForm.Get("headers"), New: true}}
	if perr != nil {
		return v, "", perr
	}
	wh, err := c.wh.Create(r.Context(), m.org(), in)
	if err != nil {
		return v, "", err
	}
	_ = m.admin.audit(r.Context(), m.org(), "webhook.created", "webhook", wh.ID, "")
	return v, "/console/webhooks/" + wh.ID + "?notice=wh_saved", nil
}

// formWebhook keeps what was typed when the form comes back with an error.
func formWebhook(f url.Values) webhook.Webhook {
	return webhook.Webhook{Type: f.Get("type"), Name: f.Get("name"), Description: f.Get("description"), URL: f.Get("url"),
		Method: f.Get("method"), CACertificate: f.Get("ca_certificate"), Events: f["events"], NotifyEmail: f.Get("notify_email")}
}

// whDetail is the webhook page's data.
type whDetail struct {
	whForm
	Stats  webhook.Stats
	Logs   []webhook.LogEntry
	Filter map[string]string
	Query  string
	Test   *webhook.TestResult
	Cert   *webhook.CertificateReport
}

func (c *console) webhookDetail(r *http.Request, m *member) (view, error) {
	wh, err := c.wh.Get(r.Context(), m.org(), r.PathValue("id"))
	if err != nil {
		return view{}, err
	}
	d := whDetail{whForm: whForm{W: wh, Events: webhook.Events}}
	var hl []string
	for _, h := range wh.Headers {
		p := ""
		if !h.Enabled {
			p = "#"
		}
		hl = append(hl, p+h.Name+": "+h.Value)
	}
	d.Headers = strings.Join(hl, "\n")
	if d.Stats, err = c.wh.Stats(r.Context(), m.org(), wh.ID); err != nil {
		return view{}, err
	}
	q := r.URL.Query()
	d.Filter = map[string]string{"from": q.Get("from"), "to": q.Get("to"), "status": q.Get("status"), "event": q.Get("event")}
	v := view{Title: wh.Name, Nav: "webhook", D: &d}
	f, ferr := webhook.ParseLogFilter(q.Get("from"), q.Get("to"), q.Get("status"), q.Get("event"))
	if ferr != nil {
		return v, ferr
	}
	f.Limit = 100
	if d.Logs, err = c.wh.Logs(r.Context(), m.org(), wh.ID, f); err != nil {
		return v, err
	}
	qs := url.Values{}
	for k, val := range d.Filter {
		if val != "" {
			qs.Set(k, val)
		}
	}
	d.Query = qs.Encode()
	return v, nil
}

func (c *console) pgWebhook(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, err := c.webhookDetail(r, m)
	return v, "", err
}

func (c *console) pgEditWebhook(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, err := c.webhookDetail(r, m)
	if err != nil {
		return v, "", err
	}
	in, err := parseWebhookForm(r.PostForm, false)
	if err != nil {
		return v, "", err
	}
	if _, err := c.wh.Update(r.Context(), m.org(), r.PathValue("id"), in); err != nil {
		return v, "", err
	}
	_ = m.admin.audit(r.Context(), m.org(), "webhook.updated", "webhook", r.PathValue("id"), "")
	return v, "/console/webhooks/" + r.PathValue("id") + "?notice=wh_saved", nil
}

func (c *console) pgWebhookAction(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	id := r.PathValue("id")
	action := r.PostForm.Get("action")
	var err error
	switch action {
	case "activate":
		_, err = c.wh.Activate(r.Context(), m.org(), id)
	case "pause":
		_, err = c.wh.Pause(r.Context(), m.org(), id)
	case "resume":
		_, err = c.wh.Resume(r.Context(), m.org(), id)
	case "test", "validate":
		v, derr := c.webhookDetail(r, m)
		if derr != nil {
			return v, "", derr
		}
		d := v.D.(*whDetail)
		if action == "test" {
			res, err := c.wh.Test(r.Context(), m.org(), id, r.PostForm.Get("event"))
			if err != nil {
				return v, "", err
			}
			d.Test = &res
		} else {
			rep, err := c.wh.ValidateCertificate(r.Context(), m.org(), id)
			if err != nil {
				return v, "", err
			}
			d.Cert = &rep
		}
		_ = m.admin.audit(r.Context(), m.org(), "webhook."+action, "webhook", id, "")
		// The test left a log line: show it.
		if d.Stats, err = c.wh.Stats(r.Context(), m.org(), id); err == nil {
			d.Logs, _ = c.wh.Logs(r.Context(), m.org(), id, webhook.LogFilter{Limit: 100})
		}
		return v, "", nil
	default:
		return view{}, "", idv.Errorf(idv.EInvalid, "unknown action")
	}
	if err != nil {
		v, derr := c.webhookDetail(r, m)
		if derr != nil {
			return v, "", derr
		}
		return v, "", err
	}
	_ = m.admin.audit(r.Context(), m.org(), "webhook."+action, "webhook", id, "")
	return view{}, "/console/webhooks/" + id + "?notice=wh_" + action, nil
}

func (c *console) pgDeleteWebhookConfirm(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	wh, err := c.wh.Get(r.Context(), m.org(), r.PathValue("id"))
	return view{Title: "Delete webhook", Nav: "webhook_delete", D: wh}, "", err
}

func (c *console) pgDeleteWebhook(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	if r.PostForm.Get("confirm") != "yes" {
		v, _, err := c.pgDeleteWebhookConfirm(w, r, m)
		if err != nil {
			return v, "", err
		}
		return v, "", idv.Errorf(idv.EInvalid, "tick the box to confirm the deletion")
	}
	if err := c.wh.Delete(r.Context(), m.org(), r.PathValue("id")); err != nil {
		return view{}, "", err
	}
	_ = m.admin.audit(r.Context(), m.org(), "webhook.deleted", "webhook", r.PathValue("id"), "")
	return view{}, "/console/webhooks?notice=wh_deleted", nil
}

func (c *console) pgLogsCSV(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	q := r.URL.Query()
	f, err := webhook.ParseLogFilter(q.Get("from"), q.Get("to"), q.Get("status"), q.Get("event"))
	if err != nil {
		return view{}, "", err
	}
	entries, err := c.wh.Logs(r.Context(), m.org(), r.PathValue("id"), f)
	if err != nil {
		return view{}, "", err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="webhook-logs.csv"`)
	if err := webhook.WriteCSV(w, entries); err != nil {
		c.s.log.WarnContext(r.Context(), "console csv", "error", err)
	}
	return view{}, "", errWritten
}

// errWritten tells finish the handler wrote its own answer.
var errWritten = errors.New("written")

// ---- test results ----

// testResult is a verification result laid out for the test page.
type testResult struct {
	ID         string
	Decision   string
	Reasons    []string
	Units      int64
	DurationMS int64
	WallMS     int64
	DocType    string
	Fields     []fieldRow
	Checks     []checkResultRow
	Images     []imageRow
	Raw        string
}

type fieldRow struct {
	Name, Value string
	Unread      bool
	Conflict    bool
}

type checkResultRow struct {
	Name, Status string
	Confidence   *float64
	Threshold    *float64
	Evidence     []string
	DurationMS   int64
}

type imageRow struct{ Name, URL string }

// readTestResult lays out a result by the spec's field rules: only the
// fields of field_schema are shown (rule 1), an empty one is marked as
// present but unread (rule 2), a printed value that disagrees with the
// MRZ is marked (rule 3).
func readTestResult(body []byte, wall time.Duration) (*testResult, error) {
	var res struct {
		ID          string            `json:"idv_unique_id"`
		Decision    string            `json:"verification_decision"`
		Reasons     []string          `json:"decision_reasons"`
		DocType     string            `json:"document_type"`
		FieldSchema []string          `json:"field_schema"`
		Combined    map[string]string `json:"combined"`
		Images      map[string]string `json:"images"`
		DocAuth     struct {
			OCRQuality struct {
				Conflicts []json.RawMessage `json:"conflicts"`
			} `json:"ocr_quality"`
		} `json:"document_authenticity"`
		Checks []struct {
			Name       string          `json:"name"`
			Status     string          `json:"status"`
			Confidence *float64        `json:"confidence"`
			Threshold  *float64        `json:"threshold"`
			Details    json.RawMessage `json:"details"`
			Pieces     []struct {
				Name  string   `json:"name"`
				Value *float64 `json:"value"`
				Note  string   `json:"note"`
			} `json:"pieces"`
			Reasons []string `json:"reasons"`
		} `json:"check_results"`
		Perf struct {
			Total int64 `json:"total_duration_ms"`
			Steps []struct {
				Name       string `json:"name"`
				DurationMS int64  `json:"duration_ms"`
			} `json:"step_timings"`
		} `json:"performance_metrics"`
		Units int64 `json:"units_consumed"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return nil, err
	}
	out := &testResult{ID: res.ID, Decision: res.Decision, Reasons: res.Reasons, DocType: res.DocType, DurationMS: res.Perf.Total, WallMS: wall.Milliseconds(), Units: res.Units}
	conflicts := map[string]bool{}
	for _, raw := range res.DocAuth.OCRQuality.Conflicts {
		var name string
		if json.Unmarshal(raw, &name) == nil {
			conflicts[name] = true
			continue
		}
		var obj struct {
			Field string `json:"field"`
		}
		if json.Unmarshal(raw, &obj) == nil {
			conflicts[obj.Field] = true
		}
	}
	for _, f := range res.FieldSchema {
		v := res.Combined[f]
		out.Fields = append(out.Fields, fieldRow{Name: f, Value: v, Unread: v == "", Conflict: conflicts[f]})
	}
	steps := map[string]int64{}
	for _, s := range res.Perf.Steps {
		steps[s.Name] = s.DurationMS
	}
	for _, ch := range res.Checks {
		row := checkResultRow{Name: ch.Name, Status: ch.Status, Confidence: ch.Confidence, Threshold: ch.Threshold, DurationMS: steps[ch.Name]}
		for _, p := range ch.Pieces {
			s := p.Name
			if p.Value != nil {
				s += " = " + strconv.FormatFloat(*p.Value, 'f', 3, 64)
			}
			if p.Note != "" {
				s += " (" + p.Note + ")"
			}
			row.Evidence = append(row.Evidence, s)
		}
		row.Evidence = append(row.Evidence, ch.Reasons...)
		out.Checks = append(out.Checks, row)
	}
	for _, k := range []string{"front_id", "back_id", "selfie", "front_rectified", "back_rectified", "id_photo", "id_face", "selfie_face"} {
		if u := res.Images[k]; u != "" {
			out.Images = append(out.Images, imageRow{k, u})
		}
	}
	var pretty bytes.Buffer
	_ = json.Indent(&pretty, body, "", "  ")
	out.Raw = pretty.String()
	return out, nil
}
