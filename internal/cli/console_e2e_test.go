package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/tambua/tambua/checks/standard" // the real checks, as cmd/tambua has them
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/server/webhook"
)

// chromiumPath finds Debian's chromium (scripts/setup.sh installs it);
// without it the test fails in CI and skips elsewhere.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("TAMBUA_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is missing: run scripts/setup.sh")
	}
	t.Skip("chromium is missing (skipping outside CI)")
	return ""
}

// kenyanIDCaptures renders sample 0 of kenya_national_id from seed (easy,
// no impostor) and writes its front, back and selfie, or selfie when
// given, as front.jpg, back.jpg and selfie.jpg; it returns their paths
// by slot.
func kenyanIDCaptures(t *testing.T, seed uint64, selfie []byte) map[string]string {
	t.Helper()
	def, ok := docdefs.Default().Definition("kenya_national_id")
	require.True(t, ok)
	gen, err := synth.New(synth.Options{Definitions: []*idv.DocumentDefinition{def}, Seed: seed, Difficulty: synth.Easy, ImpostorRate: -1})
	require.NoError(t, err)
	sample, err := gen.Sample(context.Background(), 0)
	require.NoError(t, err)
	if selfie == nil {
		selfie = sample.Selfie
	}
	capDir := t.TempDir()
	files := map[string]string{}
	for name, b := range map[string][]byte{"front": sample.Front, "back": sample.Back, "selfie": selfie} {
		files[name] = filepath.Join(capDir, name+".jpg")
		require.NoError(t, os.WriteFile(files[name], b, 0o600))
	}
	return files
}

// artefacts is where the screenshots go: $TAMBUA_ARTEFACTS/console, or a
// temporary folder.
func artefacts(t *testing.T) string {
	dir := t.TempDir()
	if a := os.Getenv("TAMBUA_ARTEFACTS"); a != "" {
		dir = filepath.Join(a, "console")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// latestCode reads the newest message of the local mailbox and returns
// its 6-digit code, as a new user of `make run` would.
func latestCode(t *testing.T, data string) string {
	t.Helper()
	// The sign-up mail says "code is N", the invitation "this code: N".
	return newestMailCode(t, data, regexp.MustCompile(`code(?: is|:) (\d{6})\b`))
}

// newestMailCode reads the newest message of the local mailbox DATA/mailbox
// and returns what the first group of code matches in it.
func newestMailCode(t *testing.T, data string, code *regexp.Regexp) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(data, "mailbox", "*.eml"))
	require.NoError(t, err)
	require.NotEmpty(t, names, "no mail in the mailbox")
	sort.Strings(names)
	b, err := os.ReadFile(names[len(names)-1])
	require.NoError(t, err)
	m := code.FindSubmatch(b)
	require.NotNil(t, m, string(b))
	return string(m[1])
}

// a11yScript lists the controls of the page with no accessible name: a
// label, aria-label, aria-labelledby, or (buttons, links) their text.
const a11yScript = `(() => {
  const bad = [];
  document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href]').forEach(el => {
    let name = el.getAttribute('aria-label') || '';
    if (!name && el.getAttribute('aria-labelledby')) name = (document.getElementById(el.getAttribute('aria-labelledby')) || {}).textContent || '';
    if (!name && el.labels && el.labels.length) name = el.labels[0].textContent;
    if (!name && (el.tagName === 'BUTTON' || el.tagName === 'A')) name = el.textContent;
    if (!name.trim()) bad.push(el.outerHTML.slice(0, 120));
  });
  return bad;
})()`

// overflowScript returns, when the page is wider than the window (a
// phone would scroll sideways), the elements that stick out on the right:
// outside a scrolling table, or placed absolutely (they escape it).
const overflowScript = `(() => {
  const root = document.documentElement, w = root.clientWidth;
  if (root.scrollWidth <= w) return [];
  const out = [];
  document.querySelectorAll('body *').forEach(el => {
    if (el.getBoundingClientRect().right <= w + 1) return;
    const pos = getComputedStyle(el).position;
    if (!el.closest('.table-wrap') || pos === 'absolute' || pos === 'fixed') out.push(el.tagName + '.' + el.className + ' ' + el.textContent.slice(0, 30));
  });
  out.push('the page is ' + root.scrollWidth + ' px wide');
  return out.slice(0, 10);
})()`

// TestConsoleEndToEnd drives the console in headless Chromium against a
// real tambua serve (SQLite, the real checks): sign-up with the mailed
// code, TOTP enrolment, sign-in with a code, an API client, a workflow
// refused then created, a test verification of synthetic captures, a
// webhook to a local HTTPS receiver validated and tested, the logs CSV,
// the workflow archived. Every page is screenshot and checked for
// unlabelled controls, on a desktop window and at 375 px.
func TestConsoleEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: not in -short")
	}
	if raceEnabled {
		// scripts/test.sh runs it again without -race: the detector slows
		// the checks' Go image code and the synthetic rendering about
		// tenfold, past the minutes this test may take.
		t.Skip("end-to-end: run without -race (scripts/test.sh does)")
	}
	chrome := chromiumPath(t)
	models := fixtures.Models(t)
	fixtures.Need(t, synth.DefaultFacesDir, "dlib example faces (libdlib-data)")
	shots := artefacts(t)
	data := t.TempDir()

	// The synthetic captures: a Kenyan ID, front, back and a selfie of
	// the same person.
	files := kenyanIDCaptures(t, 18, nil)

	// The webhook receiver: HTTPS, asking for the server's client
	// certificate (mutual TLS), as the spec requires.
	id, err := webhook.DevIdentity(data)
	require.NoError(t, err)
	var received atomic.Int64
	receiver, receiverCA := mtlsReceiver(t, id.CAPEM, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		received.Add(1)
		w.WriteHeader(http.StatusOK)
	})

	addr, _, stop := serveEnv(t, data, map[string]string{"TAMBUA_MODELS": models}, "--demo=false", "--allow-private-webhooks")
	defer stop()
	base := "http://" + addr

	ctx := headlessChrome(t, chrome, 6*time.Minute)

	type step = chromedp.Action[chromedp.Void]
	runIn := func(c context.Context, what string, actions ...step) {
		t.Helper()
		start := time.Now()
		// One step may take a minute (the checks run on a shared machine):
		// a step that waits for what never comes fails alone.
		sc, cancel := context.WithTimeout(c, time.Minute)
		defer cancel()
		require.NoError(t, chromedp.Do(sc, actions...), what)
		if d := time.Since(start); d > 5*time.Second {
			t.Logf("%s took %v", what, d.Round(time.Millisecond))
		}
	}
	run := func(what string, actions ...step) {
		t.Helper()
		runIn(ctx, what, actions...)
	}
	// until waits for a condition on the page, in JavaScript: after a
	// click that loads another page, the old page may still be there.
	until := func(c context.Context, what, cond string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			// An evaluation that meets the navigation fails: try again.
			ok, err := chromedp.Run(c, chromedp.Evaluate[bool](cond))
			if err == nil && ok {
				return
			}
			require.True(t, time.Now().Before(deadline), "%s: %q still false (%v)", what, cond, err)
			time.Sleep(100 * time.Millisecond)
		}
	}
	notice := func(c context.Context, what, words string) {
		t.Helper()
		until(c, what, `(document.querySelector(".alert-ok") || {textContent: ""}).textContent.includes(`+strconv.Quote(words)+`)`)
	}
	get := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		require.NoError(t, err, what)
		return v
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	// A laptop's window; the new headless mode ignores --window-size.
	desktop := chromedp.EmulateViewport(1280, 900)
	// The first run opens the tab and binds it to ctx (not to a step's
	// shorter context).
	require.NoError(t, chromedp.Do(ctx, desktop))
	// The console asks before destructive actions (confirm()); the test
	// says yes, as a user would, and counts the prompts.
	var prompts atomic.Int64
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			prompts.Add(1)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	n := 0
	// shotIn checks the page's controls are named and saves it whole.
	shotIn := func(c context.Context, name string) {
		t.Helper()
		bad, err := chromedp.Run(c, chromedp.Evaluate[[]string](a11yScript))
		require.NoError(t, err)
		assert.Empty(t, bad, "controls without an accessible name on %s", name)
		png, err := chromedp.Run(c, chromedp.FullScreenshot(100))
		require.NoError(t, err, "screenshot "+name)
		n++
		require.NoError(t, os.WriteFile(filepath.Join(shots, fmt.Sprintf("%02d-%s.png", n, name)), png, 0o644))
	}
	shot := func(name string) {
		t.Helper()
		shotIn(ctx, name)
	}
	// phone opens a page in a phone's window (375 px, touch, overlay
	// scrollbars), checks its controls are named and nothing sticks out,
	// and saves the first screen.
	phone := func(name, path string) {
		t.Helper()
		run("phone "+name, chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
			chromedp.Navigate(base+path), chromedp.WaitReady(css("main")))
		over, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowScript))
		require.NoError(t, err)
		assert.Empty(t, over, "%s is wider than 375 px", name)
		bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](a11yScript))
		require.NoError(t, err)
		assert.Empty(t, bad, "controls without an accessible name on %s at 375 px", name)
		// The viewport only: a full-page capture also spans the hidden
		// overflow of scrolling tables.
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		n++
		require.NoError(t, os.WriteFile(filepath.Join(shots, fmt.Sprintf("%02d-%s-375px.png", n, name)), png, 0o644))
		run("desktop", desktop)
	}
	text := func(sel string) string {
		t.Helper()
		return get("read "+sel, chromedp.Text(css(sel)))
	}
	const email, password = "founder@acme.example", "a long enough password"

	// Sign up: the code comes from the local mailbox.
	phone("signup", "/console/signup")
	run("signup", chromedp.Navigate(base+"/console/signup"), chromedp.WaitVisible(css("#email")))
	shot("signup")
	run("send code", chromedp.SendKeys(css("#email"), email), chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css("#code")))
	run("details", chromedp.SendKeys(css("#code"), latestCode(t, data)), chromedp.SendKeys(css("#name"), "Amina Otieno"),
		chromedp.SendKeys(css("#password"), password), chromedp.SendKeys(css("#organisation"), `Acme <script>alert(1)</script> Ltd`),
		chromedp.SendKeys(css("#registration_number"), "PVT-2026-<b>7</b>"), chromedp.SendKeys(css("#industry"), "Digital lending"),
		chromedp.SetValue(css("#monthly_volume"), "1,000 to 10,000"))
	shot("signup-verify")
	run("create account", chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css("#va-front")))
	shot("signup-identity")

	// The admin's own verification, the last step of sign-up: the same
	// captures through the server's engine, not billed.
	run("verify admin", chromedp.SetUploadFiles(css("#va-front"), []string{files["front"]}), chromedp.SetUploadFiles(css("#va-back"), []string{files["back"]}),
		chromedp.SetUploadFiles(css("#va-selfie"), []string{files["selfie"]}), chromedp.SetValue(css("#va-config"), "kenya_national_id"),
		chromedp.Click(css(".form-actions button")), chromedp.WaitVisible(css("#admin-checks")))
	verdict := text("#admin-verdict")
	assert.Contains(t, []string{"Accept", "Review", "Reject"}, verdict)
	assert.Contains(t, text("#admin-checks"), "ocr_extraction")
	shot("signup-identity-result")
	if verdict != "Accept" {
		// What an operator does on review (docs/console.md).
		require.Equal(t, ExitOK, Run(context.Background(), cliEnv(), []string{"org", "approve-admin", "--data", data, "--org", "1"}))
	}
	run("continue", chromedp.Click(css("#verify-continue")), chromedp.WaitVisible(css(`form[action="/console/security/totp"]`)))
	shot("welcome")

	// TOTP enrolment: the key is read off the page, as an app would scan it.
	run("enrol", chromedp.Click(css(`form[action="/console/security/totp"] button`)), chromedp.WaitVisible(css("#totp-secret")))
	shot("totp-enrol")
	secret := strings.TrimSpace(text("#totp-secret"))
	code, err := totp.GenerateCode(secret, time.Now())
	require.NoError(t, err)
	run("confirm", chromedp.SendKeys(css("#code"), code), chromedp.Click(css(`form[action="/console/security/totp/confirm"] button`)), chromedp.WaitVisible(css(".codes")))
	shot("recovery-codes")
	recovery := text(".codes li:first-child code")

	// Sign out, then in with the password and a code (the next 30 s step:
	// the one that confirmed enrolment cannot be used again).
	run("signout", chromedp.Click(css(`form[action="/console/signout"] button`)), chromedp.WaitVisible(css("#password")))
	shot("signin")
	run("password", chromedp.SendKeys(css("#email"), email), chromedp.SendKeys(css("#password"), password),
		chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css("#code")))
	shot("signin-code")
	code, err = totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	require.NoError(t, err)
	run("code", chromedp.SendKeys(css("#code"), code), chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css(".stats")))
	assert.Contains(t, text(".lead"), "<script>", "the organisation name is shown as text")
	assert.Contains(t, text("#admin-verification"), "Accept")
	shot("overview")

	// An API client; its secret is shown once.
	run("clients", chromedp.Navigate(base+"/console/clients"), chromedp.WaitVisible(css("#client-name")),
		chromedp.SendKeys(css("#client-name"), "Production backend"), chromedp.Click(css(`form[action="/console/clients"] button`)),
		chromedp.WaitVisible(css("#new-client-secret")))
	clientID, clientSecret := text("#new-client-id"), text("#new-client-secret")
	require.NotEmpty(t, clientSecret)
	shot("client-created")
	run("clients again", chromedp.Navigate(base+"/console/clients"), chromedp.WaitVisible(css("table")))
	html := get("clients html", chromedp.OuterHTML(css("html")))
	assert.NotContains(t, html, clientSecret, "the secret is never shown again")
	assert.Contains(t, html, clientID)
	// A second client: deactivate (after a prompt), activate, rotate.
	run("staging client", chromedp.SendKeys(css("#client-name"), "Staging"), chromedp.Click(css(`form[action="/console/clients"] button`)),
		chromedp.WaitVisible(css("#new-client-secret")))
	stagingSecret := text("#new-client-secret")
	run("deactivate", chromedp.Navigate(base+"/console/clients"), chromedp.WaitVisible(css(`button[aria-label="Deactivate Staging"]`)),
		chromedp.Click(css(`button[aria-label="Deactivate Staging"]`)))
	notice(ctx, "deactivated", "Client deactivated")
	assert.EqualValues(t, 1, prompts.Load(), "deactivation asks first")
	run("activate client", chromedp.Click(css(`button[aria-label="Activate Staging"]`)))
	notice(ctx, "activated", "Client activated")
	run("rotate", chromedp.Click(css(`button[aria-label="Rotate the secret of Staging"]`)), chromedp.WaitVisible(css("#new-client-secret")))
	assert.NotEqual(t, stagingSecret, text("#new-client-secret"), "a new secret, shown once")
	shot("client-rotated")

	// A workflow: a wrong secret is refused with the spec's message, then
	// the right one creates it.
	fill := func(secret string) step {
		return chromedp.Steps(
			chromedp.Navigate(base+"/console/workflows/new"), chromedp.WaitVisible(css("#wf-name")),
			chromedp.SetValue(css("#wf-client"), clientID), chromedp.SendKeys(css("#wf-secret"), secret), chromedp.SendKeys(css("#wf-name"), "Customer onboarding"),
			chromedp.Click(css(`input[name=document_types][value=kenya_national_id]`)),
			chromedp.Click(css(`input[name=check_face_matching]`)),
		)
	}
	run("workflow wrong secret", fill("not-the-secret"), chromedp.Click(css(".form-actions button[type=submit]")), chromedp.WaitVisible(css(".alert-error")))
	assert.Equal(t, "Invalid client secret", strings.TrimSpace(text(".alert-error")))
	shot("workflow-refused")
	run("workflow", fill(clientSecret), chromedp.Click(css(".form-actions button[type=submit]")), chromedp.WaitVisible(css(`a[href$="/test"]`)))
	shot("workflow")
	wfURL := get("url", chromedp.Location())
	wfID := strings.TrimPrefix(strings.SplitN(wfURL, "?", 2)[0], base+"/console/workflows/")
	run("sdk token", chromedp.Click(css(`form[action$="/sdk-token"] button`)), chromedp.WaitVisible(css("#sdk-token")))
	assert.Len(t, strings.Split(get("token", chromedp.Value(css("#sdk-token"))), "."), 3, "a JWT")

	// The operator tops up, as in production (tambua units add).
	require.Equal(t, ExitOK, Run(context.Background(), cliEnv(), []string{"units", "add", "--data", data, "--org", "1", "100"}))

	// A test verification of the synthetic captures.
	run("test", chromedp.Navigate(base+"/console/workflows/"+wfID+"/test"), chromedp.WaitVisible(css("#t-front")),
		chromedp.SetUploadFiles(css("#t-front"), []string{files["front"]}), chromedp.SetUploadFiles(css("#t-back"), []string{files["back"]}),
		chromedp.SetUploadFiles(css("#t-selfie"), []string{files["selfie"]}), chromedp.Click(css(".form-actions button")),
		chromedp.WaitVisible(css("#verdict")))
	assert.Equal(t, "5", text("#units-consumed"), "OCR 2 + face matching 3")
	assert.Contains(t, []string{"accept", "review", "reject"}, text("#verdict"))
	assert.Contains(t, text("#fields"), "national_id_number")
	shot("test-result")
	run("units", chromedp.Navigate(base+"/console/units"), chromedp.WaitVisible(css("#balance")))
	assert.Equal(t, "95", text("#balance"))
	shot("units")
	run("members", chromedp.Navigate(base+"/console/members"), chromedp.WaitVisible(css("#invite-email")),
		chromedp.SendKeys(css("#invite-email"), "dev@acme.example"), chromedp.SetValue(css("#invite-role"), "developer"),
		chromedp.Click(css(`form[action="/console/members"] button`)), chromedp.WaitVisible(css(".alert-ok")))
	shot("members")

	// A webhook to the local HTTPS receiver: create, validate, activate,
	// test, logs, CSV.
	run("webhook new", chromedp.Navigate(base+"/console/webhooks/new"), chromedp.WaitVisible(css("#wh-name")),
		chromedp.SendKeys(css("#wh-name"), "Backend <i>events</i>"), chromedp.SendKeys(css("#wh-url"), receiver.URL+"/hooks"),
		chromedp.SetValue(css("#wh-ca"), receiverCA), chromedp.SendKeys(css("#wh-secret"), "whsec-e2e"),
		chromedp.Click(css(`input[name=events][value="verification.completed"]`)), chromedp.Click(css(`input[name=events][value="workflow.updated"]`)))
	shot("webhook-new")
	run("webhook create", chromedp.Click(css(".form-actions button[type=submit]")), chromedp.WaitVisible(css(`button[value=validate]`)))
	whURL := strings.SplitN(get("url", chromedp.Location()), "?", 2)[0]
	run("validate", chromedp.Click(css(`button[value=validate]`)), chromedp.WaitVisible(css("#handshake")))
	assert.Equal(t, "ok", text("#handshake"))
	shot("webhook-validated")
	run("activate", chromedp.Click(css(`button[value=activate]`)), chromedp.WaitVisible(css(`button[value=pause]`)))
	run("test event", chromedp.SetValue(css("#test-event"), "verification.completed"), chromedp.Click(css(`button[value=test]`)), chromedp.WaitVisible(css("#test-outcome")))
	assert.Equal(t, "success", text("#test-outcome"))
	assert.GreaterOrEqual(t, received.Load(), int64(1))
	shot("webhook-tested")
	whPath := strings.TrimPrefix(whURL, base)
	run("pause", chromedp.Click(css(`button[value=pause]`)))
	notice(ctx, "paused", "Webhook paused")
	run("resume", chromedp.Click(css(`button[value=resume]`)))
	notice(ctx, "resumed", "Webhook resumed")
	run("edit webhook", chromedp.Click(css("details.card > summary")), chromedp.WaitVisible(css("#wh-name")),
		chromedp.SetValue(css("#wh-name"), "Backend <i>events</i> v2"), chromedp.Click(css(`form[action="`+whPath+`"] .form-actions button`)))
	notice(ctx, "webhook saved", "Webhook saved")
	assert.Equal(t, "Backend <i>events</i> v2", text("h1"))

	// A real event: editing the workflow (thresholds, manual review,
	// metadata, SDK branding) sends workflow.updated, which the dispatcher
	// delivers and logs.
	wfForm := `form[action="/console/workflows/` + wfID + `"]`
	run("edit workflow", chromedp.Navigate(base+"/console/workflows/"+wfID), chromedp.WaitVisible(css("#wf-name")),
		chromedp.SetValue(css("#th-face_matching"), "0.8"), chromedp.SetValue(css("#wf-reviewer"), "review@acme.example"),
		chromedp.Click(css(wfForm+" details.card > summary")), chromedp.WaitVisible(css("#wf-metadata")),
		chromedp.SetValue(css("#wf-metadata"), "customer_ref: string"), chromedp.SetValue(css("#web-title"), "Acme onboarding"),
		chromedp.SetValue(css("#web-primary"), "#123456"))
	shot("workflow-edit")
	run("save workflow", chromedp.Click(css(wfForm+" .form-actions button")))
	notice(ctx, "workflow saved", "Workflow saved")
	saved, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/console/api/workflows/`+wfID+`").then(r => r.text())`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	for _, want := range []string{`"Acme onboarding"`, `"#123456"`, `customer_ref`, `review@acme.example`, `0.8`} {
		assert.Contains(t, saved, want)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		run("logs", chromedp.Navigate(whURL), chromedp.WaitVisible(css(".stats")))
		if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector("#logs")`)); ok {
			break
		}
		require.True(t, time.Now().Before(deadline), "no delivery logged")
		time.Sleep(500 * time.Millisecond)
	}
	shot("webhook-logs")
	csv, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('a[href*="logs.csv"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(csv, "timestamp,event_type,status"), csv)
	assert.Contains(t, csv, "workflow.updated")
	// The logs' filters: status and event type, a date range.
	today := time.Now().UTC().Format("2006-01-02")
	run("filter", chromedp.SetValue(css("#f-status"), "Success"), chromedp.SetValue(css("#f-event"), "workflow.updated"),
		chromedp.SetValue(css("#f-from"), today), chromedp.SetValue(css("#f-to"), today), chromedp.Click(css(".filters button[type=submit]")))
	until(ctx, "filtered", `location.search.includes("status=Success") && !!document.querySelector("#logs")`)
	run("filter out", chromedp.SetValue(css("#f-event"), "verification.failed"), chromedp.Click(css(".filters button[type=submit]")))
	until(ctx, "filtered out", `location.search.includes("verification.failed") && !document.querySelector("#logs")`)
	// The other type: a verification check webhook (criteria, no events).
	run("check webhook", chromedp.Navigate(base+"/console/webhooks/new"), chromedp.WaitVisible(css("#wh-type")))
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector("#wh-type"); s.value = "verification_check"; s.dispatchEvent(new Event("change")); return true })()`))
	require.NoError(t, err)
	run("check webhook form", chromedp.WaitVisible(css("#wh-min")), chromedp.SendKeys(css("#wh-name"), "Sanctions vendor"),
		chromedp.SendKeys(css("#wh-url"), receiver.URL+"/check"), chromedp.SetValue(css("#wh-ca"), receiverCA), chromedp.SetValue(css("#wh-min"), "0.7"))
	shot("webhook-new-check")
	run("check webhook create", chromedp.Click(css(".form-actions button[type=submit]")))
	until(ctx, "check webhook created", `document.querySelector("h1").textContent === "Sanctions vendor"`)
	assert.Contains(t, text(".toolbar"), "Verification check")
	run("webhooks", chromedp.Navigate(base+"/console/webhooks"), chromedp.WaitVisible(css("table")))
	assert.Contains(t, text("table"), "Sanctions vendor")
	shot("webhooks")

	// Units: the low-balance threshold.
	run("threshold", chromedp.Navigate(base+"/console/units"), chromedp.WaitVisible(css("#threshold")),
		chromedp.SetValue(css("#threshold"), "20"), chromedp.Click(css(`form[action="/console/units"] button`)))
	notice(ctx, "threshold", "Low-balance threshold saved")
	assert.Equal(t, "20", get("threshold", chromedp.Value(css("#threshold"))))

	// The invited developer joins in a browser of their own: no Members
	// page for them; removed by the admin, their session ends at once.
	dctx, cancelD := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancelD()
	require.NoError(t, chromedp.Do(dctx, desktop))
	runIn(dctx, "join", chromedp.Navigate(base+"/console/invite"), chromedp.WaitVisible(css("#code")),
		chromedp.SendKeys(css("#email"), "dev@acme.example"), chromedp.SendKeys(css("#code"), latestCode(t, data)),
		chromedp.SendKeys(css("#name"), "Dev One"), chromedp.SendKeys(css("#password"), "another long password"))
	shotIn(dctx, "invite")
	runIn(dctx, "join submit", chromedp.Click(css("form button[type=submit]")))
	until(dctx, "developer signed in", `location.pathname === "/console/overview" && !!document.querySelector(".stats")`)
	hasMembers, err := chromedp.Run(dctx, chromedp.Evaluate[bool](`!!document.querySelector('nav a[href="/console/members"]')`))
	require.NoError(t, err)
	assert.False(t, hasMembers, "no Members link for a developer")
	runIn(dctx, "members refused", chromedp.Navigate(base+"/console/members"), chromedp.WaitVisible(css("h1")))
	refused, err := chromedp.Run(dctx, chromedp.Text(css("h1")))
	require.NoError(t, err)
	assert.Equal(t, "Not allowed", refused)
	shotIn(dctx, "developer-refused")
	run("remove", chromedp.Navigate(base+"/console/members"), chromedp.WaitVisible(css(`button[aria-label="Remove dev@acme.example"]`)),
		chromedp.Click(css(`button[aria-label="Remove dev@acme.example"]`)))
	notice(ctx, "removed", "Member removed")
	runIn(dctx, "removed member", chromedp.Navigate(base+"/console/overview"))
	until(dctx, "signed out", `location.pathname === "/console/signin"`)
	cancelD()

	// Duplicate the workflow (the client secret again), then archive the
	// original with its confirmation, activate it, archive it again.
	run("duplicate", chromedp.Navigate(base+"/console/workflows/"+wfID+"/duplicate"), chromedp.WaitVisible(css("#dup-name")),
		chromedp.SetValue(css("#dup-name"), "Customer onboarding (copy)"), chromedp.SendKeys(css("#dup-secret"), clientSecret),
		chromedp.Click(css(".form-actions button[type=submit]")))
	until(ctx, "duplicated", `document.querySelector("h1").textContent === "Customer onboarding (copy)"`)
	archive := func() {
		t.Helper()
		run("archive", chromedp.Navigate(base+"/console/workflows/"+wfID+"/archive"), chromedp.WaitVisible(css(`input[name=confirm]`)))
		run("archive confirm", chromedp.Click(css(`input[name=confirm]`)), chromedp.Click(css(".form-actions button")))
		notice(ctx, "archived", "Workflow archived")
	}
	run("archive page", chromedp.Navigate(base+"/console/workflows/"+wfID+"/archive"), chromedp.WaitVisible(css(`input[name=confirm]`)))
	shot("workflow-archive")
	archive()
	run("activate workflow", chromedp.Click(css(`form[action$="/activate"] button`)))
	notice(ctx, "activated", "Workflow activated")
	archive()
	run("workflows", chromedp.Navigate(base+"/console/workflows"), chromedp.WaitVisible(css("table")))
	assert.Contains(t, text("table"), "Archived")
	shot("workflows")

	// Every signed-in page again in a phone's window.
	for _, p := range []struct{ name, path string }{
		{"overview", "/console/overview"}, {"clients", "/console/clients"}, {"workflows", "/console/workflows"},
		{"workflow-new", "/console/workflows/new"}, {"workflow", "/console/workflows/" + wfID}, {"workflow-test", "/console/workflows/" + wfID + "/test"},
		{"webhooks", "/console/webhooks"}, {"webhook", strings.TrimPrefix(whURL, base)}, {"units", "/console/units"},
		{"members", "/console/members"}, {"security", "/console/security"}, {"verify-admin", "/console/verify-admin"},
	} {
		phone(p.name, p.path)
	}

	// Delete the webhook, with its confirmation.
	run("delete webhook", chromedp.Navigate(whURL+"/delete"), chromedp.WaitVisible(css(`input[name=confirm]`)))
	shot("webhook-delete")
	run("delete confirm", chromedp.Click(css(`input[name=confirm]`)), chromedp.Click(css(".form-actions button")))
	notice(ctx, "deleted", "Webhook and its logs deleted")

	// Sign out, and in again with a recovery code in place of the app's.
	run("signout again", chromedp.Click(css(`form[action="/console/signout"] button`)), chromedp.WaitVisible(css("#password")),
		chromedp.SendKeys(css("#email"), email), chromedp.SendKeys(css("#password"), password),
		chromedp.Click(css("form button[type=submit]")), chromedp.WaitVisible(css("#code")),
		chromedp.SendKeys(css("#code"), recovery), chromedp.Click(css("form button[type=submit]")))
	until(ctx, "recovery code", `location.pathname === "/console/overview" && !!document.querySelector(".stats")`)
	t.Logf("screenshots in %s", shots)
}

// cliEnv is the environment of an operator's CLI command.
func cliEnv() *Env {
	return &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
}

// serveEnv runs tambua serve with environment variables until stop.
func serveEnv(t *testing.T, data string, vars map[string]string, extra ...string) (addr string, errb *syncBuf, stop func()) {
	t.Helper()
	addr = freeAddr(t)
	errb = &syncBuf{}
	env := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: errb, Getenv: func(k string) string { return vars[k] }}
	stop = startServe(t, env, http.DefaultClient, "http://"+addr, errb, 30*time.Second, append([]string{"serve", "--addr", addr, "--data", data}, extra...)...)
	return addr, errb, stop
}
