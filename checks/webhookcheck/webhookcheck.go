// Package webhookcheck is the custom_webhook check: it calls an HTTPS
// "Verification Check" webhook with the check's input and judges the answer,
// {"success": bool, "score": number, "data": {"result": ..., "reason": ...}},
// against the webhook's verification criteria.
//
// Transport is a Caller. The reference server supplies one that resolves
// the step's webhook_id to a stored webhook of the caller's organisation and
// sends through the guarded mutual-TLS sender (server/webhook). The check
// registered from init uses a direct caller configured by step parameters
// (url, ca_file, secret) and engine settings (webhook_client_cert,
// webhook_client_key), for embedders whose workflow files are trusted.
package webhookcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tambua/tambua/checks/webhookcheck/hookcall"
	"github.com/tambua/tambua/idv"
)

func init() {
	idv.Register(idv.CheckCustomWebhook, func(s idv.Settings) (idv.Check, error) {
		return New(&DirectCaller{Settings: s}), nil
	})
}

// The transport contract lives in hookcall, which registers nothing; these
// aliases keep the check's own API whole.
type (
	Criteria = hookcall.Criteria
	Request  = hookcall.Request
	Reply    = hookcall.Reply
	Caller   = hookcall.Caller
)

// DefaultCriteria: both fields required, minimum threshold 0.85.
func DefaultCriteria() Criteria { return hookcall.DefaultCriteria() }

// Check is the custom_webhook check.
type Check struct{ caller Caller }

var _ idv.Check = (*Check)(nil)

// New returns the check calling webhooks through c.
func New(c Caller) *Check { return &Check{caller: c} }

// Name is custom_webhook.
func (*Check) Name() string { return idv.CheckCustomWebhook }

// Cost is the catalogue's (3 units, the spec's table).
func (*Check) Cost() int { return idv.CostOf(idv.CheckCustomWebhook) }

// Input is the JSON body sent to the webhook.
type Input struct {
	Check        string            `json:"check"`
	Timestamp    string            `json:"timestamp"`
	RequestID    string            `json:"request_id"`
	ClientID     string            `json:"client_id"`
	WorkflowID   string            `json:"workflow_id"`
	Config       string            `json:"config"`
	DocumentType string            `json:"document_type"`
	Country      string            `json:"country"`
	FieldSchema  []string          `json:"field_schema"`
	Fields       map[string]string `json:"fields"`
	MRZ          *idv.MRZData      `json:"mrz"`
	Metadata     map[string]any    `json:"metadata"`
	// Params are the step's parameters other than webhook_id, so one
	// endpoint can serve several workflows.
	Params map[string]any `json:"params"`
}

// BuildInput returns the check's input for the case.
func BuildInput(c *idv.Case) Input {
	schema, fields := c.Fields()
	if schema == nil {
		schema = []string{}
	}
	params := map[string]any{}
	for k, v := range c.Step.Params {
		if k != "webhook_id" && k != "secret" {
			params[k] = v
		}
	}
	md := c.Metadata
	if md == nil {
		md = map[string]any{}
	}
	return Input{Check: idv.CheckCustomWebhook, Timestamp: c.Now.UTC().Format("2006-01-02T15:04:05.000Z"),
		RequestID: c.RequestID, ClientID: c.ClientID, WorkflowID: c.WorkflowID, Config: c.Config,
		DocumentType: c.DocumentType(), Country: c.Country, FieldSchema: schema, Fields: fields, MRZ: c.MRZ(),
		Metadata: md, Params: params}
}

// Run calls the webhook and judges its answer.
func (k *Check) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	if k.caller == nil {
		return idv.Outcome{}, errors.New("webhookcheck: no caller configured")
	}
	id, _ := c.Step.Params["webhook_id"].(string)
	body, err := json.Marshal(BuildInput(c))
	if err != nil {
		return idv.Outcome{}, fmt.Errorf("webhookcheck: input: %w", err)
	}
	reply, err := k.caller.CallCheck(ctx, Request{WebhookID: id, ClientID: c.ClientID, Params: c.Step.Params, Body: body})
	if err != nil {
		return idv.Outcome{}, err
	}
	out, resp, err := Evaluate(reply)
	if resp != nil {
		ValueResponse.Set(c, resp)
	}
	return out, err
}

// ValueResponse is where the check leaves the webhook's parsed answer.
var ValueResponse = idv.NewKey[*Response]("custom_webhook.response")

// Response is a parsed webhook answer.
type Response struct {
	Success *bool           `json:"success"`
	Score   *float64        `json:"score"`
	Data    json.RawMessage `json:"data"`
	Result  string          `json:"-"`
	Reason  string          `json:"-"`
}

// ErrResponse marks an answer the check cannot use: the check could not
// run, so the engine sends the verification to review.
var ErrResponse = errors.New("webhookcheck: unusable response")

// Evaluate judges a webhook reply against its criteria:
//
//   - a non-2xx status or a body that is not the documented object is an
//     error (the check could not run);
//   - success false fails the check (reason custom_check_failed);
//   - a required field that is missing is an error;
//   - a score below the minimum threshold gives review with
//     custom_check_low_score (reject when the workflow has no manual
//     review), and a passing score is returned as the confidence, which the
//     engine also holds against the workflow's threshold.
func Evaluate(r Reply) (idv.Outcome, *Response, error) {
	if r.StatusCode < 200 || r.StatusCode > 299 {
		return idv.Outcome{}, nil, fmt.Errorf("%w: HTTP %d", ErrResponse, r.StatusCode)
	}
	resp, err := parse(r.Body)
	if err != nil {
		return idv.Outcome{}, nil, err
	}
	cr := r.Criteria
	if cr.MinThreshold < 0 || cr.MinThreshold > 1 || math.IsNaN(cr.MinThreshold) {
		return idv.Outcome{}, resp, fmt.Errorf("webhookcheck: minimum threshold %g outside [0, 1]", cr.MinThreshold)
	}
	if resp.Success == nil && cr.RequireSuccess {
		return idv.Outcome{}, resp, fmt.Errorf("%w: the success field is required", ErrResponse)
	}
	if resp.Score == nil && cr.RequireScore {
		return idv.Outcome{}, resp, fmt.Errorf("%w: the score field is required", ErrResponse)
	}
	note := resp.Result
	if resp.Reason != "" {
		note += ": " + resp.Reason
	}
	if resp.Success != nil && !*resp.Success {
		out := idv.Failed("custom_check_failed")
		if resp.Score != nil {
			out.Confidence, out.HasConfidence = *resp.Score, true
		}
		out.Pieces = []idv.ScorePiece{{Name: "success", Value: 0, Weight: 1, Note: note}}
		return out, resp, nil
	}
	if resp.Score == nil {
		return idv.Outcome{Status: idv.StatusPassed, Pieces: []idv.ScorePiece{{Name: "success", Value: 1, Weight: 1, Note: note}}}, resp, nil
	}
	s := *resp.Score
	piece := idv.ScorePiece{Name: "webhook_score", Value: s, Weight: 1, Note: fmt.Sprintf("minimum %.2f; %s", cr.MinThreshold, note)}
	if s < cr.MinThreshold {
		return idv.Outcome{Status: idv.StatusReview, Confidence: s, HasConfidence: true,
			Reasons: []string{"custom_check_low_score"}, Pieces: []idv.ScorePiece{piece}}, resp, nil
	}
	return idv.Passed(s, piece), resp, nil
}

func parse(body []byte) (*Response, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, fmt.Errorf("%w: not a JSON object", ErrResponse)
	}
	resp := &Response{}
	if v, ok := raw["success"]; ok && string(v) != "null" {
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return nil, fmt.Errorf("%w: success must be a boolean", ErrResponse)
		}
		resp.Success = &b
	}
	if v, ok := raw["score"]; ok && string(v) != "null" {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || f < 0 || f > 1 || math.IsNaN(f) {
			return nil, fmt.Errorf("%w: score must be a number in [0, 1]", ErrResponse)
		}
		resp.Score = &f
	}
	if v, ok := raw["data"]; ok && string(v) != "null" {
		var d map[string]json.RawMessage
		if err := json.Unmarshal(v, &d); err != nil {
			return nil, fmt.Errorf("%w: data must be an object", ErrResponse)
		}
		resp.Data = v
		for key, dst := range map[string]*string{"result": &resp.Result, "reason": &resp.Reason} {
			if rv, ok := d[key]; ok && string(rv) != "null" {
				if err := json.Unmarshal(rv, dst); err != nil {
					return nil, fmt.Errorf("%w: data.%s must be a string", ErrResponse, key)
				}
				if len(*dst) > 1024 {
					*dst = (*dst)[:1024]
				}
			}
		}
	}
	return resp, nil
}

// Timeout bounds one call.
const Timeout = 30 * time.Second
