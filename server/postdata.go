package server

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
)

// Gateway constants of the spec.
const (
	RPCQueue     = "idv-gateway-v2"
	MenuAuth     = "auth_config"
	MenuFlow     = "flow"
	MenuVerify   = "verification"
	MenuUpload   = "service-ai"
	MethodUpload = "init"
)

// envelope is a /postdata body or an /upload message: an object whose
// rpcQueue, menu and method select the operation, and other fields.
type envelope struct {
	RPCQueue string
	Menu     string
	Method   string
	Fields   map[string]json.RawMessage
}

// parseEnvelope decodes a message object and checks its routing fields:
// 104 when it is not a JSON object, 102 when rpcQueue, menu or method is
// missing or not a non-empty string, 101 when rpcQueue is not
// idv-gateway-v2.
func parseEnvelope(data []byte) (*envelope, *APIError) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return nil, apiErr(CodeInvalidRequest, "the message must be a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, apiErr(CodeInvalidRequest, "the message has data after its JSON object")
	}
	env := &envelope{Fields: fields}
	var missing []string
	for _, f := range []struct {
		name string
		dst  *string
	}{{"rpcQueue", &env.RPCQueue}, {"menu", &env.Menu}, {"method", &env.Method}} {
		raw, ok := fields[f.name]
		if !ok || json.Unmarshal(raw, f.dst) != nil || *f.dst == "" {
			missing = append(missing, f.name)
		}
	}
	if env.RPCQueue != "" && env.RPCQueue != RPCQueue {
		return nil, apiErr(CodeUnknownQueue, "unknown rpcQueue: send %s", RPCQueue)
	}
	if len(missing) > 0 {
		return nil, apiErr(CodeMissingEnvelope, "missing %s", strings.Join(missing, ", "))
	}
	return env, nil
}

// str returns a string field ("" when absent or not a string).
func (e *envelope) str(name string) string {
	var s string
	if raw, ok := e.Fields[name]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// int returns an integer field, accepting a JSON number or a decimal string
// (the SDK reads the organisation id from a JWT claim).
func (e *envelope) int(name string) (int64, bool) {
	raw, ok := e.Fields[name]
	if !ok {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		if f != math.Trunc(f) || f < 1 || f > 1<<53 {
			return 0, false
		}
		return int64(f), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || s == "" || len(s) > 16 {
		return 0, false
	}
	var n int64
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int64(r-'0')
	}
	return n, n > 0
}

// postdataOp is one menu/method pair. auth says whether it needs a Bearer
// access token.
type postdataOp struct {
	auth bool
	run  func(s *Server, r *http.Request, p *Principal, env *envelope) (any, *APIError)
}

var postdataOps = map[[2]string]postdataOp{
	{MenuAuth, "generateAccessToken"}: {run: func(s *Server, r *http.Request, _ *Principal, env *envelope) (any, *APIError) {
		return s.generateAccessToken(r.Context(), r, env)
	}},
	{MenuAuth, "refreshAccessToken"}: {run: func(s *Server, r *http.Request, _ *Principal, env *envelope) (any, *APIError) {
		return s.refreshAccessToken(r.Context(), r, env)
	}},
	{MenuAuth, MethodIssueSDKToken}: {run: func(s *Server, r *http.Request, _ *Principal, env *envelope) (any, *APIError) {
		return s.issueSDKToken(r.Context(), r, env)
	}},
	{MenuAuth, MethodGenerateSDKToken}: {auth: true, run: func(s *Server, r *http.Request, p *Principal, env *envelope) (any, *APIError) {
		return s.generateSDKToken(r.Context(), p, env)
	}},
	{MenuAuth, MethodCreateHandoff}: {auth: true, run: func(s *Server, r *http.Request, p *Principal, env *envelope) (any, *APIError) {
		return s.createHandoff(r.Context(), p, env)
	}},
	{MenuAuth, MethodRedeemHandoff}: {run: func(s *Server, r *http.Request, _ *Principal, env *envelope) (any, *APIError) {
		return s.redeemHandoff(r.Context(), r, env)
	}},
	{MenuAuth, MethodHandoffStatus}: {auth: true, run: func(s *Server, r *http.Request, p *Principal, env *envelope) (any, *APIError) {
		return s.getHandoffStatus(r.Context(), p, env)
	}},
	{MenuFlow, "getWorkflowById"}: {auth: true, run: func(s *Server, r *http.Request, p *Principal, env *envelope) (any, *APIError) {
		return s.getWorkflowByID(r.Context(), p, env)
	}},
	{MenuVerify, "submitVerification"}: {auth: true, run: func(s *Server, r *http.Request, p *Principal, env *envelope) (any, *APIError) {
		return s.submitVerification(r.Context(), p, env)
	}},
}

// AnonymousBodyBytes is the largest /postdata body read without a valid
// access token. The operations that need none (generateAccessToken,
// refreshAccessToken) send a few hundred bytes; 16 KiB leaves room for
// long refresh tokens and extra keys while keeping what an anonymous
// caller can make the server buffer and parse small.
const AnonymousBodyBytes = 16 << 10

// handlePostdata is POST /postdata. The caller is authenticated before the
// body is read: without a valid token the body is capped at
// AnonymousBodyBytes, and only an authenticated caller, holding one of the
// large-body slots, may send up to the request limit.
func (s *Server) handlePostdata(w http.ResponseWriter, r *http.Request) {
	rid := requestIDFrom(r.Context())
	var p *Principal
	var authErr *APIError
	limit := int64(AnonymousBodyBytes)
	if r.Header.Get("Authorization") != "" {
		// A token op may arrive with a stale token (an SDK refreshing
		// an expired one): a bad token only keeps the body small.
		if p, authErr = s.authenticate(r); p != nil {
			var release func()
			var aerr *APIError
			r, release, aerr = s.takeBodySlot(r)
			if aerr != nil {
				writeAPIError(w, aerr, rid)
				return
			}
			defer release()
			limit = s.cfg.Limits.RequestBytes
		}
	}
	if p == nil && r.ContentLength > limit {
		writeAPIError(w, anonymousTooLarge(authErr), rid)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe) && p == nil:
			writeAPIError(w, anonymousTooLarge(authErr), rid)
		case errors.As(err, &mbe):
			writeAPIError(w, apiErr(CodePayloadTooLarge, "the body is larger than %d bytes", limit), rid)
		default:
			writeAPIError(w, apiErr(CodeInvalidRequest, "the body could not be read"), rid)
		}
		return
	}
	env, aerr := parseEnvelope(body)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	op, ok := postdataOps[[2]string{env.Menu, env.Method}]
	if !ok {
		writeAPIError(w, apiErr(CodeUnknownOperation, "unknown menu/method %s/%s", env.Menu, env.Method), rid)
		return
	}
	if op.auth && p == nil {
		if authErr == nil {
			_, authErr = s.authenticate(r)
		}
		writeAPIError(w, authErr, rid)
		return
	}
	out, aerr := op.run(s, r, p, env)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	if raw, ok := out.(json.RawMessage); ok {
		writeRawJSON(w, http.StatusOK, raw)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// anonymousTooLarge answers a body over AnonymousBodyBytes without a valid
// token: only the operations that need a token take larger bodies, so the
// answer is the token's refusal (401), not 413.
func anonymousTooLarge(authErr *APIError) *APIError {
	if authErr != nil {
		return authErr
	}
	return apiErr(CodeUnauthorized, "a body over %d bytes needs Authorization: Bearer <ACCESS_TOKEN>", AnonymousBodyBytes)
}

// slotWaitKey holds in a request's context how long it waited for a
// large-body slot: the wait for a worker gets the rest of the queue
// timeout. Only waiting counts, not reading or decoding in between.
const slotWaitKey ctxKey = 1

// takeBodySlot waits, at most the queue timeout, for one of the slots that
// bound how many authenticated large bodies are buffered at once. It
// returns the request with the time it waited in its context, and the
// slot's release.
func (s *Server) takeBodySlot(r *http.Request) (*http.Request, func(), *APIError) {
	ctx := r.Context()
	t := time.NewTimer(s.cfg.QueueTimeout)
	defer t.Stop()
	start := time.Now()
	select {
	case s.bodies <- struct{}{}:
		r = r.WithContext(context.WithValue(ctx, slotWaitKey, time.Since(start)))
		return r, func() { <-s.bodies }, nil
	case <-t.C:
		return r, nil, apiErr(CodeBusy, "the server is reading too many large requests; retry once")
	case <-ctx.Done():
		return r, nil, apiErr(CodeBusy, "the request ended while waiting to be read")
	}
}

// workflowView is the workflow object of getWorkflowById.
type workflowView struct {
	ID             string             `json:"id"`
	Name           string             `json:"name"`
	Description    string             `json:"description,omitempty"`
	Status         string             `json:"status"`
	DocumentTypes  []string           `json:"document_types"`
	Steps          []workflowStepView `json:"steps"`
	ReactNativeSDK any                `json:"react_native_sdk_configs,omitempty"`
	WebSDK         any                `json:"web_sdk_configs,omitempty"`
}

type workflowStepView struct {
	Name     string `json:"name"`
	Order    int    `json:"order"`
	Required bool   `json:"required"`
}

// getWorkflowByID is flow/getWorkflowById, with the workflow named by
// work_flow_id.
func (s *Server) getWorkflowByID(ctx context.Context, p *Principal, env *envelope) (any, *APIError) {
	id := env.str("work_flow_id")
	if id == "" {
		return nil, apiErr(CodeInvalidRequest, "work_flow_id is required")
	}
	if p.WorkflowID != "" && p.WorkflowID != id {
		return nil, apiErr(CodeForbidden, "the token is scoped to another workflow")
	}
	wf, aerr := s.visibleWorkflow(ctx, p, id)
	if aerr != nil {
		return nil, aerr
	}
	d := wf.Definition
	v := workflowView{ID: wf.ID, Name: d.Name, Description: d.Description, Status: wf.Status, DocumentTypes: d.DocumentTypes}
	for _, st := range d.Steps() {
		v.Steps = append(v.Steps, workflowStepView{Name: st.Name, Order: st.Order, Required: st.Required})
	}
	if d.ReactNativeSDK != nil {
		v.ReactNativeSDK = d.ReactNativeSDK
	}
	if d.WebSDK != nil {
		v.WebSDK = d.WebSDK
	}
	return map[string]any{"workflow": v}, nil
}

// visibleWorkflow returns a workflow the principal's client owns and that
// is Active; anything else is 404, so other clients' workflows and Draft or
// Archived ones are invisible.
func (s *Server) visibleWorkflow(ctx context.Context, p *Principal, id string) (Workflow, *APIError) {
	wf, err := s.store.Workflow(ctx, id)
	if errors.Is(err, ErrNotFound) || (err == nil && (wf.ClientID != p.ClientID || wf.Status != "active")) {
		return Workflow{}, apiErr(CodeNotFound, "unknown workflow %q", truncate(id, 64))
	}
	if err != nil {
		return Workflow{}, apiErr(CodeInternal, "internal error")
	}
	return wf, nil
}

// submitVerification is verification/submitVerification: the field
// payload holds base64 of the raw-deflated (level 9) JSON of a direct
// verification request, the same fields as POST /v1/verify without method.
func (s *Server) submitVerification(ctx context.Context, p *Principal, env *envelope) (any, *APIError) {
	payload := env.str("payload")
	if payload == "" {
		return nil, apiErr(CodeInvalidRequest, "payload (base64 of raw-deflated JSON) is required")
	}
	inner, aerr := inflatePayload(payload, s.cfg.Limits.RequestBytes)
	if aerr != nil {
		return nil, aerr
	}
	fields, aerr := parseObject(inner)
	if aerr != nil {
		return nil, aerr
	}
	in, aerr := s.directInput(ctx, p, fields)
	if aerr != nil {
		return nil, aerr
	}
	body, aerr := s.verify(ctx, in)
	if aerr != nil {
		return nil, aerr
	}
	return json.RawMessage(body), nil
}

// inflatePayload undoes base64 and raw deflate, refusing output above max
// bytes (a small payload may inflate enormously).
func inflatePayload(payload string, max int64) ([]byte, *APIError) {
	payload = strings.TrimSpace(payload)
	comp, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		if comp, err = base64.RawStdEncoding.DecodeString(payload); err != nil {
			if comp, err = base64.URLEncoding.DecodeString(payload); err != nil {
				return nil, apiErr(CodeInvalidRequest, "payload is not base64")
			}
		}
	}
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(comp)), max+1))
	if err != nil {
		return nil, apiErr(CodeInvalidRequest, "payload is not raw deflate data")
	}
	if int64(len(out)) > max {
		return nil, apiErr(CodePayloadTooLarge, "the inflated payload is larger than %d bytes", max)
	}
	return out, nil
}

// DeflatePayload is the client side of submitVerification: raw deflate at
// level 9, then base64.
func DeflatePayload(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fw, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := fw.Write(raw); err != nil {
		return "", err
	}
	if err := fw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

func parseObject(data []byte) (map[string]json.RawMessage, *APIError) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return nil, apiErr(CodeInvalidRequest, "the body must be a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, apiErr(CodeInvalidRequest, "the body has data after its JSON object")
	}
	return fields, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
