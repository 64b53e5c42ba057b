package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/webhook"
)

// consoleEnv is a server with the console and a mailer whose messages the
// test reads, like a person reading their inbox.
type consoleEnv struct {
	*env
	mail *webhook.DevMailer
}

func newConsoleEnv(t testing.TB) *consoleEnv {
	t.Helper()
	mail := &webhook.DevMailer{}
	e := newEnvWith(t, func(c *server.Config) { c.Mailer = mail })
	return &consoleEnv{env: e, mail: mail}
}

var codeRE = regexp.MustCompile(`\b(\d{6})\b`)

// lastCode is the 6-digit code of the latest mail to addr.
func (ce *consoleEnv) lastCode(addr string) string {
	ce.t.Helper()
	sent := ce.mail.Sent()
	for i := len(sent) - 1; i >= 0; i-- {
		if len(sent[i].To) == 1 && sent[i].To[0] == addr {
			if m := codeRE.FindStringSubmatch(sent[i].Body); m != nil {
				return m[1]
			}
		}
	}
	ce.t.Fatalf("no code mailed to %s", addr)
	return ""
}

// member is one browser: a cookie jar and the CSRF token of its session.
type member struct {
	ce   *consoleEnv
	c    *http.Client
	csrf string
	org  int64
}

func (ce *consoleEnv) browser() *member {
	jar, _ := cookiejar.New(nil)
	c := *ce.http
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &member{ce: ce, c: &c}
}

// call sends a JSON request to the admin API with the session's token.
func (m *member) call(method, path string, body any) response {
	m.ce.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, m.ce.ts.URL+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if m.csrf != "" {
		req.Header.Set("X-CSRF-Token", m.csrf)
	}
	return m.do(req)
}

func (m *member) do(req *http.Request) response {
	m.ce.t.Helper()
	resp, err := m.c.Do(req)
	require.NoError(m.ce.t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := response{status: resp.StatusCode, body: b, header: resp.Header}
	_ = json.Unmarshal(b, &out.obj)
	return out
}

// signup creates an organisation through the API and signs its admin in.
func (ce *consoleEnv) signup(email, org string) *member {
	ce.t.Helper()
	m := ce.browser()
	r := m.call("POST", "/console/api/signup/code", map[string]string{"email": email})
	require.Equal(ce.t, http.StatusAccepted, r.status, string(r.body))
	r = m.call("POST", "/console/api/signup", server.SignupInput{Email: email, Code: ce.lastCode(email), Name: "Ada Admin",
		Password: "correct horse battery", Organisation: org, Industry: "Lending", MonthlyVolume: "under 1,000"})
	require.Equal(ce.t, http.StatusOK, r.status, string(r.body))
	var body struct {
		CSRF string `json:"csrf_token"`
	}
	require.NoError(ce.t, json.Unmarshal(r.body, &body))
	m.csrf = body.CSRF
	me := m.call("GET", "/console/api/overview", nil)
	require.Equal(ce.t, 200, me.status, string(me.body))
	return m
}

func TestConsoleSignupAndBuild(t *testing.T) {
	ce := newConsoleEnv(t)
	m := ce.signup("ada@example.com", "Acme <b>Lending</b>")

	// A client: the secret is in the create answer only.
	r := m.call("POST", "/console/api/clients", map[string]string{"name": "backend"})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	clientID, secret := r.str("client_id"), r.str("client_secret")
	require.NotEmpty(t, secret)
	list := m.call("GET", "/console/api/clients", nil)
	assert.NotContains(t, string(list.body), secret)

	def := idv.Workflow{Name: "Onboarding", DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckFace}}}
	for _, tc := range []struct {
		name, client, secret, want string
	}{
		{"wrong secret", clientID, "nope", "Invalid client secret"},
		{"unknown client", "no-such-client", secret, "Client not found"},
		{"another org's client", ce.client.ID, ce.secret, "Client not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := m.call("POST", "/console/api/workflows", server.WorkflowCreate{ClientID: tc.client, ClientSecret: tc.secret, Workflow: def})
			assert.Equal(t, http.StatusBadRequest, r.status)
			assert.Equal(t, tc.want, r.str("v_field48"))
		})
	}
	r = m.call("POST", "/console/api/clients/"+clientID+"/deactivate", nil)
	require.Equal(t, 200, r.status, string(r.body))
	r = m.call("POST", "/console/api/workflows", server.WorkflowCreate{ClientID: clientID, ClientSecret: secret, Workflow: def})
	assert.Equal(t, "Client inactive", r.str("v_field48"))
	m.call("POST", "/console/api/clients/"+clientID+"/activate", nil)
	r = m.call("POST", "/console/api/workflows", server.WorkflowCreate{ClientID: clientID, ClientSecret: secret, Workflow: def})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	wfID := r.str("id")
	assert.EqualValues(t, 5, mustNum(t, r, "cost_units"))

	// Units: the new organisation has none, so a test is refused (402)
	// until the operator tops up; then it is billed.
	front, back := captures(t)
	tr := m.testUpload(wfID, front, back, front)
	assert.Equal(t, http.StatusPaymentRequired, tr.status, string(tr.body))
	_, err := ce.admin.AddUnits(context.Background(), m.orgID(), 20)
	require.NoError(t, err)
	tr = m.testUpload(wfID, front, back, front)
	require.Equal(t, 200, tr.status, string(tr.body))
	assert.EqualValues(t, 5, mustNum(t, tr, "units_consumed"))
	u := m.call("GET", "/console/api/units", nil)
	assert.EqualValues(t, 15, mustNum(t, u, "balance"))

	// Edit: document types are locked.
	def.DocumentTypes = []string{"ke_passport"}
	r = m.call("PATCH", "/console/api/workflows/"+wfID, def)
	assert.Equal(t, http.StatusBadRequest, r.status)
	r = m.call("POST", "/console/api/workflows/"+wfID+"/archive", nil)
	require.Equal(t, 200, r.status)
	assert.Equal(t, "archived", r.str("status"))

	// Rotation: the old secret stops working.
	r = m.call("POST", "/console/api/clients/"+clientID+"/rotate-secret", nil)
	require.Equal(t, 200, r.status)
	assert.NotEqual(t, secret, r.str("client_secret"))
	tok := ce.form("/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}})
	assert.Equal(t, http.StatusUnauthorized, tok.status)

	// Sign-out revokes the session: the same cookie is refused after.
	r = m.call("DELETE", "/console/api/session", nil)
	require.Equal(t, http.StatusNoContent, r.status)
	r = m.call("GET", "/console/api/overview", nil)
	assert.Equal(t, http.StatusUnauthorized, r.status)
}

func mustNum(t *testing.T, r response, key string) float64 {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), string(r.body))
	f, ok := m[key].(float64)
	require.True(t, ok, "%s in %s", key, r.body)
	return f
}

func (m *member) orgID() int64 {
	m.ce.t.Helper()
	if m.org == 0 {
		r := m.call("GET", "/console/api/me", nil)
		var body struct {
			Member server.Member `json:"member"`
		}
		require.NoError(m.ce.t, json.Unmarshal(r.body, &body))
		ms, err := m.ce.db.UserByEmail(context.Background(), body.Member.Email)
		require.NoError(m.ce.t, err)
		m.org = ms.OrganisationID
	}
	return m.org
}

func (m *member) testUpload(wfID string, front, back, selfie []byte) response {
	m.ce.t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range []struct {
		name string
		data []byte
	}{{"front", front}, {"back", back}, {"selfie", selfie}} {
		if p.data == nil {
			continue
		}
		w, _ := mw.CreateFormFile(p.name, p.name+".jpg")
		w.Write(p.data)
	}
	mw.WriteField("config", "kenya_national_id")
	mw.Close()
	req, _ := http.NewRequest("POST", m.ce.ts.URL+"/console/api/workflows/"+wfID+"/test", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-CSRF-Token", m.csrf)
	return m.do(req)
}

func TestConsoleTOTP(t *testing.T) {
	ce := newConsoleEnv(t)
	m := ce.signup("ada@example.com", "Acme")
	r := m.call("POST", "/console/api/totp/enrol", nil)
	require.Equal(t, 200, r.status, string(r.body))
	secret := r.str("secret")
	assert.True(t, strings.HasPrefix(r.str("qr_png"), "data:image/png;base64,"))
	r = m.call("POST", "/console/api/totp/confirm", map[string]string{"code": "000000"})
	assert.Equal(t, http.StatusBadRequest, r.status)
	code, err := totp.GenerateCode(secret, time.Now())
	require.NoError(t, err)
	r = m.call("POST", "/console/api/totp/confirm", map[string]string{"code": code})
	require.Equal(t, 200, r.status, string(r.body))
	var rec struct {
		Codes []string `json:"recovery_codes"`
	}
	require.NoError(t, json.Unmarshal(r.body, &rec))
	require.Len(t, rec.Codes, 8)

	fresh := ce.browser()
	signin := func(code string) response {
		return fresh.call("POST", "/console/api/session", map[string]string{"email": "ada@example.com", "password": "correct horse battery", "totp_code": code})
	}
	assert.Equal(t, http.StatusUnauthorized, signin("").status)
	assert.Equal(t, http.StatusBadRequest, signin("123456").status, "wrong TOTP")
	// The code that confirmed the enrolment is spent: reusing it fails.
	assert.Equal(t, http.StatusBadRequest, signin(code).status, "reused TOTP")
	// A recovery code works once.
	r = signin(rec.Codes[0])
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, http.StatusBadRequest, signin(rec.Codes[0]).status, "reused recovery code")
}

func TestConsoleSignupCodes(t *testing.T) {
	ce := newConsoleEnv(t)
	b := ce.browser()
	in := server.SignupInput{Email: "bo@example.com", Name: "Bo", Password: "correct horse battery", Organisation: "Bo Ltd"}
	require.Equal(t, 202, b.call("POST", "/console/api/signup/code", map[string]string{"email": in.Email}).status)
	good := ce.lastCode(in.Email)
	in.Code = "000000"
	if good == in.Code {
		in.Code = "111111"
	}
	r := b.call("POST", "/console/api/signup", in)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "wrong or expired code", r.str("v_field48"))
	n, err := ce.db.CountOrganisations(context.Background())
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "nothing created by a wrong code")

	// Expired: 15 minutes later the right code is dead.
	ce.clock.Add(int64(16 * time.Minute))
	in.Code = good
	r = b.call("POST", "/console/api/signup", in)
	assert.Equal(t, "wrong or expired code", r.str("v_field48"))
	ce.clock.Store(0)

	// A fresh code works once; reusing it fails (the email is then taken).
	require.Equal(t, 202, b.call("POST", "/console/api/signup/code", map[string]string{"email": in.Email}).status)
	in.Code = ce.lastCode(in.Email)
	require.Equal(t, 200, b.call("POST", "/console/api/signup", in).status)
	in.Organisation = "Other"
	r = b.call("POST", "/console/api/signup", in)
	assert.Equal(t, http.StatusBadRequest, r.status)
}
