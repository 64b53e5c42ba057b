package server_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

// orgObjects are one organisation's objects, built through the console
// API: what another organisation's member must never see or change.
type orgObjects struct {
	m                 *member
	client, secret    string
	workflow, webhook string
	invitee           string
}

func (ce *consoleEnv) populate(m *member, name string) orgObjects {
	t := ce.t
	t.Helper()
	o := orgObjects{m: m}
	r := m.call("POST", "/console/api/clients", map[string]string{"name": name + " client"})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	o.client, o.secret = r.str("client_id"), r.str("client_secret")
	r = m.call("POST", "/console/api/workflows", server.WorkflowCreate{ClientID: o.client, ClientSecret: o.secret,
		Workflow: idv.Workflow{Name: name + " flow", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}}})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	o.workflow = r.str("id")
	r = m.call("POST", "/console/api/webhooks", map[string]any{"type": "event_notification", "name": name + " hook",
		"url": "https://93.184.215.14/hook", "ca_certificate": testCAPEM(t), "events": []string{"workflow.updated"}})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	o.webhook = r.str("id")
	r = m.call("POST", "/console/api/members", map[string]string{"email": strings.ToLower(strings.ReplaceAll(name, " ", "")) + "-dev@example.com", "role": "developer"})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	o.invitee = r.str("id")
	return o
}

// idFor picks, for a route with {id}, the object of o it names.
func (o orgObjects) idFor(path string) string {
	switch {
	case strings.HasPrefix(path, "/console/api/clients/"), strings.HasPrefix(path, "/console/clients/"):
		return o.client
	case strings.HasPrefix(path, "/console/api/workflows/"), strings.HasPrefix(path, "/console/workflows/"):
		return o.workflow
	case strings.HasPrefix(path, "/console/api/webhooks/"), strings.HasPrefix(path, "/console/webhooks/"):
		return o.webhook
	case strings.HasPrefix(path, "/console/api/members/"), strings.HasPrefix(path, "/console/members/"):
		return o.invitee
	case strings.HasPrefix(path, "/console/reviews/"), strings.HasPrefix(path, "/console/verifications/"):
		// Some id, as no verification is built here: another
		// organisation's real cases are tried by
		// TestReviewConsoleCrossOrganisation.
		return o.workflow
	}
	return ""
}

// state is what the sweep must leave untouched, read through B's own
// session.
func (o orgObjects) state(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{"/console/api/clients", "/console/api/workflows", "/console/api/webhooks", "/console/api/members", "/console/api/units", "/console/api/overview"} {
		r := o.m.call("GET", p, nil)
		require.Equal(t, 200, r.status, p)
		b.Write(r.body)
	}
	return b.String()
}

// TestConsoleCrossOrganisationSweep tries every console API route and
// every page with a member of organisation A against the objects of B:
// none answers with B's data, none changes them.
func TestConsoleCrossOrganisationSweep(t *testing.T) {
	ce := newConsoleEnv(t)
	a := ce.signup("alice@a.example", "Org A")
	b := ce.signup("bob@b.example", "Org B")
	ce.populate(a, "A")
	ob := ce.populate(b, "B")
	before := ob.state(t)
	secrets := []string{ob.client, ob.workflow, ob.webhook, ob.invitee, "B flow", "B hook", "B client"}

	tried := 0
	for _, rt := range ce.srv.Routes() {
		if !strings.HasPrefix(rt.Path, "/console/api/") || rt.Path == "/console/api/session" {
			continue // signing oneself out is not another organisation's object
		}
		path := strings.ReplaceAll(rt.Path, "{id}", ob.idFor(rt.Path))
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			var r response
			if strings.HasSuffix(rt.Path, "/test") {
				front, back := captures(t)
				r = a.testUpload(ob.workflow, front, back, nil)
			} else {
				r = a.call(rt.Method, path, map[string]any{})
			}
			tried++
			if strings.Contains(rt.Path, "{id}") {
				assert.Contains(t, []int{http.StatusNotFound, http.StatusBadRequest}, r.status, string(r.body))
			}
			for _, s := range secrets {
				assert.NotContains(t, string(r.body), s)
			}
		})
	}
	assert.GreaterOrEqual(t, tried, 38, "every console API route but sign-in and sign-out")

	form := func(method, path string) response {
		req, _ := http.NewRequest(method, ce.ts.URL+path, strings.NewReader(url.Values{"csrf_token": {a.csrf}, "confirm": {"yes"},
			"name": {"x"}, "action": {"pause"}, "client_secret": {ob.secret}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return a.do(req)
	}
	for _, pg := range ce.srv.ConsolePages() {
		if !strings.Contains(pg.Path, "{id}") {
			continue
		}
		path := strings.ReplaceAll(pg.Path, "{id}", ob.idFor(pg.Path))
		t.Run("page "+pg.Method+" "+pg.Path, func(t *testing.T) {
			var r response
			if strings.HasSuffix(pg.Path, "/test") && pg.Method == "POST" {
				var body bytes.Buffer
				mw := multipart.NewWriter(&body)
				fw, _ := mw.CreateFormFile("front", "f.jpg")
				front, _ := captures(t)
				fw.Write(front)
				mw.Close()
				req, _ := http.NewRequest("POST", ce.ts.URL+path+"?csrf_token="+url.QueryEscape(a.csrf), &body)
				req.Header.Set("Content-Type", mw.FormDataContentType())
				r = a.do(req)
			} else {
				r = form(pg.Method, path)
			}
			assert.Equal(t, http.StatusNotFound, r.status, string(r.body))
			for _, s := range secrets[4:] {
				assert.NotContains(t, string(r.body), s)
			}
		})
	}
	assert.Equal(t, before, ob.state(t), "B's objects changed")
}

// TestConsoleRoles: a reviewer reaches the overview and their own
// account only; a developer everything but members and unit settings.
func TestConsoleRoles(t *testing.T) {
	ce := newConsoleEnv(t)
	admin := ce.signup("admin@a.example", "Org A")
	objs := ce.populate(admin, "A")
	join := func(email, role string) *member {
		r := admin.call("POST", "/console/api/members", map[string]string{"email": email, "role": role})
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		m := ce.browser()
		r = m.call("POST", "/console/api/invitations/accept", map[string]string{"email": email, "code": ce.lastCode(email), "name": role, "password": "correct horse battery"})
		require.Equal(t, 200, r.status, string(r.body))
		m.csrf = r.obj["csrf_token"].(string)
		return m
	}
	rev := join("rev@a.example", "reviewer")
	dev := join("dev@a.example", "developer")
	viewOnly := map[string]bool{"/console/api/me": true, "/console/api/overview": true, "/console/api/session": true,
		"/console/api/totp/enrol": true, "/console/api/totp/confirm": true}
	anon := map[string]bool{"/console/api/signup/code": true, "/console/api/signup": true, "/console/api/invitations/accept": true}
	adminOnly := map[string]bool{"/console/api/members": true, "/console/api/members/{id}": true, "/console/api/units/threshold": true,
		"/console/api/organisation/verify-admin": true}
	for _, rt := range ce.srv.Routes() {
		if !strings.HasPrefix(rt.Path, "/console/api/") || anon[rt.Path] || rt.Path == "/console/api/session" {
			continue
		}
		path := strings.ReplaceAll(rt.Path, "{id}", objs.idFor(rt.Path))
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			r := rev.call(rt.Method, path, map[string]any{})
			if viewOnly[rt.Path] {
				assert.NotEqual(t, http.StatusForbidden, r.status, string(r.body))
			} else {
				assert.Equal(t, http.StatusForbidden, r.status, "reviewer: %s", r.body)
			}
			if adminOnly[rt.Path] {
				r = dev.call(rt.Method, path, map[string]any{})
				assert.Equal(t, http.StatusForbidden, r.status, "developer: %s", r.body)
			}
		})
	}
	// Pages: the reviewer is refused the builder's pages.
	for _, p := range []string{"/console/clients", "/console/workflows", "/console/webhooks", "/console/units", "/console/members", "/console/verify-admin"} {
		req, _ := http.NewRequest("GET", ce.ts.URL+p, nil)
		assert.Equal(t, http.StatusForbidden, rev.do(req).status, p)
	}
	// The developer is refused the admin's pages.
	for _, p := range []string{"/console/members", "/console/verify-admin"} {
		req, _ := http.NewRequest("GET", ce.ts.URL+p, nil)
		assert.Equal(t, http.StatusForbidden, dev.do(req).status, p)
	}
	req, _ := http.NewRequest("GET", ce.ts.URL+"/console/overview", nil)
	assert.Equal(t, http.StatusOK, rev.do(req).status)
}

// TestConsoleCSRF: every state-changing API route and page refuses a
// request without the session's token (or with another session's), and
// nothing changes.
func TestConsoleCSRF(t *testing.T) {
	ce := newConsoleEnv(t)
	a := ce.signup("alice@a.example", "Org A")
	b := ce.signup("bob@b.example", "Org B")
	objs := ce.populate(a, "A")
	before := objs.state(t)
	for _, token := range []string{"", b.csrf, "forged"} {
		for _, rt := range ce.srv.Routes() {
			if !strings.HasPrefix(rt.Path, "/console/api/") || rt.Method == "GET" {
				continue
			}
			switch rt.Path {
			case "/console/api/signup/code", "/console/api/signup", "/console/api/invitations/accept", "/console/api/session":
				if rt.Method == "POST" {
					continue // no session yet: no token to bind
				}
			}
			path := strings.ReplaceAll(rt.Path, "{id}", objs.idFor(rt.Path))
			saved := a.csrf
			a.csrf = token
			r := a.call(rt.Method, path, map[string]any{"name": "changed"})
			a.csrf = saved
			assert.Equal(t, http.StatusForbidden, r.status, "%s %s with token %q: %s", rt.Method, rt.Path, token, r.body)
		}
		for _, pg := range ce.srv.ConsolePages() {
			if pg.Method != "POST" {
				continue
			}
			path := strings.ReplaceAll(pg.Path, "{id}", objs.idFor(pg.Path))
			req, _ := http.NewRequest("POST", ce.ts.URL+path, strings.NewReader(url.Values{"csrf_token": {token}, "name": {"changed"}, "confirm": {"yes"}, "action": {"pause"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r := a.do(req)
			assert.Equal(t, http.StatusForbidden, r.status, "page %s with token %q", pg.Path, token)
		}
	}
	// A cross-site form post carries the right cookie but another Origin.
	req, _ := http.NewRequest("POST", ce.ts.URL+"/console/clients", strings.NewReader(url.Values{"csrf_token": {a.csrf}, "name": {"evil"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	assert.Equal(t, http.StatusForbidden, a.do(req).status)
	assert.Equal(t, before, objs.state(t))
	// The session still works: the refusals changed nothing.
	assert.Equal(t, 200, a.call("GET", "/console/api/me", nil).status)
}

// testCAPEM is a self-signed certificate in PEM, as a webhook's CA.
func testCAPEM(t testing.TB) string {
	t.Helper()
	return string(selfSignedPEM(t))
}

func (ce *consoleEnv) orgOf(t *testing.T, email string) int64 {
	u, err := ce.db.UserByEmail(context.Background(), email)
	require.NoError(t, err)
	return u.OrganisationID
}

var _ = json.Marshal

func selfSignedPEM(t testing.TB) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
