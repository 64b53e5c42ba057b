package server_test

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

func TestOAuthToken(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		form   url.Values
		ct     string
		basic  [2]string
		status int
		error  string
	}{
		{"success", url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}, "client_secret": {e.secret}}, "", [2]string{}, 200, ""},
		{"HTTP Basic credentials", url.Values{"grant_type": {"client_credentials"}}, "", [2]string{e.client.ID, e.secret}, 200, ""},
		{"wrong secret", url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}, "client_secret": {"nope"}}, "", [2]string{}, 401, "invalid_client"},
		{"unknown client", url.Values{"grant_type": {"client_credentials"}, "client_id": {idv.NewRequestID()}, "client_secret": {e.secret}}, "", [2]string{}, 401, "invalid_client"},
		{"missing grant_type", url.Values{"client_id": {e.client.ID}, "client_secret": {e.secret}}, "", [2]string{}, 400, "invalid_request"},
		{"other grant", url.Values{"grant_type": {"password"}, "client_id": {e.client.ID}, "client_secret": {e.secret}}, "", [2]string{}, 400, "unsupported_grant_type"},
		{"missing secret", url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}}, "", [2]string{}, 400, "invalid_request"},
		{"JSON body", nil, "application/json", [2]string{}, 400, "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := e.formRequest("/oauth/token", tc.form)
			if tc.ct != "" {
				req.Header.Set("Content-Type", tc.ct)
			}
			if tc.basic[0] != "" {
				req.SetBasicAuth(tc.basic[0], tc.basic[1])
			}
			r := e.do(req)
			assert.Equal(t, tc.status, r.status, string(r.body))
			if tc.status == 200 {
				assert.Equal(t, "Bearer", r.str("token_type"))
				assert.EqualValues(t, 3600, r.obj["expires_in"])
				assert.NotEmpty(t, r.str("access_token"))
			} else {
				assert.Equal(t, tc.error, r.str("error"))
			}
		})
	}
}

// TestTokenRateLimit is issue 14's second serious defect: one bucket per
// client, charged before the secret was checked and shared by every token
// path, let anyone who knew a client_id lock its owner out.
func TestTokenRateLimit(t *testing.T) {
	lim := server.DefaultLimits
	lim.TokenRate = 0.01
	lim.TokenBurst = 3
	e := newEnvWith(t, func(c *server.Config) {
		c.Limits = lim
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	from := func(addr string, v url.Values) response {
		req := e.formRequest("/oauth/token", v)
		req.Header.Set("X-Forwarded-For", addr)
		return e.do(req)
	}
	good := url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}, "client_secret": {e.secret}}
	bad := url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}, "client_secret": {"guess"}}

	// Successes are not charged.
	for i := range 10 {
		require.Equal(t, 200, from("198.51.100.7", good).status, "request %d", i)
	}
	// Failures are, per client and address.
	for i := range 3 {
		require.Equal(t, 401, from("203.0.113.9", bad).status, "guess %d", i)
	}
	r := from("203.0.113.9", bad)
	assert.Equal(t, 429, r.status)
	assert.NotEmpty(t, r.header.Get("Retry-After"))
	// The owner at another address is not locked out, on either path.
	assert.Equal(t, 200, from("198.51.100.7", good).status)
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/postdata", strings.NewReader(`{"rpcQueue":"idv-gateway-v2","menu":"auth_config","method":"generateAccessToken","client_id":"`+e.client.ID+`","client_secret":"`+e.secret+`"}`))
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	assert.Equal(t, 200, e.do(req).status)
	// IPv6 callers are keyed by /64: another address of the same /64 is
	// the same caller.
	for range 3 {
		from("2001:db8:1:2::5", bad)
	}
	assert.Equal(t, 429, from("2001:db8:1:2:ffff::9", bad).status)
	assert.Equal(t, 401, from("2001:db8:1:3::5", bad).status)

	// SDK refreshes: per workflow and address, so devices at other
	// addresses and the backend are not affected by one busy device.
	refresh := func(addr string) response {
		raw, _ := json.Marshal(envelope("auth_config", "refreshAccessToken", map[string]any{"refresh_token": e.wfOCR.RefreshToken}))
		req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/postdata", bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", addr)
		return e.do(req)
	}
	for i := range 3 {
		require.Equal(t, 200, refresh("192.0.2.1").status, "refresh %d", i)
	}
	assert.Equal(t, 429, refresh("192.0.2.1").status)
	assert.Equal(t, 200, refresh("192.0.2.2").status)
	assert.Equal(t, 200, from("198.51.100.7", good).status)

	// Spraying client ids does not escape: the address has a limit too
	// (five times the client's burst).
	limited := false
	for range 20 {
		r := from("203.0.113.50", url.Values{"grant_type": {"client_credentials"}, "client_id": {idv.NewRequestID()}, "client_secret": {"x"}})
		if r.status == 429 {
			limited = true
			break
		}
		require.Equal(t, 401, r.status)
	}
	assert.True(t, limited)
}

// TestForwardedForNeedsATrustedProxy: without configured proxies a caller
// cannot escape its limit by sending X-Forwarded-For.
func TestForwardedForNeedsATrustedProxy(t *testing.T) {
	lim := server.DefaultLimits
	lim.TokenRate = 0.01
	lim.TokenBurst = 3
	e := newEnv(t, lim)
	bad := url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}, "client_secret": {"guess"}}
	statuses := []int{}
	for i := range 5 {
		req := e.formRequest("/oauth/token", bad)
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
		statuses = append(statuses, e.do(req).status)
	}
	assert.Equal(t, []int{401, 401, 401, 429, 429}, statuses)
}

func envelope(menu, method string, fields map[string]any) map[string]any {
	m := map[string]any{"rpcQueue": "idv-gateway-v2", "menu": menu, "method": method}
	for k, v := range fields {
		m[k] = v
	}
	return m
}

func TestPostdataEnvelope(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		body   any
		status int
		code   int
	}{
		{"unknown rpcQueue", map[string]any{"rpcQueue": "other", "menu": "auth_config", "method": "generateAccessToken"}, 400, 101},
		{"unknown rpcQueue, no menu", map[string]any{"rpcQueue": "other"}, 400, 101},
		{"missing rpcQueue", map[string]any{"menu": "auth_config", "method": "generateAccessToken"}, 400, 102},
		{"missing menu", map[string]any{"rpcQueue": "idv-gateway-v2", "method": "generateAccessToken"}, 400, 102},
		{"missing method", map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "auth_config"}, 400, 102},
		{"method not a string", map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "auth_config", "method": 7}, 400, 102},
		{"unknown method", envelope("auth_config", "dropTables", nil), 400, 103},
		{"unknown menu", envelope("service-ai", "init", nil), 400, 103},
		{"not JSON", "rpcQueue=idv-gateway-v2", 400, 104},
		{"two objects", `{"rpcQueue":"idv-gateway-v2"} {}`, 400, 104},
		{"bad credentials", envelope("auth_config", "generateAccessToken", map[string]any{"client_id": e.client.ID, "client_secret": "x"}), 401, 401},
		{"credentials missing", envelope("auth_config", "generateAccessToken", nil), 400, 104},
		{"getWorkflowById without token", envelope("flow", "getWorkflowById", map[string]any{"work_flow_id": e.wfOCR.ID}), 401, 401},
		{"submitVerification without token", envelope("verification", "submitVerification", map[string]any{"payload": "x"}), 401, 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.postJSON("/postdata", "", tc.body)
			assert.Equal(t, tc.status, r.status, string(r.body))
			assert.Equal(t, tc.code, r.code(), string(r.body))
		})
	}
}

func TestPostdataTokensAndWorkflow(t *testing.T) {
	e := newEnv(t)
	r := e.postJSON("/postdata", "", envelope("auth_config", "generateAccessToken", map[string]any{"client_id": e.client.ID, "client_secret": e.secret}))
	require.Equal(t, 200, r.status, string(r.body))
	access, refresh := r.str("access_token"), r.str("refresh_token")
	require.NotEmpty(t, access)
	require.NotEmpty(t, refresh)
	assert.EqualValues(t, e.org.ID, r.obj["organisation_id"])

	get := func(tok, id string) response {
		return e.postJSON("/postdata", tok, envelope("flow", "getWorkflowById", map[string]any{"work_flow_id": id}))
	}
	t.Run("getWorkflowById", func(t *testing.T) {
		r := get(access, e.wfFace.ID)
		require.Equal(t, 200, r.status, string(r.body))
		wf := r.obj["workflow"].(map[string]any)
		assert.Equal(t, e.wfFace.ID, wf["id"])
		assert.Equal(t, "OCR and face", wf["name"])
		assert.Equal(t, []any{
			map[string]any{"name": "ocr_extraction", "order": 1.0, "required": true},
			map[string]any{"name": "face_matching", "order": 2.0, "required": false},
		}, wf["steps"])
		assert.Equal(t, "Verify", wf["react_native_sdk_configs"].(map[string]any)["title"])
		assert.NotContains(t, wf, "web_sdk_configs")
	})
	t.Run("getWorkflowById refusals", func(t *testing.T) {
		assert.Equal(t, 404, get(access, idv.NewRequestID()).code())
		assert.Equal(t, 104, e.postJSON("/postdata", access, envelope("flow", "getWorkflowById", nil)).code())
		other, otherSecret, err := e.admin.CreateClient(context.Background(), e.org.ID, "other")
		require.NoError(t, err)
		assert.Equal(t, 404, get(e.tokenFor(other.ID, otherSecret), e.wfFace.ID).code(), "another client's workflow is invisible")
	})

	refreshWith := func(tok string, org any) response {
		f := map[string]any{"refresh_token": tok}
		if org != nil {
			f["organisation_id"] = org
		}
		return e.postJSON("/postdata", "", envelope("auth_config", "refreshAccessToken", f))
	}
	t.Run("organisation id is optional", func(t *testing.T) {
		r := refreshWith(refresh, nil)
		require.Equal(t, 200, r.status, string(r.body))
		r = e.postJSON("/postdata", "", envelope("auth_config", "refreshAccessToken",
			map[string]any{"refresh_token": refresh, "organisationId": e.org.ID + 1}))
		assert.Equal(t, 401, r.code(), "organisationId, when sent, must match the token")
	})
	t.Run("client refresh token", func(t *testing.T) {
		r := refreshWith(refresh, e.org.ID)
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, 200, get(r.str("access_token"), e.wfOCR.ID).status)
	})
	t.Run("workflow refresh token, SDK flow", func(t *testing.T) {
		// The SDK reads organisationId from its JWT: a string is accepted too.
		r := refreshWith(e.wfFace.RefreshToken, "1")
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, e.wfFace.ID, r.str("work_flow_id"))
		sdk := r.str("access_token")
		assert.Equal(t, 200, get(sdk, e.wfFace.ID).status)
		assert.Equal(t, 403, get(sdk, e.wfOCR.ID).code(), "scoped to its workflow")
		front, back := captures(t)
		up := e.upload(sdk, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
		assert.Equal(t, 403, up.code())
	})
	t.Run("refresh refusals", func(t *testing.T) {
		parts := strings.Split(e.wfFace.RefreshToken, ".")
		cases := []struct {
			name string
			tok  string
			org  any
			code int
		}{
			{"organisation_id not a number", e.wfFace.RefreshToken, "one", 104},
			{"other organisation", e.wfFace.RefreshToken, e.org.ID + 1, 401},
			{"access token as refresh token", access, e.org.ID, 401},
			{"bad signature", parts[0] + "." + parts[1] + ".AAAA" + parts[2][4:], e.org.ID, 401},
			{"alg none", mintToken(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType,
				jwt.MapClaims{"iss": "tambua", "sub": e.client.ID, "typ": "refresh", "org": e.org.ID, "wf": e.wfFace.ID}), e.org.ID, 401},
			{"validly signed but not the stored one", mintToken(t, jwt.SigningMethodHS256, e.keys().Token,
				jwt.MapClaims{"iss": "tambua", "sub": e.client.ID, "typ": "refresh", "org": e.org.ID, "wf": e.wfFace.ID}), e.org.ID, 401},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := refreshWith(tc.tok, tc.org)
				assert.Equal(t, tc.code, r.code(), string(r.body))
			})
		}
	})
	t.Run("archived workflow cannot refresh", func(t *testing.T) {
		_, err := e.admin.SetWorkflowStatus(context.Background(), e.wfFace.ID, idv.WorkflowArchived)
		require.NoError(t, err)
		defer e.admin.SetWorkflowStatus(context.Background(), e.wfFace.ID, idv.WorkflowActive)
		assert.Equal(t, 401, refreshWith(e.wfFace.RefreshToken, e.org.ID).code())
		assert.Equal(t, 404, get(access, e.wfFace.ID).code())
	})
}

func deflate(t *testing.T, v any) string {
	t.Helper()
	s, err := server.DeflatePayload(v)
	require.NoError(t, err)
	return s
}

func dataURL(b []byte) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
}

func TestSubmitVerificationAndV1Verify(t *testing.T) {
	lim := server.DefaultLimits
	lim.RequestBytes = 2 << 20 // a small limit keeps the deflate bomb cheap
	e := newEnv(t, lim)
	front, back := captures(t)
	tok := e.token()
	direct := func(extra map[string]any) map[string]any {
		m := map[string]any{"client_id": e.client.ID, "work_flow_id": e.wfFace.ID,
			"id_front_image_url": dataURL(front), "id_back_image_url": dataURL(back), "selfie_image_url": dataURL(front)}
		for k, v := range extra {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	t.Run("submitVerification", func(t *testing.T) {
		r := e.postJSON("/postdata", tok, envelope("verification", "submitVerification",
			map[string]any{"payload": deflate(t, direct(map[string]any{"request_id": "sdk-1", "session": "abc"}))}))
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, "accept", r.str("verification_decision"))
		assert.Equal(t, "kenya_national_id", r.str("config"), "the workflow's first document type")
		assert.Equal(t, "abc", r.str("session"))
		assert.Equal(t, "sdk-1", r.str("request_id"))
		images := r.obj["images"].(map[string]any)
		assert.Equal(t, front, e.get(images["selfie"].(string)).body)
		assert.NotContains(t, r.obj, "id_front_image_url", "the images are not echoed")
	})
	t.Run("v1/verify", func(t *testing.T) {
		r := e.postJSON("/v1/verify", tok, direct(map[string]any{"method": "process_idv", "config": "ke_passport"}))
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, "accept", r.str("verification_decision"))
		assert.Equal(t, "ke_passport", r.str("config"))
		assert.EqualValues(t, 5, r.obj["units_consumed"])
	})
	t.Run("v1/verify refuses a body declared as not JSON", func(t *testing.T) {
		raw, err := json.Marshal(direct(map[string]any{"method": "process_idv", "config": "ke_passport"}))
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, e.ts.URL+"/v1/verify", bytes.NewReader(raw))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "text/plain")
		before := e.balance()
		r := e.do(req)
		assert.Equal(t, 104, r.code())
		assert.Equal(t, before, e.balance(), "nothing billed")
	})
	bomb := func() string {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, 9)
		_, _ = w.Write([]byte(`{"a":"`))
		_, _ = w.Write(make([]byte, 3<<20))
		_ = w.Close()
		return base64.StdEncoding.EncodeToString(b.Bytes())
	}()
	cases := []struct {
		name  string
		path  string
		token string
		body  any
		code  int
	}{
		{"v1 no token", "/v1/verify", "", direct(map[string]any{"method": "process_idv"}), 401},
		{"v1 missing method", "/v1/verify", tok, direct(nil), 102},
		{"v1 other method", "/v1/verify", tok, direct(map[string]any{"method": "init"}), 103},
		{"v1 not JSON", "/v1/verify", tok, "{", 104},
		{"v1 not a data URL", "/v1/verify", tok, direct(map[string]any{"method": "process_idv", "id_front_image_url": "https://example.com/a.jpg"}), 104},
		{"v1 missing back", "/v1/verify", tok, direct(map[string]any{"method": "process_idv", "id_back_image_url": nil}), 104},
		{"v1 bad base64", "/v1/verify", tok, direct(map[string]any{"method": "process_idv", "id_back_image_url": "data:image/jpeg;base64,@@@@"}), 415},
		{"v1 not an image", "/v1/verify", tok, direct(map[string]any{"method": "process_idv", "id_back_image_url": dataURL([]byte("hello"))}), 415},
		{"v1 other client", "/v1/verify", tok, direct(map[string]any{"method": "process_idv", "client_id": idv.NewRequestID()}), 403},
		{"v1 unknown config", "/v1/verify", tok, direct(map[string]any{"method": "process_idv", "config": "nowhere_id"}), 422},
		{"submit no payload", "/postdata", tok, envelope("verification", "submitVerification", nil), 104},
		{"submit not base64", "/postdata", tok, envelope("verification", "submitVerification", map[string]any{"payload": "%%%"}), 104},
		{"submit not deflate", "/postdata", tok, envelope("verification", "submitVerification",
			map[string]any{"payload": base64.StdEncoding.EncodeToString([]byte("plain text, not deflate"))}), 104},
		{"submit deflate bomb", "/postdata", tok, envelope("verification", "submitVerification", map[string]any{"payload": bomb}), 413},
		{"submit payload not an object", "/postdata", tok, envelope("verification", "submitVerification", map[string]any{"payload": deflate(t, []int{1})}), 104},
	}
	before := e.balance()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.postJSON(tc.path, tc.token, tc.body)
			assert.Equal(t, tc.code, r.code(), string(r.body))
			assert.Equal(t, server.HTTPStatus(tc.code), r.status)
		})
	}
	assert.Equal(t, before, e.balance())
}

func TestHealthzAndMetrics(t *testing.T) {
	e := newEnvWith(t, func(c *server.Config) { c.MetricsToken = "metrics-secret-for-tests" })
	front, back := captures(t)
	r := e.get(e.ts.URL + "/healthz")
	assert.Equal(t, 200, r.status)
	assert.Equal(t, "ok", r.str("status"))
	up := e.upload(e.token(), e.uploadMessage(e.wfFace, nil), part{"front", front}, part{"back", back}, part{"selfie", front})
	require.Equal(t, 200, up.status)
	e.upload("", e.uploadMessage(e.wfFace, nil))
	m := string(e.metrics("metrics-secret-for-tests").body)
	for _, want := range []string{
		`tambua_http_requests_total{code="200",endpoint="upload"} 1`,
		`tambua_http_requests_total{code="401",endpoint="upload"} 1`,
		`tambua_http_requests_total{code="200",endpoint="oauth_token"} 1`,
		`tambua_verifications_total{verdict="accept"} 1`,
		`tambua_check_duration_seconds_count{check="face_matching",status="passed"} 1`,
		`tambua_check_duration_seconds_count{check="ocr_extraction",status="passed"} 1`,
		`tambua_http_request_duration_seconds_bucket{endpoint="upload",le="+Inf"} 2`,
	} {
		assert.Contains(t, m, want)
	}
	assert.NotContains(t, m, e.secret)
}

// TestLogsKeepSecrets runs every credential and image through the server
// and checks the JSON log lines name requests without leaking them.
func TestLogsKeepSecrets(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	gen := e.postJSON("/postdata", "", envelope("auth_config", "generateAccessToken", map[string]any{"client_id": e.client.ID, "client_secret": e.secret}))
	require.Equal(t, 200, gen.status)
	tok := gen.str("access_token")
	ref := e.postJSON("/postdata", "", envelope("auth_config", "refreshAccessToken", map[string]any{"refresh_token": e.wfOCR.RefreshToken, "organisation_id": e.org.ID}))
	require.Equal(t, 200, ref.status)
	req := e.uploadRequest(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
	req.Header.Set("X-Request-Id", "trace-123")
	up := e.do(req)
	require.Equal(t, 200, up.status)
	assert.Equal(t, "trace-123", up.header.Get("X-Request-Id"))
	u := up.obj["images"].(map[string]any)["front_id"].(string)
	require.Equal(t, 200, e.get(u).status)
	e.get(e.ts.URL + "/nowhere?token=" + tok)

	logs := e.logs.String()
	sig := strings.Split(strings.TrimPrefix(u, e.ts.URL+"/files/"), "/")[1]
	for name, secret := range map[string]string{"client secret": e.secret, "access token": tok, "refresh token": e.wfOCR.RefreshToken,
		"minted access token": ref.str("access_token"), "file signature": sig, "image bytes": string(front[:64])} {
		assert.NotContains(t, logs, secret, name)
	}
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	require.NotEmpty(t, lines)
	sawTrace := false
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		assert.NotEmpty(t, m["request_id"], l)
		sawTrace = sawTrace || m["request_id"] == "trace-123"
	}
	assert.True(t, sawTrace)
	assert.Contains(t, logs, `"msg":"verification"`)
}

func TestCORSForTheWebSDK(t *testing.T) {
	e := newEnvWith(t, func(c *server.Config) { c.CORSOrigins = []string{"https://app.example.com"} })
	preflight := func(path, origin string) response {
		req, _ := http.NewRequest(http.MethodOptions, e.ts.URL+path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		return e.do(req)
	}
	r := preflight("/postdata", "https://app.example.com")
	assert.Equal(t, 204, r.status)
	assert.Equal(t, "https://app.example.com", r.header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, r.header.Get("Access-Control-Allow-Headers"), "Authorization")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Credentials"))

	r = preflight("/postdata", "https://evil.example.com")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
	r = preflight("/oauth/token", "https://app.example.com")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"), "no secrets from browsers")

	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/postdata", strings.NewReader(`{"rpcQueue":"x"}`))
	req.Header.Set("Origin", "https://app.example.com")
	r = e.do(req)
	assert.Equal(t, 101, r.code())
	assert.Equal(t, "https://app.example.com", r.header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, r.header.Get("Access-Control-Expose-Headers"), "X-Request-Id")

	plain := newEnv(t)
	req, _ = http.NewRequest(http.MethodOptions, plain.ts.URL+"/postdata", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	r = plain.do(req)
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"), "no CORS unless configured")
}
