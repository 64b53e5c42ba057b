// Package webdist serves the web SDK that sdk/build.mjs builds from
// sdk/web (the committed tambua-web.js and tambua-web.mjs) and the demo
// page that runs it, from files embedded in the binary.
//
// Mount puts them in front of the API handler:
//
//	GET /sdk/web.js   the SDK as one classic script (global TambuaVerification)
//	GET /sdk/web.mjs  the same as an ES module
//	GET /demo         a page that runs the SDK against a chosen workflow
//	GET /handoff      the page a phone opens from a hand-off QR code (docs/sdk.md)
package webdist

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strings"
)

var (
	//go:embed tambua-web.js
	script []byte
	//go:embed tambua-web.mjs
	module []byte
	//go:embed demo.html
	demoPage []byte
	//go:embed demo.js
	demoScript []byte
	//go:embed handoff.html
	handoffPage []byte
	//go:embed handoff.js
	handoffScript []byte
)

// Script is the classic-script build of the web SDK.
func Script() []byte { return script }

type asset struct {
	body  []byte
	ctype string
	etag  string
	csp   string
}

func newAsset(body []byte, ctype, csp string) asset {
	sum := sha256.Sum256(body)
	return asset{body: body, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, csp: csp}
}

// demoCSP lets the demo page run only this server's scripts and talk only
// to this server; the SDK's styles are a <style> element it writes, and
// captures are data: URLs.
const demoCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

var assets = map[string]asset{
	"/sdk/web.js":   newAsset(script, "text/javascript; charset=utf-8", ""),
	"/sdk/web.mjs":  newAsset(module, "text/javascript; charset=utf-8", ""),
	"/demo":         newAsset(demoPage, "text/html; charset=utf-8", demoCSP),
	"/demo/demo.js": newAsset(demoScript, "text/javascript; charset=utf-8", ""),
	// The hand-off page: the same policy as the demo's; its token is in
	// the fragment, and no-referrer keeps even the path to itself.
	"/handoff":            newAsset(handoffPage, "text/html; charset=utf-8", demoCSP),
	"/handoff/handoff.js": newAsset(handoffScript, "text/javascript; charset=utf-8", ""),
}

// Mount serves the SDK and the demo, and hands every other request to api.
func Mount(api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets[strings.TrimSuffix(r.URL.Path, "/")]
		if !ok {
			api.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", a.etag)
		// Short: a new binary's SDK reaches pages within minutes; the
		// ETag makes the check cheap.
		h.Set("Cache-Control", "public, max-age=300")
		if strings.HasPrefix(r.URL.Path, "/sdk/") {
			// Pages on customers' origins load the script.
			h.Set("Access-Control-Allow-Origin", "*")
			h.Set("Cross-Origin-Resource-Policy", "cross-origin")
		}
		if a.csp != "" {
			h.Set("Content-Security-Policy", a.csp)
			h.Set("Referrer-Policy", "no-referrer")
			// The camera for this page only.
			h.Set("Permissions-Policy", "camera=(self)")
		}
		if r.Header.Get("If-None-Match") == a.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(a.body)
	})
}
