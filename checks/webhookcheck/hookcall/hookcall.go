// Package hookcall is the contract between the custom_webhook check and the
// transport that calls a "Verification Check" webhook: the request, the
// reply and the criteria to judge it by. It imports nothing of the module
// and registers nothing, so a transport (the reference server's
// server/webhook) can implement Caller without pulling the check, and its
// registration, into every program that stores webhooks.
package hookcall

import "context"

// Criteria are a Verification Check webhook's verification criteria.
type Criteria struct {
	RequireSuccess bool
	RequireScore   bool
	// MinThreshold is the lowest acceptable score, in [0, 1].
	MinThreshold float64
}

// DefaultCriteria: both fields required, minimum threshold 0.85.
func DefaultCriteria() Criteria {
	return Criteria{RequireSuccess: true, RequireScore: true, MinThreshold: 0.85}
}

// Request is one call of a verification-check webhook.
type Request struct {
	// WebhookID names the stored webhook (step parameter webhook_id).
	WebhookID string
	ClientID  string
	// Params are the workflow step's parameters.
	Params map[string]any
	// Body is the JSON input of the check.
	Body []byte
}

// Reply is the webhook's answer and the criteria to judge it by.
type Reply struct {
	StatusCode int
	Body       []byte
	Criteria   Criteria
}

// Caller sends a check's request to its webhook.
type Caller interface {
	CallCheck(ctx context.Context, r Request) (Reply, error)
}
