package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

const shopOrigin = "https://shop.example.com"

// webWorkflow creates an OCR and face workflow whose web SDK settings
// allow shopOrigin.
func (e *env) webWorkflow(name string) server.Workflow {
	e.t.Helper()
	def := idv.Workflow{Name: name, DocumentTypes: []string{"kenya_national_id", "ke_passport"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckFace}},
		WebSDK: &idv.SDKConfig{Title: "Shop", AllowedOrigins: []string{shopOrigin + "/"}}}
	w, err := e.admin.CreateWorkflow(context.Background(), e.client.ID, e.secret, def)
	must(e.t, err)
	return w
}

// postFrom posts an envelope to /postdata with an Origin header (none
// when origin is empty) and a Bearer token (none when empty).
func (e *env) postFrom(origin, token string, body any) response {
	e.t.Helper()
	raw, err := json.Marshal(body)
	must(e.t, err)
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+"/postdata", bytes.NewReader(raw))
	must(e.t, err)
	req.Header.Set("Content-Type", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.do(req)
}

// sdkClaims decodes the SDK JWT's claims (the SDK reads them unverified,
// as here).
func sdkClaims(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	require.Len(t, parts, 3)
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var c map[string]any
	require.NoError(t, json.Unmarshal(raw, &c))
	return c
}

func issue(e *env, origin string, wf server.Workflow) response {
	return e.postFrom(origin, "", envelope("auth_config", "issueSdkToken",
		map[string]any{"client_id": e.client.ID, "work_flow_id": wf.ID}))
}

// refreshSession exchanges an SDK token's refresh token as the SDK does.
func refreshSession(e *env, sdk string) response {
	c := sdkClaims(e.t.(*testing.T), sdk)
	return e.postFrom(shopOrigin, "", envelope("auth_config", "refreshAccessToken",
		map[string]any{"refresh_token": c["refresh_token"], "organisationId": c["organisationId"]}))
}

func TestIssueSDKTokenFlow(t *testing.T) {
	e := newEnv(t)
	wf := e.webWorkflow("Web shop")
	r := issue(e, shopOrigin, wf)
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "SDK", r.str("token_type"))
	assert.EqualValues(t, 1800, r.obj["expires_in"])
	c := sdkClaims(t, r.str("sdk_token"))
	for _, k := range []string{"workflowId", "clientId", "organisationId", "apiUrl", "refresh_token", "config", "iat", "exp"} {
		assert.Contains(t, c, k)
	}
	assert.Equal(t, wf.ID, c["workflowId"])
	assert.Equal(t, e.client.ID, c["clientId"])
	assert.EqualValues(t, e.org.ID, c["organisationId"])
	assert.Equal(t, e.ts.URL+"/postdata", c["apiUrl"])
	assert.NotEqual(t, wf.RefreshToken, c["refresh_token"], "the workflow's own refresh token never reaches a browser")
	assert.EqualValues(t, 1800, c["exp"].(float64)-c["iat"].(float64))

	ref := refreshSession(e, r.str("sdk_token"))
	require.Equal(t, 200, ref.status, string(ref.body))
	assert.Equal(t, wf.ID, ref.str("work_flow_id"))
	assert.LessOrEqual(t, ref.obj["expires_in"].(float64), 1800.0, "a session's access token ends with the session")
	access := ref.str("access_token")

	got := e.postFrom(shopOrigin, access, envelope("flow", "getWorkflowById", map[string]any{"work_flow_id": wf.ID}))
	require.Equal(t, 200, got.status, string(got.body))
	other := e.postFrom(shopOrigin, access, envelope("flow", "getWorkflowById", map[string]any{"work_flow_id": e.wfFace.ID}))
	assert.Equal(t, 403, other.code(), "scoped to its workflow")

	front, back := captures(t)
	submit := func(requestID string) response {
		return e.postFrom(shopOrigin, access, envelope("verification", "submitVerification", map[string]any{"payload": deflate(t, map[string]any{
			"client_id": e.client.ID, "work_flow_id": wf.ID, "request_id": requestID,
			"id_front_image_url": dataURL(front), "id_back_image_url": dataURL(back), "selfie_image_url": dataURL(front)})}))
	}
	first := submit("s-1")
	require.Equal(t, 200, first.status, string(first.body))
	assert.Equal(t, "accept", first.str("verification_decision"))
	again := submit("s-1")
	require.Equal(t, 200, again.status, "a retry with the same request_id replays and starts nothing")
	assert.Equal(t, first.str("idv_unique_id"), again.str("idv_unique_id"))
	require.Equal(t, 200, submit("s-2").status)
	third := submit("s-3")
	assert.Equal(t, 429, third.code(), "a session starts at most %d verifications: %s", server.SDKSessionVerifications, third.body)

	// A new session is a new allowance.
	r2 := issue(e, shopOrigin, wf)
	require.Equal(t, 200, r2.status)
	ref2 := refreshSession(e, r2.str("sdk_token"))
	require.Equal(t, 200, ref2.status)
	access = ref2.str("access_token")
	assert.Equal(t, 200, submit("s-4").status)
}

func TestIssueSDKTokenRefusals(t *testing.T) {
	e := newEnv(t)
	wf := e.webWorkflow("Web shop")
	archived := e.webWorkflow("Archived shop")
	_, err := e.admin.SetWorkflowStatus(context.Background(), archived.ID, idv.WorkflowArchived)
	require.NoError(t, err)
	body := func(client, flow string) map[string]any {
		return envelope("auth_config", "issueSdkToken", map[string]any{"client_id": client, "work_flow_id": flow})
	}
	cases := []struct {
		name   string
		origin string
		body   map[string]any
		code   int
	}{
		{"no origin (not a browser)", "", body(e.client.ID, wf.ID), 403},
		{"opaque origin", "null", body(e.client.ID, wf.ID), 403},
		{"origin not allowed", "https://evil.example.net", body(e.client.ID, wf.ID), 403},
		{"allowed host on another scheme", "http://shop.example.com", body(e.client.ID, wf.ID), 403},
		{"workflow without web settings", shopOrigin, body(e.client.ID, e.wfFace.ID), 403},
		{"archived workflow", shopOrigin, body(e.client.ID, archived.ID), 404},
		{"another client's id", shopOrigin, body(idv.NewRequestID(), wf.ID), 404},
		{"unknown workflow", shopOrigin, body(e.client.ID, idv.NewRequestID()), 404},
		{"ids missing", shopOrigin, envelope("auth_config", "issueSdkToken", nil), 104},
		{"config not the workflow's", shopOrigin, envelope("auth_config", "issueSdkToken",
			map[string]any{"client_id": e.client.ID, "work_flow_id": wf.ID, "config": "ke_maisha_card"}), 422},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.postFrom(tc.origin, "", tc.body)
			assert.Equal(t, tc.code, r.code(), string(r.body))
			assert.NotContains(t, r.obj, "sdk_token")
		})
	}
}

func TestSDKSessionEnds(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	wf := e.webWorkflow("Web shop")
	r := issue(e, shopOrigin, wf)
	require.Equal(t, 200, r.status, string(r.body))
	tok := r.str("sdk_token")
	require.Equal(t, 200, refreshSession(e, tok).status)

	t.Run("expiry", func(t *testing.T) {
		e.clock.Store(int64(server.SDKSessionTTL + time.Minute))
		defer e.clock.Store(0)
		assert.Equal(t, 401, refreshSession(e, tok).code())
	})
	t.Run("rotating the workflow's token ends its sessions", func(t *testing.T) {
		_, err := e.admin.RotateRefreshToken(ctx, wf.ID, 0)
		require.NoError(t, err)
		assert.Equal(t, 401, refreshSession(e, tok).code())
		fresh := issue(e, shopOrigin, wf)
		require.Equal(t, 200, fresh.status)
		assert.Equal(t, 200, refreshSession(e, fresh.str("sdk_token")).status, "sessions issued after the rotation work")
	})
	t.Run("a session token is not the workflow's", func(t *testing.T) {
		// A forged gen claim would need the server's key: the token's
		// signature covers it, so a changed byte is refused.
		c := sdkClaims(t, issue(e, shopOrigin, wf).str("sdk_token"))
		parts := strings.Split(c["refresh_token"].(string), ".")
		parts[1] = parts[1][:len(parts[1])-2] + "AA"
		bad := e.postFrom(shopOrigin, "", envelope("auth_config", "refreshAccessToken", map[string]any{"refresh_token": strings.Join(parts, ".")}))
		assert.Equal(t, 401, bad.code())
	})
}

func TestIssueSDKTokenLimits(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	wf := e.webWorkflow("Web shop")
	ok := 0
	var last response
	for i := 0; i < 15; i++ {
		last = issue(e, shopOrigin, wf)
		if last.status != 200 {
			break
		}
		ok++
	}
	assert.Equal(t, 10, ok, "a burst of 10 sessions per workflow and address")
	assert.Equal(t, 429, last.code())
	assert.NotEmpty(t, last.header.Get("Retry-After"))
	e.clock.Store(int64(61 * time.Second))
	assert.Equal(t, 200, issue(e, shopOrigin, wf).status, "then one a minute")

	// The organisation's units: no session when one verification cannot
	// be paid (OCR and face: 5 units).
	other := e.webWorkflow("Second shop")
	bal, err := e.admin.AddUnits(ctx, e.org.ID, -(e.balance() - 4))
	require.NoError(t, err)
	require.EqualValues(t, 4, bal)
	r := issue(e, shopOrigin, other)
	assert.Equal(t, 402, r.code(), string(r.body))
}

func TestGenerateSDKToken(t *testing.T) {
	e := newEnv(t)
	tok := e.token()
	gen := func(token string, fields map[string]any) response {
		return e.postFrom("", token, envelope("auth_config", "generateSdkToken", fields))
	}
	r := gen(tok, map[string]any{"work_flow_id": e.wfFace.ID, "config": "ke_passport", "ttl_seconds": 600})
	require.Equal(t, 200, r.status, string(r.body))
	c := sdkClaims(t, r.str("sdk_token"))
	assert.Equal(t, "ke_passport", c["config"])
	assert.EqualValues(t, 600, c["exp"].(float64)-c["iat"].(float64))
	ref := refreshSession(e, r.str("sdk_token"))
	require.Equal(t, 200, ref.status, string(ref.body))
	scoped := ref.str("access_token")

	cases := []struct {
		name   string
		token  string
		fields map[string]any
		code   int
	}{
		{"no token", "", map[string]any{"work_flow_id": e.wfFace.ID}, 401},
		{"workflow-scoped token", scoped, map[string]any{"work_flow_id": e.wfFace.ID}, 403},
		{"no workflow", tok, nil, 104},
		{"ttl too long", tok, map[string]any{"work_flow_id": e.wfFace.ID, "ttl_seconds": 90000}, 104},
		{"ttl not a number", tok, map[string]any{"work_flow_id": e.wfFace.ID, "ttl_seconds": "soon"}, 104},
		{"unknown workflow", tok, map[string]any{"work_flow_id": idv.NewRequestID()}, 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.code, gen(tc.token, tc.fields).code())
		})
	}
}
