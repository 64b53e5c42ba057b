package server

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Error codes carried in v_field39. The spec fixes 101, 102, 401, 403, 230
// and 502; the others are this server's, listed in docs/server.md.
const (
	CodeUnknownQueue      = 101 // rpcQueue is not idv-gateway-v2
	CodeMissingEnvelope   = 102 // rpcQueue, menu or method missing
	CodeUnknownOperation  = 103 // menu/method pair (or /v1/verify method) not served
	CodeInvalidRequest    = 104 // malformed body, message or field; bad slot name; too few files
	CodeUnauthorized      = 401 // missing/malformed Authorization, bad or expired token, bad credentials
	CodeInsufficientUnits = 402 // balance below the workflow's cost
	CodeForbidden         = 403 // client_id is not the token's owner
	CodeNotFound          = 404 // unknown path; unknown workflow, Draft/Archived, or another client's
	CodeNotAllowed        = 405 // HTTP method not allowed on the path
	CodeRequestConflict   = 409 // request_id already used for a different request (other workflow, config, fields or images)
	CodePayloadTooLarge   = 413 // bytes per file/request or pixels per image over the limit
	CodeUnreadableImage   = 415 // a capture is not a JPEG or PNG that decodes whole
	CodeUnknownConfig     = 422 // config unknown, or not among the workflow's document types
	CodeRateLimited       = 429 // too many failed token requests or refreshes; store-only budget spent
	CodeInternal          = 500 // a fault of the server; nothing was billed
	CodeBusy              = 230 // upstream verification failed: no worker free in time; retry once
	CodeUpstreamFailed    = 502 // upstream verification failed while running; retry once
	CodeCheckUnavailable  = 503 // the workflow names a check this server build lacks
)

// httpStatus is the HTTP status sent with each code.
var httpStatus = map[int]int{
	CodeUnknownQueue:      http.StatusBadRequest,
	CodeMissingEnvelope:   http.StatusBadRequest,
	CodeUnknownOperation:  http.StatusBadRequest,
	CodeInvalidRequest:    http.StatusBadRequest,
	CodeUnauthorized:      http.StatusUnauthorized,
	CodeInsufficientUnits: http.StatusPaymentRequired,
	CodeForbidden:         http.StatusForbidden,
	CodeNotFound:          http.StatusNotFound,
	CodeNotAllowed:        http.StatusMethodNotAllowed,
	CodeRequestConflict:   http.StatusConflict,
	CodePayloadTooLarge:   http.StatusRequestEntityTooLarge,
	CodeUnreadableImage:   http.StatusUnsupportedMediaType,
	CodeUnknownConfig:     http.StatusUnprocessableEntity,
	CodeRateLimited:       http.StatusTooManyRequests,
	CodeInternal:          http.StatusInternalServerError,
	CodeBusy:              http.StatusServiceUnavailable,
	CodeUpstreamFailed:    http.StatusBadGateway,
	CodeCheckUnavailable:  http.StatusServiceUnavailable,
}

// HTTPStatus returns the HTTP status of an error code.
func HTTPStatus(code int) int {
	if s, ok := httpStatus[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// APIError is a refusal in the spec's shape: v_field39 and v_field48.
type APIError struct {
	Code    int
	Message string
	// RetryAfter, when set, is sent as a Retry-After header (seconds).
	RetryAfter int
}

func (e *APIError) Error() string { return fmt.Sprintf("server: %d %s", e.Code, e.Message) }

func apiErr(code int, format string, args ...any) *APIError {
	return &APIError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorBody is the error object.
type errorBody struct {
	Code    int    `json:"v_field39"`
	Message string `json:"v_field48"`
	// TraceID is the call's X-Request-Id (request_id in the logs), not
	// the message's request_id.
	TraceID string `json:"trace_id,omitempty"`
}

func writeAPIError(w http.ResponseWriter, e *APIError, requestID string) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(e.RetryAfter))
	}
	if e.Code == CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="tambua"`)
	}
	writeJSON(w, HTTPStatus(e.Code), errorBody{Code: e.Code, Message: e.Message, TraceID: requestID})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"v_field39":500,"v_field48":"internal error encoding the response"}`)
	}
	writeRawJSON(w, status, body)
}

func writeRawJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
	_, _ = w.Write([]byte("\n"))
}

// ErrorCodes returns every v_field39 code with its HTTP status.
func ErrorCodes() map[int]int {
	out := make(map[int]int, len(httpStatus))
	for c, s := range httpStatus {
		out[c] = s
	}
	return out
}
