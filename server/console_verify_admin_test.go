package server_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
)

// verifyAdmin posts the admin's captures to the API (or, with page, to
// the page's form) as a browser would.
func (m *member) verifyAdmin(page bool, parts map[string][]byte, config string) response {
	m.ce.t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, slot := range []string{"front", "back", "selfie"} {
		if data, ok := parts[slot]; ok {
			w, _ := mw.CreateFormFile(slot, slot+".jpg")
			w.Write(data)
		}
	}
	mw.WriteField("config", config)
	mw.Close()
	path := "/console/api/organisation/verify-admin"
	if page {
		path = "/console/verify-admin?welcome=1&csrf_token=" + url.QueryEscape(m.csrf)
	}
	req, _ := http.NewRequest("POST", m.ce.ts.URL+path, &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if !page {
		req.Header.Set("X-CSRF-Token", m.csrf)
	}
	return m.do(req)
}

// TestConsoleVerifyAdmin: the admin's personal verification runs the
// captures through the engine, records the verdict on the organisation,
// bills nothing and keeps no image; bad captures change nothing; an
// operator approves a review with Admin.ApproveAdminVerification (the
// CLI's org approve-admin).
func TestConsoleVerifyAdmin(t *testing.T) {
	ce := newConsoleEnv(t)
	m := ce.signup("ada@example.com", "Acme")
	decision := func() string {
		t.Helper()
		r := m.call("GET", "/console/api/overview", nil)
		require.Equal(t, 200, r.status, string(r.body))
		return r.str("admin_verification_decision")
	}
	assert.Equal(t, "not_run", decision())
	_, err := ce.admin.ApproveAdminVerification(context.Background(), m.orgID())
	assert.Equal(t, idv.EInvalid, idv.ErrorCode(err), "nothing to approve before a run: %v", err)

	front, back := captures(t)
	files := ce.storedFiles()
	units := mustNum(t, m.call("GET", "/console/api/units", nil), "balance")

	// Refused: no selfie, a selfie that is not an image, an unknown
	// document type, no document type.
	for name, c := range map[string]struct {
		parts  map[string][]byte
		config string
	}{
		"no selfie":      {map[string][]byte{"front": front, "back": back}, "kenya_national_id"},
		"text selfie":    {map[string][]byte{"front": front, "selfie": []byte("<html>not an image</html>")}, "kenya_national_id"},
		"unknown type":   {map[string][]byte{"front": front, "selfie": front}, "atlantis_id"},
		"no type":        {map[string][]byte{"front": front, "selfie": front}, ""},
		"no front image": {map[string][]byte{"selfie": front}, "kenya_national_id"},
	} {
		r := m.verifyAdmin(false, c.parts, c.config)
		assert.Contains(t, []int{http.StatusBadRequest, http.StatusUnsupportedMediaType}, r.status, "%s: %s", name, r.body)
		assert.NotEmpty(t, r.str("v_field48"), name)
	}
	assert.Equal(t, "not_run", decision(), "refusals record nothing")

	// A selfie of someone else (the back of the card): not accepted.
	other := map[string][]byte{"front": front, "back": back, "selfie": back}
	r := m.verifyAdmin(false, other, "kenya_national_id")
	require.Equal(t, 200, r.status, string(r.body))
	got := r.str("admin_verification_decision")
	assert.Contains(t, []string{"review", "reject"}, got)
	assert.Equal(t, got, decision())
	assert.NotEmpty(t, r.str("admin_verification_id"))
	var names []string
	for _, c := range r.obj["check_results"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	assert.Equal(t, []string{idv.CheckOCR, idv.CheckFace}, names, "the checks this engine has (no liveness in the handler tests)")
	assert.Equal(t, units, mustNum(t, m.call("GET", "/console/api/units", nil), "balance"), "not billed")
	assert.Equal(t, files, ce.storedFiles(), "no image kept")

	// The page: the same run, the verdict and the checks shown, the way
	// on to the rest of sign-up.
	pg := m.verifyAdmin(true, other, "kenya_national_id")
	require.Equal(t, 200, pg.status, string(pg.body))
	for _, want := range []string{`id="admin-checks"`, "ocr_extraction", "face_matching", `id="verify-continue"`, "/console/security?welcome=1"} {
		assert.Contains(t, string(pg.body), want)
	}

	// At most five runs a day per organisation (two so far).
	before := decision()
	for i := 0; i < 3; i++ {
		r := m.verifyAdmin(false, other, "kenya_national_id")
		require.Equal(t, 200, r.status, string(r.body))
	}
	r = m.verifyAdmin(false, other, "kenya_national_id")
	assert.Equal(t, http.StatusTooManyRequests, r.status, string(r.body))
	assert.NotEmpty(t, r.header.Get("Retry-After"))
	assert.Equal(t, before, decision(), "a refused run changes nothing")

	// The operator's approval after a review.
	p, err := ce.admin.ApproveAdminVerification(context.Background(), m.orgID())
	require.NoError(t, err)
	assert.Equal(t, "accept", p.AdminVerificationDecision)
	assert.Equal(t, "accept", decision())
	req, _ := http.NewRequest("GET", ce.ts.URL+"/console/verify-admin", nil)
	page := m.do(req)
	require.Equal(t, 200, page.status)
	assert.NotContains(t, string(page.body), `id="va-front"`, "no form once accepted")
	r = m.verifyAdmin(false, map[string][]byte{"front": front, "selfie": front}, "kenya_national_id")
	assert.Equal(t, http.StatusBadRequest, r.status, "accepted is final: %s", r.body)

	// Sign-up leads to this page.
	b := ce.browser()
	require.Equal(t, http.StatusAccepted, b.call("POST", "/console/api/signup/code", map[string]string{"email": "bo@example.com"}).status)
	form := url.Values{"email": {"bo@example.com"}, "code": {ce.lastCode("bo@example.com")}, "name": {"Bo"}, "password": {"correct horse battery"},
		"organisation": {"Bo Ltd"}, "monthly_volume": {"under 1,000"}}
	pre := b.page("/console/signup/verify?email=bo%40example.com")
	tok := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindStringSubmatch(string(pre.body))
	require.NotNil(t, tok, string(pre.body))
	form.Set("csrf_token", tok[1])
	req, _ = http.NewRequest("POST", ce.ts.URL+"/console/signup/verify", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	su := b.do(req)
	require.Equal(t, http.StatusSeeOther, su.status, string(su.body))
	assert.Equal(t, "/console/verify-admin?welcome=1", su.header.Get("Location"))
}
