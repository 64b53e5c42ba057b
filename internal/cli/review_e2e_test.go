package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/testkit/bills"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/server/webhook"
)

// noFaceJPEG is a selfie with no face in it: stripes. The face check
// cannot compare it, so the verification goes to review.
func noFaceJPEG(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 480, 640))
	for y := range 640 {
		for x := range 480 {
			v := uint8(60 + (x/24+y/32)%2*120)
			img.Set(x, y, color.RGBA{v, v / 2, 200 - v/2, 255})
		}
	}
	f, err := os.CreateTemp(t.TempDir(), "*.jpg")
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, jpeg.Encode(f, img, &jpeg.Options{Quality: 90}))
	b, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	return b
}

// invitationCode reads the 6-digit code of the newest mail of the local
// mailbox, an invitation's.
func invitationCode(t *testing.T, data string) string {
	t.Helper()
	return newestMailCode(t, data, regexp.MustCompile(`enter this code: (\d{6})`))
}

// receivedEvents is the local HTTPS receiver's inbox.
type receivedEvents struct {
	mu  sync.Mutex
	got []webhook.Envelope
}

func (r *receivedEvents) wait(t *testing.T, event, id string) webhook.Envelope {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		for _, e := range r.got {
			if e.Event == event && strings.Contains(string(e.Data), id) {
				r.mu.Unlock()
				return e
			}
		}
		r.mu.Unlock()
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no %s for %s delivered", event, id)
	return webhook.Envelope{}
}

// uploadParts sends one verification through /upload as a customer's
// backend does (client credentials, then the multipart call) with the
// given parts, and returns its idv_unique_id; it must land in review.
func uploadParts(t *testing.T, base, clientID, secret, wf, requestID string, parts map[string][]byte) string {
	t.Helper()
	tok := childToken(t, base, clientID, secret)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for slot, data := range parts {
		w, err := mw.CreateFormFile(slot, slot)
		require.NoError(t, err)
		_, _ = w.Write(data)
	}
	msg, _ := json.Marshal(map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init", "no_adapter": false,
		"client_id": clientID, "work_flow_id": wf, "config": "kenya_national_id", "request_id": requestID})
	require.NoError(t, mw.WriteField("message", string(msg)))
	require.NoError(t, mw.Close())
	req, err := http.NewRequest("POST", base+"/upload", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := (&http.Client{Timeout: 3 * time.Minute}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var res struct {
		ID       string `json:"idv_unique_id"`
		Decision string `json:"verification_decision"`
	}
	out, _ := io.ReadAll(resp.Body)
	require.Equal(t, 200, resp.StatusCode, string(out))
	require.NoError(t, json.Unmarshal(out, &res))
	require.Equal(t, "review", res.Decision, string(out))
	return res.ID
}

// TestReviewEndToEnd drives the review queue in headless Chromium against
// a real tambua serve (SQLite, the real checks): an admin builds a
// workflow with the four-eyes rule for rejections and a webhook to a
// local HTTPS receiver; two test verifications land in review; an invited
// reviewer assigns one to themselves and approves it with a note (the
// receiver gets verification.completed with the review object), and
// rejects the other, which waits for a second reviewer until the admin
// confirms it (verification.failed); the audit log page shows both and
// its CSV has them. A third case, sent by the backend through /upload with
// a proof of address as a PDF, lists the PDF as a document that opens in
// a new tab, with its first page drawn. The queue and case pages are
// screenshot at desktop and phone widths and checked for unlabelled
// controls and overflow.
func TestReviewEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: not in -short")
	}
	start := time.Now()
	chrome := chromiumPath(t)
	models := fixtures.Models(t)
	fixtures.Need(t, synth.DefaultFacesDir, "dlib example faces (libdlib-data)")
	shots := filepath.Join(filepath.Dir(artefacts(t)), "review")
	require.NoError(t, os.MkdirAll(shots, 0o755))
	data := t.TempDir()

	files := kenyanIDCaptures(t, 19, noFaceJPEG(t))

	// The customer's backend: HTTPS with mutual TLS, keeping every event.
	id, err := webhook.DevIdentity(data)
	require.NoError(t, err)
	inbox := &receivedEvents{}
	receiver, receiverCA := mtlsReceiver(t, id.CAPEM, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var env webhook.Envelope
		if json.Unmarshal(body, &env) == nil {
			inbox.mu.Lock()
			inbox.got = append(inbox.got, env)
			inbox.mu.Unlock()
		}
		w.WriteHeader(http.StatusOK)
	})

	addr, _, stop := serveEnv(t, data, map[string]string{"TAMBUA_MODELS": models}, "--demo=false", "--allow-private-webhooks")
	defer stop()
	base := "http://" + addr

	ctx := headlessChrome(t, chrome, 8*time.Minute)

	type step = chromedp.Action[chromedp.Void]
	run := func(what string, actions ...step) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, actions...), what)
	}
	get := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		require.NoError(t, err, what)
		return v
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	text := func(sel string) string {
		t.Helper()
		return strings.TrimSpace(get("read "+sel, chromedp.Text(css(sel))))
	}
	desktop := chromedp.EmulateViewport(1280, 900)
	run("viewport", desktop)
	n := 0
	shot := func(name string) {
		t.Helper()
		bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](a11yScript))
		require.NoError(t, err)
		assert.Empty(t, bad, "controls without an accessible name on %s", name)
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		n++
		require.NoError(t, os.WriteFile(filepath.Join(shots, fmt.Sprintf("%02d-%s.png", n, name)), png, 0o644))
	}
	// phone checks nothing overflows at 375 px and takes the viewport's
	// picture, then one scrolled to each of the given elements (a
	// full-page capture at this width spans the scrolling tables' hidden
	// overflow).
	phone := func(name string, scrollTo ...string) {
		t.Helper()
		run("phone "+name, chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2)), chromedp.Reload(), chromedp.WaitReady(css("main")))
		over, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowScript))
		require.NoError(t, err)
		assert.Empty(t, over, "%s is wider than 375 px", name)
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
		require.NoError(t, err)
		assert.False(t, wide, "%s scrolls sideways at 375 px", name)
		for i, sel := range append([]string{""}, scrollTo...) {
			if sel != "" {
				run("scroll "+sel, chromedp.ScrollIntoView(css(sel)))
			}
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			n++
			require.NoError(t, os.WriteFile(filepath.Join(shots, fmt.Sprintf("%02d-%s-375px-%d.png", n, name, i)), png, 0o644))
		}
		run("desktop", desktop, chromedp.Reload(), chromedp.WaitReady(css("main")))
	}
	signIn := func(email, password string) {
		t.Helper()
		run("sign in "+email, chromedp.Navigate(base+"/console/signin"), chromedp.WaitVisible(css("#password")),
			chromedp.SendKeys(css("#email"), email), chromedp.SendKeys(css("#password"), password),
			chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css(".stats")))
	}
	signOut := func() {
		t.Helper()
		run("sign out", chromedp.Click(css(`form[action="/console/signout"] button`)), chromedp.WaitVisible(css("#password")))
	}
	// clearAlerts removes the page's notices before a form is sent, so a
	// wait for the next notice cannot be met by the last one while the
	// browser is still navigating.
	clearAlerts := func() {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelectorAll(".alert-ok, .alert-error").forEach(e => e.remove()), true)`))
		require.NoError(t, err)
	}
	const adminEmail, reviewerEmail, password = "owner@acme.example", "rev@acme.example", "a long enough password"

	// The admin signs up, creates a client and a workflow with the
	// four-eyes rule for rejections.
	run("signup", chromedp.Navigate(base+"/console/signup"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), adminEmail), chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css("#code")))
	run("details", chromedp.SendKeys(css("#code"), latestCode(t, data)), chromedp.SendKeys(css("#name"), "Olive Owner"),
		chromedp.SendKeys(css("#password"), password), chromedp.SendKeys(css("#organisation"), "Acme Lending"),
		chromedp.SendKeys(css("#industry"), "Digital lending"), chromedp.SetValue(css("#monthly_volume"), "1,000 to 10,000"),
		// Sign-up's third step is the admin's own verification; the
		// console end-to-end test runs it, this one puts it off.
		chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css("#verify-continue")),
		chromedp.Click(css("#verify-continue")), chromedp.WaitVisible(css(`form[action="/console/security/totp"]`)))
	run("client", chromedp.Navigate(base+"/console/clients"), chromedp.WaitVisible(css("#client-name")),
		chromedp.SendKeys(css("#client-name"), "Backend"), chromedp.Click(css(`form[action="/console/clients"] button`)),
		chromedp.WaitVisible(css("#new-client-secret")))
	secret, clientID := text("#new-client-secret"), text("#new-client-id")
	run("workflow", chromedp.Navigate(base+"/console/workflows/new"), chromedp.WaitVisible(css("#wf-name")),
		chromedp.SendKeys(css("#wf-secret"), secret), chromedp.SendKeys(css("#wf-name"), "Loan applicants"),
		chromedp.Click(css(`input[name=document_types][value=kenya_national_id]`)), chromedp.Click(css(`input[name=check_face_matching]`)),
		chromedp.SetValue(css("#wf-four-eyes"), "rejections"),
		chromedp.Click(css(".form-actions button[type=submit]")), chromedp.WaitVisible(css(`a[href$="/test"]`)))
	wfID := strings.TrimPrefix(strings.SplitN(get("url", chromedp.Location()), "?", 2)[0], base+"/console/workflows/")
	env := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	require.Equal(t, ExitOK, Run(context.Background(), env, []string{"units", "add", "--data", data, "--org", "1", "100"}))

	// The webhook to the backend, for the late outcomes.
	run("webhook", chromedp.Navigate(base+"/console/webhooks/new"), chromedp.WaitVisible(css("#wh-name")),
		chromedp.SendKeys(css("#wh-name"), "Outcomes"), chromedp.SendKeys(css("#wh-url"), receiver.URL+"/hooks"),
		chromedp.SetValue(css("#wh-ca"), receiverCA), chromedp.SendKeys(css("#wh-secret"), "whsec-review"),
		chromedp.Click(css(`input[name=events][value="verification.completed"]`)), chromedp.Click(css(`input[name=events][value="verification.failed"]`)),
		chromedp.Click(css(".form-actions button[type=submit]")), chromedp.WaitVisible(css(`button[value=validate]`)))
	run("validate", chromedp.Click(css(`button[value=validate]`)), chromedp.WaitVisible(css("#handshake")))
	run("activate", chromedp.Click(css(`button[value=activate]`)), chromedp.WaitVisible(css(`button[value=pause]`)))

	// Two test verifications whose selfie has no face: both go to review.
	var ids []string
	for i := range 2 {
		run(fmt.Sprintf("test %d", i), chromedp.Navigate(base+"/console/workflows/"+wfID+"/test"), chromedp.WaitVisible(css("#t-front")),
			chromedp.SetUploadFiles(css("#t-front"), []string{files["front"]}), chromedp.SetUploadFiles(css("#t-back"), []string{files["back"]}),
			chromedp.SetUploadFiles(css("#t-selfie"), []string{files["selfie"]}), chromedp.Click(css(".form-actions button")),
			chromedp.WaitVisible(css("#verdict")))
		require.Equal(t, "review", text("#verdict"))
		ids = append(ids, text(`section[aria-labelledby="result-title"] p.small code`))
	}

	// The reviewer is invited and joins.
	run("invite", chromedp.Navigate(base+"/console/members"), chromedp.WaitVisible(css("#invite-email")),
		chromedp.SendKeys(css("#invite-email"), reviewerEmail), chromedp.SetValue(css("#invite-role"), "reviewer"),
		chromedp.Click(css(`form[action="/console/members"] button`)), chromedp.WaitVisible(css(".alert-ok")))
	signOut()
	run("join", chromedp.Navigate(base+"/console/invite?email="+reviewerEmail), chromedp.WaitVisible(css("#code")),
		chromedp.SendKeys(css("#code"), invitationCode(t, data)), chromedp.SendKeys(css("#name"), "Riya Reviewer"),
		chromedp.SendKeys(css("#password"), password), chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css(".stats")))
	assert.Equal(t, "2", text("#queue-open"), "the overview counts the open cases")
	shot("overview")

	// The queue, then the first case: assign to me, approve with a note.
	run("queue", chromedp.Navigate(base+"/console/reviews"), chromedp.WaitVisible(css("#queue")))
	assert.Equal(t, "2", text("#open-count"))
	shot("queue")
	phone("queue", "#queue")
	run("case", chromedp.Navigate(base+"/console/reviews/"+ids[0]), chromedp.WaitVisible(css("#decision-form")))
	run("assign", chromedp.Click(css("#assign-me")), chromedp.WaitVisible(css(".alert-ok")))
	assert.Equal(t, reviewerEmail, text("#case-assignee"))
	assert.Contains(t, text("#fields"), "national_id_number")
	assert.Contains(t, text("#checks"), "face_matching")
	shot("case")
	phone("case", "#checks", "#request-title", "#decision-form")
	run("zoom", chromedp.Click(css(`a[data-zoomable]`)), chromedp.WaitVisible(css("#zoom-img")), chromedp.Sleep(300*time.Millisecond),
		chromedp.Click(css(`button[data-zoom="in"]`)))
	zoomed, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("zoom-img").naturalWidth > 0 && document.getElementById("zoom").open`))
	require.NoError(t, err)
	assert.True(t, zoomed, "the zoom dialog shows the image")
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()) // the dialog sits in the viewport
	require.NoError(t, err)
	n++
	require.NoError(t, os.WriteFile(filepath.Join(shots, fmt.Sprintf("%02d-case-zoom.png", n)), png, 0o644))
	run("zoom close", chromedp.Click(css(`button[data-zoom="close"]`)), chromedp.WaitNotVisible(css("#zoom-img")))
	clearAlerts()
	run("approve", chromedp.Click(css(`input[name=decision][value=approve]`)), chromedp.SetValue(css("#reason"), "other"),
		chromedp.SendKeys(css("#note"), "No face in the selfie frame; the applicant re-took it in branch and matches."),
		chromedp.Click(css("#decide")), chromedp.WaitVisible(css(".alert-ok")))
	assert.Contains(t, text(".alert-ok"), "Decision recorded")
	shot("case-approved")
	done := inbox.wait(t, "verification.completed", ids[0])
	var completed webhook.VerificationCompleted
	require.NoError(t, json.Unmarshal(done.Data, &completed), string(done.Data))
	require.NotNil(t, completed.Review)
	assert.Equal(t, "approved", completed.Review.Decision)
	assert.Equal(t, "other", completed.Review.Reason)
	assert.Equal(t, reviewerEmail, completed.Review.Reviewer)
	assert.NotEmpty(t, completed.Review.DecidedAt)
	assert.NotContains(t, string(done.Data), "re-took it", "the note stays inside")

	// The second case: the reviewer's rejection waits for a second
	// reviewer; the admin confirms it.
	run("case 2", chromedp.Navigate(base+"/console/reviews/"+ids[1]), chromedp.WaitVisible(css("#decision-form")),
		chromedp.Click(css(`input[name=decision][value=reject]`)), chromedp.SetValue(css("#reason"), "poor_quality"),
		chromedp.SendKeys(css("#note"), "Selfie unusable."), chromedp.Click(css("#decide")), chromedp.WaitVisible(css("#waiting")))
	assert.Contains(t, text("#waiting"), "Another reviewer must confirm or overturn your decision")
	shot("case-first-decision")
	signOut()
	signIn(adminEmail, password)
	run("confirm", chromedp.Navigate(base+"/console/reviews/"+ids[1]), chromedp.WaitVisible(css("#waiting")),
		chromedp.Click(css(`input[name=decision][value=reject]`)), chromedp.SetValue(css("#reason"), "poor_quality"),
		chromedp.Click(css("#decide")), chromedp.WaitVisible(css(".alert-ok")))
	failedEnv := inbox.wait(t, "verification.failed", ids[1])
	var failed webhook.VerificationFailed
	require.NoError(t, json.Unmarshal(failedEnv.Data, &failed), string(failedEnv.Data))
	require.NotNil(t, failed.Review)
	assert.Equal(t, "rejected", failed.Review.Decision)
	assert.Equal(t, adminEmail, failed.Review.Reviewer)
	assert.Equal(t, reviewerEmail, failed.Review.FirstReviewer)
	assert.Equal(t, "poor_quality", failed.Reason)

	// The audit log shows both decisions; its CSV has them.
	run("audit", chromedp.Navigate(base+"/console/audit"), chromedp.WaitVisible(css("#audit")))
	audit := text("#audit")
	for _, s := range []string{"review.approved", "review.rejection_proposed", "review.rejected", "review.assigned", reviewerEmail} {
		assert.Contains(t, audit, s)
	}
	shot("audit")
	phone("audit")
	csv, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('#audit-csv').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(csv, "id,time,actor,action"), csv)
	assert.Contains(t, csv, "review.approved")
	assert.Contains(t, csv, "review.rejected")
	run("queue empty", chromedp.Navigate(base+"/console/reviews"), chromedp.WaitVisible(css("#queue-empty")))

	// A case whose request carried a proof of address as a PDF statement,
	// sent by the backend through /upload: the case page lists it as a
	// document with its first page drawn, a link that opens the PDF in a
	// new tab (not an <img> of it), and serves it inline.
	drawn := bills.Generate("classic", 1, 7, time.Now().UTC())[0]
	drawn.Format = "pdf_text"
	statement, err := drawn.Bytes(7)
	require.NoError(t, err)
	parts := map[string][]byte{"proof_of_address": statement}
	for slot, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		parts[slot] = b
	}
	pdfCase := uploadParts(t, base, clientID, secret, wfID, "with-statement", parts)
	run("case with a PDF", chromedp.Navigate(base+"/console/reviews/"+pdfCase), chromedp.WaitVisible(css("#documents")),
		chromedp.WaitVisible(css(`#documents a[data-zoomable] img`)))
	link := "/console/reviews/" + pdfCase + "/images/proof_of_address"
	pdfLink, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`(() => {
		const a = document.querySelector('#documents a[data-pdf="proof_of_address"]');
		return a ? {href: a.getAttribute("href"), target: a.target, rel: a.rel, name: a.textContent.trim()} : {};
	})()`))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"href": link, "target": "_blank", "rel": "noopener", "name": "Open PDF: Proof of address, in a new tab"}, pdfLink)
	asImage, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('img[src$="/images/proof_of_address"]').length`))
	require.NoError(t, err)
	assert.Zero(t, asImage, "the PDF is not shown as an image")
	drawnPage, err := chromedp.Run(ctx, chromedp.Evaluate[int](`new Promise(done => {
		const img = document.querySelector('#documents a[data-zoomable] img');
		if (img.complete) return done(img.naturalWidth);
		img.addEventListener("load", () => done(img.naturalWidth));
		img.addEventListener("error", () => done(-1));
	})`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Greater(t, drawnPage, 500, "the first page is drawn")
	served, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`fetch(`+"`"+link+"`"+`).then(async r => ({
		status: String(r.status), type: r.headers.get("Content-Type"), disposition: r.headers.get("Content-Disposition"),
		start: new TextDecoder().decode((await r.arrayBuffer()).slice(0, 5))}))`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"status": "200", "type": "application/pdf", "disposition": `inline; filename="proof_of_address.pdf"`, "start": "%PDF-"}, served)
	shot("case-pdf")
	phone("case-pdf", "#documents")
	run("zoom the page", chromedp.Click(css(`#documents a[data-zoomable]`)), chromedp.WaitVisible(css("#zoom-img")), chromedp.Sleep(300*time.Millisecond))
	png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	n++
	require.NoError(t, os.WriteFile(filepath.Join(shots, fmt.Sprintf("%02d-case-pdf-zoom.png", n)), png, 0o644))
	run("zoom close", chromedp.Click(css(`button[data-zoom="close"]`)), chromedp.WaitNotVisible(css("#zoom-img")))
	t.Logf("review end-to-end: %.1f s wall; screenshots in %s", time.Since(start).Seconds(), shots)
}
