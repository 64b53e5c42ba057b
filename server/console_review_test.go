package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/checks/address/pdf"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/bills"
	"github.com/tambua/tambua/server"
)

// reviewOrg is an organisation with verifications in its review queue,
// built through the console: its admin, a face-matching workflow under
// the four-eyes rule for rejections, and cases.
type reviewOrg struct {
	admin    *member
	workflow string
	cases    []string // in review
	accepted string
}

func (ce *consoleEnv) reviewOrg(email, name string, n int) reviewOrg {
	t := ce.t
	t.Helper()
	o := reviewOrg{admin: ce.signup(email, name)}
	r := o.admin.call("POST", "/console/api/clients", map[string]string{"name": name + " client"})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	r = o.admin.call("POST", "/console/api/workflows", server.WorkflowCreate{ClientID: r.str("client_id"), ClientSecret: r.str("client_secret"),
		Workflow: idv.Workflow{Name: name + " onboarding", DocumentTypes: []string{"kenya_national_id"},
			Checks:       []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckFace}},
			ManualReview: &idv.ManualReview{Enabled: true, FourEyes: idv.FourEyesRejections}}})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	o.workflow = r.str("id")
	_, err := ce.admin.AddUnits(context.Background(), o.admin.orgID(), 100)
	require.NoError(t, err)
	front, back := captures(t)
	other := jpegBytes(t, blocks(99, 480, 300))
	for range n {
		tr := o.admin.testUpload(o.workflow, front, back, other)
		require.Equal(t, 200, tr.status, string(tr.body))
		require.Equal(t, "review", tr.str("verification_decision"))
		o.cases = append(o.cases, tr.str("idv_unique_id"))
	}
	tr := o.admin.testUpload(o.workflow, front, back, front)
	require.Equal(t, "accept", tr.str("verification_decision"))
	o.accepted = tr.str("idv_unique_id")
	return o
}

// join invites a member with a role and signs them in.
func (ce *consoleEnv) join(admin *member, email, role string) *member {
	t := ce.t
	t.Helper()
	r := admin.call("POST", "/console/api/members", map[string]string{"email": email, "role": role})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	m := ce.browser()
	r = m.call("POST", "/console/api/invitations/accept", map[string]string{"email": email, "code": ce.lastCode(email), "name": role, "password": "correct horse battery"})
	require.Equal(t, 200, r.status, string(r.body))
	m.csrf = r.obj["csrf_token"].(string)
	return m
}

// post submits a console form with the session's CSRF token.
func (m *member) post(path string, v url.Values) response {
	m.ce.t.Helper()
	if v == nil {
		v = url.Values{}
	}
	if _, ok := v["csrf_token"]; !ok {
		v.Set("csrf_token", m.csrf)
	}
	req, _ := http.NewRequest("POST", m.ce.ts.URL+path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return m.do(req)
}

func decision(d, reason, note string) url.Values {
	return url.Values{"decision": {d}, "reason": {reason}, "note": {note}}
}

// TestReviewConsole: the queue with its filters and counts, a case with
// its images and evidence, assignment, the four-eyes rule, two reviewers
// at once, deciding twice, a case not in review, erasure (twice, and by
// a role that may not), the audit log page and its CSV; roles and CSRF on
// every form.
func TestReviewConsole(t *testing.T) {
	ce := newConsoleEnv(t)
	a := ce.reviewOrg("ada@a.example", "Org A", 3)
	admin := a.admin
	rev := ce.join(admin, "rex@a.example", "reviewer")
	dev := ce.join(admin, "dev@a.example", "developer")

	wfPage := admin.page("/console/workflows/" + a.workflow)
	assert.Contains(t, string(wfPage.body), `<option value="rejections" selected>`, "the four-eyes rule on the workflow form")

	// The queue and the overview's counts.
	q := rev.page("/console/reviews")
	require.Equal(t, 200, q.status, string(q.body))
	for _, id := range a.cases {
		assert.Contains(t, string(q.body), "/console/reviews/"+id)
	}
	assert.NotContains(t, string(q.body), a.accepted, "an accepted verification is not queued")
	assert.Contains(t, string(q.body), `id="open-count">3<`)
	ov := rev.page("/console/overview")
	assert.Contains(t, string(ov.body), `id="queue-open">3<`)
	assert.Contains(t, string(ov.body), "oldest case")
	for _, tc := range []struct {
		query string
		rows  int
	}{
		{"reason=face_low_confidence", 3}, {"reason=doc_not_authentic", 0}, {"age=24h", 0}, {"assignee=none", 3},
		{"assignee=me", 0}, {"workflow=" + a.workflow, 3}, {"workflow=other", 0}, {"sort=newest", 3}, {"state=approved", 0},
	} {
		r := rev.page("/console/reviews?" + tc.query)
		require.Equal(t, 200, r.status, tc.query)
		assert.Equal(t, tc.rows, strings.Count(string(r.body), `aria-label="Open case `), tc.query)
	}
	bad := rev.page("/console/reviews?state=maybe")
	assert.Equal(t, 400, bad.status)
	assert.Contains(t, string(bad.body), "state must be open, approved, rejected or all")
	assert.Equal(t, 403, dev.page("/console/reviews").status, "developers build; reviewers and admins review")

	// A case: images, fields, checks with their pieces, request metadata.
	id := a.cases[0]
	c := rev.page("/console/reviews/" + id)
	require.Equal(t, 200, c.status, string(c.body))
	for _, s := range []string{"Extracted data", "national_id_number", "face_matching", "photo_comparison", "Captures", "Derived",
		"/console/reviews/" + id + "/images/front", "/console/reviews/" + id + "/images/selfie", "face_low_confidence", "request_id",
		"Four-eyes rule: a rejection needs a second"} {
		assert.Contains(t, string(c.body), s)
	}
	img := rev.page("/console/reviews/" + id + "/images/front")
	require.Equal(t, 200, img.status)
	assert.Equal(t, "image/jpeg", img.header.Get("Content-Type"))
	assert.Equal(t, 404, rev.page("/console/reviews/"+id+"/images/passport").status)
	assert.Equal(t, 404, rev.page("/console/reviews/no-such-case").status)
	notInReview := rev.page("/console/reviews/" + a.accepted)
	assert.Equal(t, 409, notInReview.status)
	assert.Contains(t, string(notInReview.body), "not in review")

	// Assignment: to me, then to another reviewer; not to a stranger.
	r := rev.post("/console/reviews/"+id+"/assign", url.Values{"assignee": {"me"}})
	require.Equal(t, http.StatusSeeOther, r.status, string(r.body))
	assert.Contains(t, string(rev.page("/console/reviews/"+id).body), `id="case-assignee">rex@a.example<`)
	assert.Equal(t, 1, strings.Count(string(rev.page("/console/reviews?assignee=me").body), `aria-label="Open case `))
	r = rev.post("/console/reviews/"+id+"/assign", url.Values{"assignee": {"dev@a.example"}})
	assert.Equal(t, 400, r.status, "a developer is not a reviewer")
	assert.Contains(t, string(r.body), "assign the case to a reviewer or admin of your organisation")
	r = rev.post("/console/reviews/"+id+"/assign", url.Values{"assignee": {"bob@b.example"}})
	assert.Equal(t, 400, r.status)

	// Four-eyes: the reviewer's rejection waits; they cannot confirm it;
	// the admin confirms; deciding again is refused.
	r = rev.post("/console/reviews/"+id+"/decision", decision("reject", "face_mismatch", "not the holder"))
	require.Equal(t, http.StatusSeeOther, r.status, string(r.body))
	assert.Contains(t, r.header.Get("Location"), "notice=first_decision")
	c = rev.page("/console/reviews/" + id)
	assert.Contains(t, string(c.body), "Awaiting second reviewer")
	assert.Contains(t, string(c.body), "Another reviewer must confirm or overturn your decision")
	assert.NotContains(t, string(c.body), `id="decision-form"`)
	r = rev.post("/console/reviews/"+id+"/decision", decision("reject", "face_mismatch", ""))
	assert.Equal(t, 409, r.status)
	assert.Contains(t, string(r.body), "another reviewer must confirm or overturn it")
	r = admin.post("/console/reviews/"+id+"/decision", decision("reject", "face_mismatch", "agreed"))
	require.Equal(t, http.StatusSeeOther, r.status, string(r.body))
	assert.Contains(t, r.header.Get("Location"), "notice=decided")
	c = admin.page("/console/reviews/" + id)
	assert.Contains(t, string(c.body), "reject by rex@a.example", "the first decision is shown")
	r = admin.post("/console/reviews/"+id+"/decision", decision("approve", "other", ""))
	assert.Equal(t, 409, r.status)
	assert.Contains(t, string(r.body), "already decided (rejected by ada@a.example")
	r = rev.post("/console/reviews/"+a.accepted+"/decision", decision("approve", "other", ""))
	assert.Equal(t, 409, r.status)
	assert.Contains(t, string(r.body), "not in review")
	r = rev.post("/console/reviews/"+a.cases[1]+"/decision", decision("approve", "looks_fine", "keep this note"))
	assert.Equal(t, 400, r.status)
	assert.Contains(t, string(r.body), "reason must be one of")
	assert.Contains(t, string(r.body), "keep this note", "the note typed is kept on the form")

	// Two reviewers approve one case at once (one reviewer suffices for
	// an approval here): exactly one wins, the other is told.
	var wg sync.WaitGroup
	res := make([]response, 2)
	for i, m := range []*member{rev, admin} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = m.post("/console/reviews/"+a.cases[1]+"/decision", decision("approve", "other", "fine "+xss))
		}()
	}
	wg.Wait()
	statuses := []int{res[0].status, res[1].status}
	assert.ElementsMatch(t, []int{http.StatusSeeOther, 409}, statuses)
	for _, r := range res {
		if r.status == 409 {
			assert.Contains(t, string(r.body), "already decided (approved by")
		}
	}

	c = admin.page("/console/reviews/" + a.cases[1])
	require.Equal(t, 200, c.status)
	assert.Contains(t, string(c.body), "fine &lt;script&gt;", "the note is shown as text")
	assert.NotContains(t, string(c.body), "<script>alert")

	// Erasure: admins only, with confirmation, idempotent; the files go.
	eid := a.cases[2]
	assert.Equal(t, 403, rev.page("/console/verifications/"+eid+"/erase").status)
	assert.Equal(t, 403, rev.post("/console/verifications/"+eid+"/erase", url.Values{"confirm": {"yes"}}).status)
	r = admin.post("/console/verifications/"+eid+"/erase", nil)
	assert.Equal(t, 400, r.status)
	assert.Contains(t, string(r.body), "tick the box")
	dir := filepath.Join(ce.dir, "files", "v", eid)
	_, err := os.Stat(dir)
	require.NoError(t, err, "nothing erased without the confirmation")
	r = admin.post("/console/verifications/"+eid+"/erase", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusSeeOther, r.status, string(r.body))
	assert.Contains(t, r.header.Get("Location"), "notice=erased")
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "files gone: %v", err)
	assert.Equal(t, 404, rev.page("/console/reviews/"+eid+"/images/front").status)
	c = rev.page("/console/reviews/" + eid)
	require.Equal(t, 200, c.status)
	assert.Contains(t, string(c.body), "were erased on")
	assert.NotContains(t, string(c.body), "/images/")
	r = admin.post("/console/verifications/"+eid+"/erase", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusSeeOther, r.status)
	assert.Contains(t, r.header.Get("Location"), "notice=already_erased")
	assert.Contains(t, string(admin.page(r.header.Get("Location")).body), "already erased")
	assert.Equal(t, 404, admin.post("/console/verifications/no-such-id/erase", url.Values{"confirm": {"yes"}}).status)

	// The audit log: admins only, filtered, and its CSV.
	assert.Equal(t, 403, rev.page("/console/audit").status)
	assert.Equal(t, 403, rev.page("/console/audit.csv").status)
	al := admin.page("/console/audit")
	require.Equal(t, 200, al.status)
	for _, s := range []string{"review.rejection_proposed", "review.rejected", "review.approved", "review.assigned", "verification.erased", "rex@a.example (console)"} {
		assert.Contains(t, string(al.body), s)
	}
	al = admin.page("/console/audit?action=verification.erased")
	assert.Equal(t, 1, strings.Count(string(al.body), "<code>verification.erased</code>"))
	assert.Equal(t, 400, admin.page("/console/audit?from=soon").status)
	cs := admin.page("/console/audit.csv?object_id=" + id)
	require.Equal(t, 200, cs.status)
	rows, err := csv.NewReader(strings.NewReader(string(cs.body))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 4, "header, assigned, proposed, rejected")
	for _, row := range rows[1:] {
		assert.Equal(t, id, row[5])
	}

	// CSRF: every form of these pages refuses a missing or foreign token.
	for _, p := range []string{"/console/reviews/" + a.cases[0] + "/assign", "/console/reviews/" + a.cases[0] + "/decision", "/console/verifications/" + a.cases[0] + "/erase"} {
		for _, tok := range []string{"", dev.csrf, "forged"} {
			r := admin.post(p, url.Values{"csrf_token": {tok}, "decision": {"approve"}, "reason": {"other"}, "confirm": {"yes"}, "assignee": {"me"}})
			assert.Equal(t, 403, r.status, "%s with %q", p, tok)
		}
	}
}

// TestReviewConsoleCrossOrganisation: a member of organisation B tries
// every review page, action and image URL with A's cases: each answers
// 404 (as an unknown id) and nothing of A changes or shows.
func TestReviewConsoleCrossOrganisation(t *testing.T) {
	ce := newConsoleEnv(t)
	a := ce.reviewOrg("ada@a.example", "Org A", 1)
	b := ce.signup("bob@b.example", "Org B")
	brev := ce.join(b, "rita@b.example", "reviewer")
	id := a.cases[0]
	before := a.admin.page("/console/reviews/" + id).body

	for _, m := range []*member{b, brev} {
		q := m.page("/console/reviews")
		require.Equal(t, 200, q.status)
		assert.NotContains(t, string(q.body), id)
		assert.Contains(t, string(q.body), `id="open-count">0<`)
		for _, p := range []string{"/console/reviews/" + id, "/console/reviews/" + id + "/images/front", "/console/reviews/" + id + "/images/selfie_face",
			"/console/reviews/" + a.accepted} {
			r := m.page(p)
			assert.Equal(t, 404, r.status, p)
			assert.NotContains(t, string(r.body), "Org A")
		}
		for _, p := range []string{"/console/reviews/" + id + "/assign", "/console/reviews/" + id + "/decision"} {
			r := m.post(p, url.Values{"decision": {"reject"}, "reason": {"other"}, "assignee": {"me"}})
			assert.Equal(t, 404, r.status, p)
		}
	}
	assert.Equal(t, 404, b.page("/console/verifications/"+id+"/erase").status)
	assert.Equal(t, 404, b.post("/console/verifications/"+id+"/erase", url.Values{"confirm": {"yes"}}).status)
	al := b.page("/console/audit")
	require.Equal(t, 200, al.status)
	assert.NotContains(t, string(al.body), id)
	cs := b.page("/console/audit.csv?object_id=" + id)
	require.Equal(t, 200, cs.status)
	assert.Equal(t, 1, strings.Count(string(cs.body), "\n"), "header only: %s", cs.body)
	// A's case is as it was, images included.
	assert.Equal(t, string(before), string(a.admin.page("/console/reviews/"+id).body))
	assert.Equal(t, 200, a.admin.page("/console/reviews/"+id+"/images/front").status)
}

// TestReviewConsoleDocumentParts: a case whose request carried a proof of
// address as a PDF (and a letter as a photo) lists them as documents: the
// PDF as a link that opens it in a new tab, never as an <img> of the PDF,
// with its first page drawn as a zoomable preview; the photo zooms as the
// captures do. The link serves the PDF inline to the case's organisation,
// the preview a PNG of the page, and both answer 404 to another
// organisation.
func TestReviewConsoleDocumentParts(t *testing.T) {
	if !pdf.Renderable() {
		if os.Getenv("CI") != "" {
			t.Fatal("pdftoppm is missing: run make setup (Debian poppler-utils)")
		}
		t.Skip("pdftoppm is missing (Debian poppler-utils): uploads of PDFs are refused without it")
	}
	ce := newConsoleEnv(t)
	admin := ce.signup("ada@a.example", "Org A")
	r := admin.call("POST", "/console/api/clients", map[string]string{"name": "A client"})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	client, secret := r.str("client_id"), r.str("client_secret")
	r = admin.call("POST", "/console/api/workflows", server.WorkflowCreate{ClientID: client, ClientSecret: secret,
		Workflow: idv.Workflow{Name: "Loans with proof of address", DocumentTypes: []string{"kenya_national_id"},
			Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckFace}}}})
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	wf := r.str("id")
	_, err := ce.admin.AddUnits(context.Background(), admin.orgID(), 100)
	require.NoError(t, err)

	drawn := bills.Generate("classic", 1, 7, time.Now().UTC())[0]
	drawn.Format = "pdf_text"
	statement, err := drawn.Bytes(7)
	require.NoError(t, err)
	require.True(t, pdf.Is(statement))
	letter := jpegBytes(t, blocks(7, 600, 800))
	front, back := captures(t)
	up := ce.upload(ce.tokenFor(client, secret), map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init",
		"no_adapter": false, "client_id": client, "work_flow_id": wf, "config": "kenya_national_id", "request_id": "poa-1"},
		part{"front", front}, part{"back", back}, part{"selfie", jpegBytes(t, blocks(99, 480, 300))},
		part{"proof_of_address", statement}, part{"bank_letter", letter})
	require.Equal(t, 200, up.status, string(up.body))
	require.Equal(t, "review", up.str("verification_decision"))
	id := up.str("idv_unique_id")

	c := admin.page("/console/reviews/" + id)
	require.Equal(t, 200, c.status, string(c.body))
	body := string(c.body)
	link := "/console/reviews/" + id + "/images/proof_of_address"
	preview := link + "/page1.png"
	for _, s := range []string{"Images and documents", `id="documents"`, "Proof of address", `<span class="badge">PDF</span>`,
		`href="` + link + `" target="_blank" rel="noopener"`, `download="proof_of_address.pdf"`,
		`href="` + preview + `" data-zoomable aria-label="Zoom Proof of address, page 1"`, `<img src="` + preview + `"`,
		"Bank letter", `<img src="/console/reviews/` + id + `/images/bank_letter"`} {
		assert.Contains(t, body, s)
	}
	assert.NotContains(t, body, `src="`+link+`"`, "a PDF is not an image")

	pdfResp := admin.page(link)
	require.Equal(t, 200, pdfResp.status)
	assert.Equal(t, statement, pdfResp.body)
	assert.Equal(t, "application/pdf", pdfResp.header.Get("Content-Type"))
	assert.Equal(t, `inline; filename="proof_of_address.pdf"`, pdfResp.header.Get("Content-Disposition"))
	assert.Equal(t, "nosniff", pdfResp.header.Get("X-Content-Type-Options"))
	assert.Contains(t, pdfResp.header.Get("Content-Security-Policy"), "frame-ancestors 'none'", "the console's policy, unchanged")
	assert.Equal(t, "private, no-store", pdfResp.header.Get("Cache-Control"))

	pv := admin.page(preview)
	require.Equal(t, 200, pv.status, string(pv.body))
	assert.Equal(t, "image/png", pv.header.Get("Content-Type"))
	page, err := png.Decode(bytes.NewReader(pv.body))
	require.NoError(t, err)
	assert.Equal(t, 1400, page.Bounds().Dy(), "an A4 page drawn 1400 px high")
	assert.Less(t, lumaStdDev(page), 120.0)
	assert.Greater(t, lumaStdDev(page), 10.0, "the page has print on it")
	assert.Equal(t, 404, admin.page("/console/reviews/"+id+"/images/front/page1.png").status, "only a PDF has a page to draw")
	img := admin.page("/console/reviews/" + id + "/images/bank_letter")
	require.Equal(t, 200, img.status)
	assert.Equal(t, "image/jpeg", img.header.Get("Content-Type"))

	// Another organisation: 404 for the case, the PDF and its page.
	b := ce.signup("bob@b.example", "Org B")
	for _, p := range []string{"/console/reviews/" + id, link, preview, "/console/reviews/" + id + "/images/bank_letter"} {
		r := b.page(p)
		assert.Equal(t, 404, r.status, p)
		assert.NotContains(t, string(r.body), "%PDF-")
	}
	assert.Equal(t, 200, admin.page(link).status, "still served to its own organisation")
}
