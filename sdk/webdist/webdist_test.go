package webdist

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMount(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})
	h := Mount(api)
	tests := []struct {
		name, method, path string
		status             int
		ctype, cors, csp   string
		body               []byte
	}{
		{"classic script", "GET", "/sdk/web.js", 200, "text/javascript; charset=utf-8", "*", "", script},
		{"module", "GET", "/sdk/web.mjs", 200, "text/javascript; charset=utf-8", "*", "", module},
		{"demo page", "GET", "/demo", 200, "text/html; charset=utf-8", "", demoCSP, demoPage},
		{"demo page, trailing slash", "GET", "/demo/", 200, "text/html; charset=utf-8", "", demoCSP, demoPage},
		{"demo script", "GET", "/demo/demo.js", 200, "text/javascript; charset=utf-8", "", "", demoScript},
		{"hand-off page", "GET", "/handoff", 200, "text/html; charset=utf-8", "", demoCSP, handoffPage},
		{"hand-off script", "GET", "/handoff/handoff.js", 200, "text/javascript; charset=utf-8", "", "", handoffScript},
		{"head", "HEAD", "/sdk/web.js", 200, "text/javascript; charset=utf-8", "*", "", nil},
		{"post to an asset", "POST", "/sdk/web.js", 405, "", "", "", nil},
		{"other paths go to the API", "POST", "/postdata", 418, "", "", "", nil},
		{"no listing under /sdk", "GET", "/sdk/", 418, "", "", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d", rec.Code, tc.status)
			}
			if tc.status != 200 {
				return
			}
			hd := rec.Header()
			if got := hd.Get("Content-Type"); got != tc.ctype {
				t.Errorf("Content-Type %q, want %q", got, tc.ctype)
			}
			if got := hd.Get("Access-Control-Allow-Origin"); got != tc.cors {
				t.Errorf("CORS %q, want %q", got, tc.cors)
			}
			if got := hd.Get("Content-Security-Policy"); got != tc.csp {
				t.Errorf("CSP %q, want %q", got, tc.csp)
			}
			if hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("ETag") == "" {
				t.Errorf("missing nosniff or ETag: %v", hd)
			}
			if !bytes.Equal(rec.Body.Bytes(), tc.body) {
				t.Errorf("body of %d bytes, want %d", rec.Body.Len(), len(tc.body))
			}
		})
	}
}

func TestNotModified(t *testing.T) {
	h := Mount(http.NotFoundHandler())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/sdk/web.js", nil))
	etag := rec.Header().Get("ETag")
	req := httptest.NewRequest("GET", "/sdk/web.js", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Fatalf("status %d with %d bytes, want 304 and none", rec.Code, rec.Body.Len())
	}
}

// The committed bundle is the web SDK and within its budget; sdk/build.mjs
// --check (scripts/test.sh) proves it is a fresh build of sdk/web.
func TestScriptIsTheBundle(t *testing.T) {
	if !bytes.HasPrefix(Script(), []byte("/* Tambua web SDK")) || !bytes.Contains(Script(), []byte("TambuaVerification")) {
		t.Fatal("tambua-web.js is not the web SDK's classic-script build")
	}
}
