package server

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tambua/tambua/server/store"
)

// FuzzConsoleForms feeds arbitrary form bodies to the parsers of the
// workflow and webhook forms: they return a definition or an error, never
// panic, and what they return is then validated by the service code.
func FuzzConsoleForms(f *testing.F) {
	f.Add("name=abc&document_types=kenya_national_id&check_face_matching=on&threshold_face_matching=0.8&metadata=ref%3A+string")
	f.Add("metadata=no-colon&webhook_url=https%3A%2F%2Fx&webhook_events=a%2Cb%2C%2C")
	f.Add("threshold_face_matching=NaN&threshold_liveness_detection=1e309&web_title=%3Cb%3E&rn_primary=%23fff")
	f.Add("type=verification_check&min_threshold=0.5&headers=%23X-A%3A+b%0AX-B%3A+c&events=a")
	f.Add("headers=no-colon&min_threshold=x")
	f.Fuzz(func(t *testing.T, body string) {
		v, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		if def, err := parseWorkflowForm(v); err == nil {
			_ = def.Validate()
		}
		_, _ = parseWebhookForm(v, true)
		_, _ = parseWebhookForm(v, false)
		_ = safeNext(v.Get("next"))
	})
}

// FuzzConsoleText checks the email and text field rules: a normalised
// email is one plain lower-case address, a cleaned text is one line.
func FuzzConsoleText(f *testing.F) {
	for _, s := range []string{"a@b.example", "A@B.EXAMPLE", "Bob <b@x.example>", "a@b\r\nBcc: c@d", "", " x@y.z ", "\x00@x", "<script>@x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e := NormaliseEmail(s); e != "" {
			if e != strings.ToLower(e) || strings.ContainsAny(e, " <>\r\n\t") || !strings.Contains(e, "@") {
				t.Fatalf("NormaliseEmail(%q) = %q", s, e)
			}
		}
		if c, err := cleanText("f", s, 0, 255); err == nil && strings.ContainsAny(c, "\r\n\x00") {
			t.Fatalf("cleanText(%q) = %q", s, c)
		}
		if n := safeNext(s); !strings.HasPrefix(n, "/console/") || strings.HasPrefix(n, "//") {
			t.Fatalf("safeNext(%q) = %q", s, n)
		}
	})
}

// FuzzConsoleSession: an arbitrary cookie value is never a session, and
// never a panic.
func FuzzConsoleSession(f *testing.F) {
	acc := newAccounts(nil, nil, nil, []byte(strings.Repeat("k", 32)), time.Now, nil)
	u := store.User{ID: "u1", OrganisationID: 1}
	mfa, _ := acc.mfaToken(u)
	f.Add(mfa)
	f.Add("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1MSJ9.")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, raw string) {
		if c, err := acc.parseJWT(raw, "console"); err == nil {
			t.Fatalf("accepted %q as a session: %+v", raw, c)
		}
		_, _ = acc.parseJWT(raw, "console_mfa")
	})
}

// FuzzConsoleUpload feeds arbitrary multipart bodies to the reader of the
// test verification and admin verification uploads: a refusal with a
// documented code, or files within the limits, front first.
func FuzzConsoleUpload(f *testing.F) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, slot := range []string{"front", "back", "selfie"} {
		w, _ := mw.CreateFormFile(slot, slot+".jpg")
		w.Write([]byte("\xff\xd8\xff" + slot))
	}
	mw.WriteField("config", "kenya_national_id")
	mw.Close()
	f.Add(mw.Boundary(), b.Bytes())
	f.Add("x", []byte("--x\r\nContent-Disposition: form-data; name=\"selfie\"; filename=\"s\"\r\n\r\nabc\r\n--x--\r\n"))
	f.Add("x", []byte("--x\r\nContent-Disposition: form-data; name=\"front\"; filename=\"f\"\r\n\r\n"))
	f.Add("", []byte("not multipart"))
	lim := DefaultLimits
	lim.FileBytes, lim.RequestBytes = 64, 512 // small, so the fuzzer reaches them
	c := &console{s: &Server{cfg: Config{Limits: lim}}}
	f.Fuzz(func(t *testing.T, boundary string, body []byte) {
		req := httptest.NewRequest("POST", "/console/api/organisation/verify-admin", bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		tf, aerr := c.readTestForm(httptest.NewRecorder(), req)
		if aerr != nil {
			if st := HTTPStatus(aerr.Code); st != http.StatusBadRequest && st != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d: %s", st, aerr.Message)
			}
			return
		}
		if len(tf.files) == 0 || tf.files[0].slot != "front" {
			t.Fatalf("files %+v", tf.files)
		}
		for _, fl := range tf.files {
			if len(fl.data) == 0 || int64(len(fl.data)) > lim.FileBytes {
				t.Fatalf("%s: %d bytes", fl.slot, len(fl.data))
			}
		}
	})
}
