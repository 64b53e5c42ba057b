package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	legacyrouter "github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/tambua/tambua/docs"
	"github.com/tambua/tambua/server"
)

type openAPIDoc struct {
	OpenAPI    string                    `yaml:"openapi"`
	Paths      map[string]map[string]any `yaml:"paths"`
	ErrorCodes []struct {
		Code int `yaml:"code"`
		HTTP int `yaml:"http"`
	} `yaml:"x-error-codes"`
}

// TestOpenAPIMatchesRoutes keeps docs/openapi.yaml true: the same paths and
// methods as the server registers, and the same error codes and statuses.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc openAPIDoc
	require.NoError(t, yaml.Unmarshal(docs.OpenAPI, &doc))
	assert.True(t, strings.HasPrefix(doc.OpenAPI, "3.1"), doc.OpenAPI)

	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			switch method {
			case "get", "post", "put", "patch", "delete":
				documented = append(documented, strings.ToUpper(method)+" "+path)
			}
		}
	}
	e := newEnv(t)
	var registered []string
	for _, r := range e.srv.Routes() {
		registered = append(registered, r.Method+" "+strings.ReplaceAll(r.Path, "...}", "}"))
	}
	sort.Strings(documented)
	sort.Strings(registered)
	assert.Equal(t, registered, documented)

	codes := map[int]int{}
	for _, c := range doc.ErrorCodes {
		codes[c.Code] = c.HTTP
	}
	assert.Equal(t, server.ErrorCodes(), codes)

	r := e.get(e.ts.URL + "/openapi.yaml")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, docs.OpenAPI, r.body)
}

// TestOpenAPIDescribesResponses checks the document is valid OpenAPI and
// that real responses of the server match the schemas it gives.
func TestOpenAPIDescribesResponses(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(docs.OpenAPI)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))

	e := newEnv(t)
	doc.Servers = openapi3.Servers{{URL: e.ts.URL}}
	router, err := legacyrouter.NewRouter(doc)
	require.NoError(t, err)
	check := func(req *http.Request) response {
		t.Helper()
		route, params, err := router.FindRoute(req)
		require.NoError(t, err, req.URL.Path)
		r := e.do(req)
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
			Status:                 r.status, Header: r.header,
			Options: &openapi3filter.Options{IncludeResponseStatus: true},
		}
		in.SetBodyBytes(r.body)
		assert.NoError(t, openapi3filter.ValidateResponse(context.Background(), in), "%s %s -> %d %s", req.Method, req.URL.Path, r.status, r.body)
		return r
	}
	jsonReq := func(path, tok string, body any) *http.Request {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, e.ts.URL+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		return req
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}, "client_secret": {e.secret}}
	tok := check(e.formRequest("/oauth/token", form)).str("access_token")
	check(e.formRequest("/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {e.client.ID}, "client_secret": {"x"}}))
	check(jsonReq("/postdata", "", envelope("auth_config", "generateAccessToken", map[string]any{"client_id": e.client.ID, "client_secret": e.secret})))
	check(jsonReq("/postdata", "", envelope("auth_config", "refreshAccessToken", map[string]any{"refresh_token": e.wfFace.RefreshToken, "organisation_id": e.org.ID})))
	check(jsonReq("/postdata", tok, envelope("flow", "getWorkflowById", map[string]any{"work_flow_id": e.wfFace.ID})))
	check(jsonReq("/postdata", "", map[string]any{"rpcQueue": "x"}))
	front, back := captures(t)
	up := check(e.uploadRequest(tok, e.uploadMessage(e.wfFace, nil), part{"front", front}, part{"back", back}, part{"selfie", front}))
	require.Equal(t, 200, up.status)
	check(e.uploadRequest(tok, e.uploadMessage(e.wfOCR, map[string]any{"no_adapter": true}), part{"front", front}, part{"back", back}))
	check(e.uploadRequest("", e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back}))
	check(jsonReq("/v1/verify", tok, map[string]any{"client_id": e.client.ID, "work_flow_id": e.wfOCR.ID, "method": "process_idv",
		"id_front_image_url": dataURL(front), "id_back_image_url": dataURL(back)}))
	// The SDK's session and hand-off methods.
	gen := check(jsonReq("/postdata", tok, envelope("auth_config", "generateSdkToken", map[string]any{"work_flow_id": e.wfFace.ID})))
	sdk := sdkClaims(t, gen.str("sdk_token"))
	desk := check(jsonReq("/postdata", "", envelope("auth_config", "refreshAccessToken", map[string]any{"refresh_token": sdk["refresh_token"]}))).str("access_token")
	ho := check(jsonReq("/postdata", desk, envelope("auth_config", "createHandoff", nil))).str("handoff_token")
	check(jsonReq("/postdata", desk, envelope("auth_config", "getHandoffStatus", map[string]any{"handoff_token": ho})))
	check(jsonReq("/postdata", "", envelope("auth_config", "redeemHandoff", map[string]any{"handoff_token": ho})))
	check(jsonReq("/postdata", desk, envelope("auth_config", "getHandoffStatus", map[string]any{"handoff_token": ho})))
	// File URLs are left out: their key spans several path segments, which
	// OpenAPI path templates cannot express (TestFileURLs covers them).
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/openapi.yaml"} {
		req, _ := http.NewRequest(http.MethodGet, e.ts.URL+p, nil)
		check(req)
	}
}
