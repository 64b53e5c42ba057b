package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// principal is who calls in the authorisation sweep.
type principal string

const (
	owner        principal = "owner"          // organisation A's client: the positive control
	noToken      principal = "no token"       // no Authorization
	expired      principal = "expired token"  // A's own token, past its exp
	otherOrg     principal = "other org"      // organisation B's client
	otherWorkflw principal = "other workflow" // A's token scoped to another workflow of A
)

var principals = []principal{owner, noToken, expired, otherOrg, otherWorkflw}

// sweepCase is one registered route: the request aimed at organisation A's
// resource as each principal would send it, and the answer each must get.
type sweepCase struct {
	req  func(p principal) *http.Request
	want map[principal]int // 0: any 2xx
}

// TestAuthorisationSweep walks every route the server registers
// (Server.Routes) with organisation A's resources as the target, sent by
// A itself (which must succeed, so a refusal below is the principal's),
// without a token, with an expired token, with a token of another
// organisation, and with a token scoped to another workflow of A. Each
// answer is checked, and no refused answer may carry A's data. A route
// without a case fails the test (issue 14, "Prove it").
func TestAuthorisationSweep(t *testing.T) {
	e := newWebhookEnv(t)
	ctx := context.Background()
	front, back := captures(t)
	selfie := jpegBytes(t, blocks(3, 480, 300))

	tokA := e.token()
	e.clock.Store(int64(-2 * time.Hour))
	tokExpired := e.token()
	e.clock.Store(0)
	orgB, err := e.admin.CreateOrganisation(ctx, "Other")
	must(t, err)
	clientB, secretB, err := e.admin.CreateClient(ctx, orgB.ID, "other")
	must(t, err)
	tokB := e.tokenFor(clientB.ID, secretB)
	tokScoped := e.scopedToken(e.wfOCR) // targets below are of wfFace
	tokens := map[principal]string{owner: tokA, expired: tokExpired, otherOrg: tokB, otherWorkflw: tokScoped}

	// A's verification (with the holder's images) and webhook.
	msg := e.uploadMessage(e.wfFace, map[string]any{"request_id": "a-1"})
	v := e.upload(tokA, msg, part{"front", front}, part{"back", back}, part{"selfie", selfie})
	require.Equal(t, 200, v.status, string(v.body))
	vid := v.str("idv_unique_id")
	// Verifications the owner's requests change: one to erase, two in
	// review (one to assign, one to decide).
	other := jpegBytes(t, blocks(99, 480, 300))
	later := func(rid string, selfie []byte) string {
		r := e.upload(tokA, e.uploadMessage(e.wfFace, map[string]any{"request_id": rid}), part{"front", front}, part{"back", back}, part{"selfie", selfie})
		require.Equal(t, 200, r.status, string(r.body))
		return r.str("idv_unique_id")
	}
	vErase, vAssign, vDecide := later("a-erase", selfie), later("a-assign", other), later("a-decide", other)
	hook := e.call("POST", "/v1/webhooks", tokA, map[string]any{"type": "event_notification", "name": "Orders",
		"url": e.receiver.URL + "/in", "ca_certificate": e.caPEM, "events": []string{"verification.completed"}})
	require.Equal(t, 201, hook.status, string(hook.body))
	hookID := hook.str("id")
	doomed := e.call("POST", "/v1/webhooks", tokA, map[string]any{"type": "event_notification", "name": "Doomed",
		"url": e.receiver.URL + "/in", "ca_certificate": e.caPEM, "events": []string{"verification.completed"}})
	require.Equal(t, 201, doomed.status, string(doomed.body))

	bearer := func(req *http.Request, p principal) *http.Request {
		if tok := tokens[p]; tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		return req
	}
	jsonReq := func(method, path string, p principal, body any) *http.Request {
		var rd *bytes.Reader
		if body != nil {
			raw, err := json.Marshal(body)
			must(t, err)
			rd = bytes.NewReader(raw)
		} else {
			rd = bytes.NewReader(nil)
		}
		req, err := http.NewRequest(method, e.ts.URL+path, rd)
		must(t, err)
		req.Header.Set("Content-Type", "application/json")
		return bearer(req, p)
	}
	refused := map[principal]int{owner: 0, noToken: 401, expired: 401, otherOrg: 404, otherWorkflw: 403}
	// Requests that name A's client_id: B's token is not its owner (403).
	replayRefused := map[principal]int{owner: 0, noToken: 401, expired: 401, otherOrg: 403, otherWorkflw: 403}
	everyone := func(status int) map[principal]int {
		m := map[principal]int{}
		for _, p := range principals {
			m[p] = status
		}
		return m
	}
	// A signed URL of another file: valid signature, wrong key.
	frontURL, backURL := v.str("front_url"), v.str("back_url")
	u1, _ := url.Parse(frontURL)
	u2, _ := url.Parse(backURL)
	seg1, seg2 := strings.SplitN(u1.Path, "/", 5), strings.SplitN(u2.Path, "/", 5)
	forged := e.ts.URL + strings.Join([]string{"", seg1[1], seg2[2], seg2[3], seg1[4]}, "/")
	require.NotEqual(t, frontURL, forged)

	webhookCase := func(method, suffix string, body any, others map[principal]int) sweepCase {
		return sweepCase{req: func(p principal) *http.Request {
			id := hookID
			if method == http.MethodDelete {
				id = doomed.str("id")
			}
			return jsonReq(method, strings.ReplaceAll(suffix, "{id}", id), p, body)
		}, want: others}
	}
	hookRefused := map[principal]int{owner: 0, noToken: 401, expired: 401, otherOrg: 404, otherWorkflw: 403}
	cases := map[string]sweepCase{
		"POST /oauth/token": {req: func(p principal) *http.Request {
			secret := map[principal]string{owner: e.secret, expired: tokExpired, otherOrg: secretB, otherWorkflw: e.wfOCR.RefreshToken}[p]
			return bearer(e.formRequest("/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}, "client_secret": {secret}}), p)
		}, want: map[principal]int{owner: 0, noToken: 400, expired: 401, otherOrg: 401, otherWorkflw: 401}},
		"POST /postdata": {req: func(p principal) *http.Request {
			return jsonReq("POST", "/postdata", p, envelope("flow", "getWorkflowById", map[string]any{"work_flow_id": e.wfFace.ID}))
		}, want: refused},
		"POST /upload": {req: func(p principal) *http.Request {
			return bearer(e.uploadRequest("", msg, part{"front", front}, part{"back", back}, part{"selfie", selfie}), p)
		}, want: replayRefused},
		"POST /v1/verify": {req: func(p principal) *http.Request {
			return jsonReq("POST", "/v1/verify", p, map[string]any{"method": "process_idv", "client_id": e.client.ID, "work_flow_id": e.wfFace.ID,
				"request_id": "a-1", "country": "Kenya", "config": "kenya_national_id",
				"id_front_image_url": dataURL(front), "id_back_image_url": dataURL(back), "selfie_image_url": dataURL(selfie)})
		}, want: replayRefused},
		"GET /files/{exp}/{sig}/{key...}": {req: func(p principal) *http.Request {
			target := forged
			if p == owner {
				target = frontURL
			}
			req, err := http.NewRequest("GET", target, nil)
			must(t, err)
			return bearer(req, p) // a token grants nothing here: only the signature does
		}, want: map[principal]int{owner: 0, noToken: 403, expired: 403, otherOrg: 403, otherWorkflw: 403}},
		"GET /healthz": {req: func(p principal) *http.Request { return jsonReq("GET", "/healthz", p, nil) }, want: everyone(0)},
		"GET /readyz":  {req: func(p principal) *http.Request { return jsonReq("GET", "/readyz", p, nil) }, want: everyone(0)},
		// No metrics token is configured: no API token opens /metrics.
		"GET /metrics":      {req: func(p principal) *http.Request { return jsonReq("GET", "/metrics", p, nil) }, want: everyone(404)},
		"GET /openapi.yaml": {req: func(p principal) *http.Request { return jsonReq("GET", "/openapi.yaml", p, nil) }, want: everyone(0)},
		// B creating a webhook acts in B's own organisation; an empty
		// body is refused as invalid, not as unauthorised.
		"POST /v1/webhooks": webhookCase("POST", "/v1/webhooks", map[string]any{}, map[principal]int{owner: 400, noToken: 401, expired: 401, otherOrg: 400, otherWorkflw: 403}),
		// B lists its own (empty) list; A's webhook must not be in it.
		"GET /v1/webhooks":                            webhookCase("GET", "/v1/webhooks", nil, map[principal]int{owner: 0, noToken: 401, expired: 401, otherOrg: 0, otherWorkflw: 403}),
		"GET /v1/webhooks/{id}":                       webhookCase("GET", "/v1/webhooks/{id}", nil, hookRefused),
		"PATCH /v1/webhooks/{id}":                     webhookCase("PATCH", "/v1/webhooks/{id}", map[string]any{"name": "Renamed"}, hookRefused),
		"DELETE /v1/webhooks/{id}":                    webhookCase("DELETE", "/v1/webhooks/{id}", nil, hookRefused),
		"POST /v1/webhooks/{id}/activate":             webhookCase("POST", "/v1/webhooks/{id}/activate", nil, hookRefused),
		"POST /v1/webhooks/{id}/pause":                webhookCase("POST", "/v1/webhooks/{id}/pause", nil, hookRefused),
		"POST /v1/webhooks/{id}/resume":               webhookCase("POST", "/v1/webhooks/{id}/resume", nil, hookRefused),
		"POST /v1/webhooks/{id}/test":                 webhookCase("POST", "/v1/webhooks/{id}/test", map[string]any{"event": "verification.completed"}, hookRefused),
		"POST /v1/webhooks/{id}/validate-certificate": webhookCase("POST", "/v1/webhooks/{id}/validate-certificate", nil, hookRefused),
		"GET /v1/webhooks/{id}/logs":                  webhookCase("GET", "/v1/webhooks/{id}/logs", nil, hookRefused),
		"GET /v1/webhooks/{id}/stats":                 webhookCase("GET", "/v1/webhooks/{id}/stats", nil, hookRefused),
		// Verifications and reviews (issue 19): B never reads, decides or
		// erases A's; B's queue is its own (empty).
		"GET /v1/verifications/{id}": {req: func(p principal) *http.Request {
			return jsonReq("GET", "/v1/verifications/"+vid, p, nil)
		}, want: hookRefused},
		"DELETE /v1/verifications/{id}": {req: func(p principal) *http.Request {
			return jsonReq("DELETE", "/v1/verifications/"+vErase, p, nil)
		}, want: hookRefused},
		"GET /v1/reviews": {req: func(p principal) *http.Request {
			return jsonReq("GET", "/v1/reviews?state=all", p, nil)
		}, want: map[principal]int{owner: 0, noToken: 401, expired: 401, otherOrg: 0, otherWorkflw: 403}},
		"GET /v1/audit": {req: func(p principal) *http.Request {
			return jsonReq("GET", "/v1/audit", p, nil)
		}, want: map[principal]int{owner: 0, noToken: 401, expired: 401, otherOrg: 0, otherWorkflw: 403}},
		"GET /v1/audit.csv": {req: func(p principal) *http.Request {
			return jsonReq("GET", "/v1/audit.csv", p, nil)
		}, want: map[principal]int{owner: 0, noToken: 401, expired: 401, otherOrg: 0, otherWorkflw: 403}},
		"POST /v1/verifications/{id}/review/assign": {req: func(p principal) *http.Request {
			return jsonReq("POST", "/v1/verifications/"+vAssign+"/review/assign", p, map[string]any{"assignee": "ann@example.com"})
		}, want: hookRefused},
		"POST /v1/verifications/{id}/review/decision": {req: func(p principal) *http.Request {
			return jsonReq("POST", "/v1/verifications/"+vDecide+"/review/decision", p, map[string]any{"decision": "approve", "reason": "other", "reviewer": "ann@example.com"})
		}, want: hookRefused},
	}

	// A's data that no refused answer may carry.
	secrets := []string{vid, "/v/" + vid + "/", hookID, e.wfFace.RefreshToken, e.secret, vErase, vAssign, vDecide}
	var routes []string
	for _, r := range e.srv.Routes() {
		if strings.HasPrefix(r.Path, "/console/api/") {
			// Console sessions are cookies, not bearer tokens: the console's
			// own sweeps (console_authz_test.go) try every one of them.
			continue
		}
		routes = append(routes, r.Method+" "+r.Path)
	}
	sort.Strings(routes)
	require.NotEmpty(t, routes)
	checked := 0
	for _, route := range routes {
		c, ok := cases[route]
		if !assert.True(t, ok, "route %s has no case in the sweep", route) {
			continue
		}
		// The owner goes last: its DELETE and PATCH change the target.
		for _, p := range []principal{noToken, expired, otherOrg, otherWorkflw, owner} {
			t.Run(fmt.Sprintf("%s/%s", route, p), func(t *testing.T) {
				r := e.do(c.req(p))
				want := c.want[p]
				if want == 0 {
					assert.True(t, r.status >= 200 && r.status < 300, "want 2xx, got %d: %.300s", r.status, r.body)
				} else {
					assert.Equal(t, want, r.status, "%.300s", r.body)
				}
				if p == owner || route == "GET /openapi.yaml" {
					return
				}
				for _, s := range secrets {
					assert.NotContains(t, string(r.body), s, "a refused answer carries A's data")
				}
			})
			checked++
		}
	}
	// The refused principals changed nothing: one line per owner action.
	for id, want := range map[string][]string{vAssign: {"queued", "assigned"}, vDecide: {"queued", "approved"}} {
		c, err := e.admin.ReviewCase(ctx, e.org.ID, id)
		require.NoError(t, err)
		var got []string
		for _, a := range c.History {
			got = append(got, a.Action)
			if a.Action != "queued" {
				assert.Contains(t, a.Actor, e.client.ID, "only A's client acted")
			}
		}
		assert.Equal(t, want, got)
	}
	t.Logf("authorisation sweep: %d routes x %d principals = %d answers checked", len(routes), len(principals), checked)
	assert.Len(t, cases, len(routes), "a case for a route that is not registered")
}
