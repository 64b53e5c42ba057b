package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// WorkflowSettings are the notification settings of one workflow: its
// webhook block (a URL and the events it wants) and the reviewer of its
// manual review.
type WorkflowSettings struct {
	Name          string
	ReviewerEmail string
	HookURL       string
	// HookEvents empty means every event that names the workflow.
	HookEvents []string
}

// WorkflowLookup returns a workflow's settings; found is false for a
// workflow that no longer exists.
type WorkflowLookup func(ctx context.Context, workflowID string) (s WorkflowSettings, found bool, err error)

// eventWorkflow is the workflow_id an event's data names, if any.
func eventWorkflow(data json.RawMessage) string {
	var v struct {
		WorkflowID string `json:"workflow_id"`
	}
	if len(data) == 0 || json.Unmarshal(data, &v) != nil {
		return ""
	}
	return v.WorkflowID
}

// wantsEvent reports whether a workflow's webhook block asks for event.
func (s WorkflowSettings) wantsEvent(event string) bool {
	if s.HookURL == "" {
		return false
	}
	if len(s.HookEvents) == 0 {
		return true
	}
	for _, e := range s.HookEvents {
		if e == event {
			return true
		}
	}
	return false
}

// routedBy reports whether w receives ev because the workflow the event is
// about names w's URL in its webhook block. The block holds only a URL and
// events; the delivery goes through the organisation's registered Event
// Notification webhook with that URL, whose CA certificate, secret and
// headers make mutual TLS and the signature possible.
func routedBy(w Webhook, s WorkflowSettings, event string) bool {
	return w.Type == TypeEventNotification && s.wantsEvent(event) && sameURL(w.URL, s.HookURL)
}

// sameURL compares URLs as a user would write them: scheme and host are
// case-insensitive and a trailing slash does not matter.
func sameURL(a, b string) bool {
	norm := func(u string) string {
		u = strings.TrimRight(strings.TrimSpace(u), "/")
		if i := strings.Index(u, "://"); i >= 0 {
			rest := u[i+3:]
			host, path, _ := strings.Cut(rest, "/")
			u = strings.ToLower(u[:i+3]+host) + "/" + path
		}
		return strings.TrimRight(u, "/")
	}
	return norm(a) == norm(b)
}

// mailReviewer tells a workflow's reviewer that a verification waits for
// them. It runs once per verification.review_required event, when the
// event is fanned out; a crash between the mail and the fan-out commit
// sends it again (at least once, like deliveries).
func (d *Dispatcher) mailReviewer(ctx context.Context, ev OutboxEvent, s WorkflowSettings) {
	if d.Mailer == nil || s.ReviewerEmail == "" {
		return
	}
	var v VerificationCompleted
	if err := json.Unmarshal(ev.Data, &v); err != nil {
		d.log().Error("reviewer mail: event data", "event_id", ev.EventID, "err", err)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Verification %s of workflow %q needs a manual review.\n\n", v.VerificationID, s.Name)
	fmt.Fprintf(&b, "Confidence: %.2f\n", v.Confidence)
	for name, c := range v.Result.Checks {
		if c.Result != "passed" {
			fmt.Fprintf(&b, "Check %s: %s (confidence %.2f)\n", name, c.Result, c.Confidence)
		}
	}
	fmt.Fprintf(&b, "\nEvent %s at %s.\n", ev.EventID, ev.CreatedAt.UTC().Format(time.RFC3339))
	m := Mail{To: []string{s.ReviewerEmail}, Subject: fmt.Sprintf("Review needed: verification %s (%s)", v.VerificationID, s.Name),
		Body: b.String(), SentAt: d.now()}
	if err := d.Mailer.Send(ctx, m); err != nil {
		d.log().Error("reviewer mail", "event_id", ev.EventID, "err", err)
	}
}
