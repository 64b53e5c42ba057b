package webhook

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// The 13 event names of the spec. Event Notification webhooks subscribe to
// any number of them; each event gives one delivery per subscribed webhook.
const (
	EventVerificationStarted        = "verification.started"
	EventVerificationCompleted      = "verification.completed"
	EventVerificationFailed         = "verification.failed"
	EventVerificationTimeout        = "verification.timeout"
	EventVerificationReviewRequired = "verification.review_required"
	EventWorkflowCreated            = "workflow.created"
	EventWorkflowUpdated            = "workflow.updated"
	EventWorkflowActivated          = "workflow.activated"
	EventWorkflowDeactivated        = "workflow.deactivated"
	EventUnitsLowBalance            = "units.low_balance"
	EventUnitsDepleted              = "units.depleted"
	EventDeliveryFailed             = "webhook.delivery.failed"
	EventClientCreditsLow           = "client.credits.low"
)

// Events lists every event name in the spec's order.
var Events = []string{
	EventVerificationStarted, EventVerificationCompleted, EventVerificationFailed,
	EventVerificationTimeout, EventVerificationReviewRequired,
	EventWorkflowCreated, EventWorkflowUpdated, EventWorkflowActivated, EventWorkflowDeactivated,
	EventUnitsLowBalance, EventUnitsDepleted,
	EventDeliveryFailed, EventClientCreditsLow,
}

// KnownEvent reports whether name is one of the 13 events.
func KnownEvent(name string) bool {
	for _, e := range Events {
		if e == name {
			return true
		}
	}
	return false
}

// TimestampLayout is ISO 8601 in UTC with millisecond precision, the form
// of every timestamp in a payload.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Envelope is the body of every delivery. A test delivery has Test set and
// its event_id starts with "test_".
type Envelope struct {
	Event          string          `json:"event"`
	EventID        string          `json:"event_id"`
	Timestamp      string          `json:"timestamp"`
	OrganisationID int64           `json:"organisation_id"`
	Test           bool            `json:"test,omitempty"`
	Data           json.RawMessage `json:"data"`
}

// NewEventID returns a random event identifier ("evt_" and 32 hex digits).
func NewEventID() string { return "evt_" + randomHex(16) }

// NewDeliveryID returns a random delivery identifier.
func NewDeliveryID() string { return "dlv_" + randomHex(16) }

// NewWebhookID returns a random webhook identifier.
func NewWebhookID() string { return "wh_" + randomHex(12) }

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported platforms.
		panic(fmt.Sprintf("webhook: crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}

// Marshal returns the exact body bytes of an envelope for the given event.
// data must marshal to a JSON object.
func Marshal(event, eventID string, orgID int64, at time.Time, data any) ([]byte, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("webhook: event data: %w", err)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("webhook: event data of %s must be a JSON object", event)
	}
	return json.Marshal(Envelope{Event: event, EventID: eventID, Timestamp: at.UTC().Format(TimestampLayout),
		OrganisationID: orgID, Data: raw})
}

// The documented data of each event. The spec fixes the fields of
// verification.completed, verification.failed and units.low_balance; the
// others are this project's choice, listed in docs/webhooks.md.

// CheckSummary is one entry of VerificationCompleted.Result.Checks.
type CheckSummary struct {
	Result     string  `json:"result"`
	Confidence float64 `json:"confidence"`
}

// VerificationResult is the result object of verification.completed.
type VerificationResult struct {
	Decision      string                  `json:"decision"`
	ExtractedData map[string]string       `json:"extracted_data"`
	Checks        map[string]CheckSummary `json:"checks"`
}

// VerificationCompleted is the data of verification.completed (and of
// verification.review_required, which adds the reasons).
type VerificationCompleted struct {
	VerificationID   string             `json:"verification_id"`
	WorkflowID       string             `json:"workflow_id"`
	WorkflowName     string             `json:"workflow_name"`
	Status           string             `json:"status"`
	Confidence       float64            `json:"confidence"`
	UnitsConsumed    int64              `json:"units_consumed"`
	ProcessingTimeMS int64              `json:"processing_time_ms"`
	Result           VerificationResult `json:"result"`
	Metadata         map[string]any     `json:"metadata"`
	// Review is set when a reviewer's approval sent the event (issue 19).
	Review *ReviewOutcome `json:"review,omitempty"`
}

// ReviewOutcome is the review object of a verification.completed or
// verification.failed sent by a manual review decision.
type ReviewOutcome struct {
	// Decision is "approved" or "rejected".
	Decision string `json:"decision"`
	// Reason is one of the documented reason codes (docs/webhooks.md).
	Reason    string `json:"reason"`
	Reviewer  string `json:"reviewer"`
	DecidedAt string `json:"decided_at"`
	// FirstReviewer and FirstDecidedAt name the first decision the
	// reviewer confirmed, when the workflow's four-eyes rule asked for two
	// (docs/reviews.md).
	FirstReviewer  string `json:"first_reviewer,omitempty"`
	FirstDecidedAt string `json:"first_decided_at,omitempty"`
}

// VerificationFailed is the data of verification.failed.
type VerificationFailed struct {
	VerificationID string  `json:"verification_id"`
	WorkflowID     string  `json:"workflow_id"`
	Status         string  `json:"status"`
	Reason         string  `json:"reason"`
	FailedCheck    string  `json:"failed_check"`
	Confidence     float64 `json:"confidence"`
	Threshold      float64 `json:"threshold"`
	UnitsConsumed  int64   `json:"units_consumed"`
	// Review is set when a reviewer's rejection sent the event (issue 19).
	Review *ReviewOutcome `json:"review,omitempty"`
}

// VerificationStarted is the data of verification.started (the request
// was accepted and its units reserved; Status is "started").
type VerificationStarted struct {
	VerificationID string `json:"verification_id"`
	WorkflowID     string `json:"workflow_id"`
	WorkflowName   string `json:"workflow_name"`
	RequestID      string `json:"request_id"`
	ClientID       string `json:"client_id"`
	Status         string `json:"status"`
}

// VerificationTimeout is the data of verification.timeout: the
// verification did not finish in time, nothing was billed.
type VerificationTimeout struct {
	VerificationID string `json:"verification_id"`
	WorkflowID     string `json:"workflow_id"`
	ClientID       string `json:"client_id"`
	RequestID      string `json:"request_id"`
	TimeoutMS      int64  `json:"timeout_ms"`
	ElapsedMS      int64  `json:"elapsed_ms"`
}

// WorkflowChanged is the data of the four workflow events; Status is the
// workflow's status after the change.
type WorkflowChanged struct {
	WorkflowID   string `json:"workflow_id"`
	WorkflowName string `json:"workflow_name"`
	ClientID     string `json:"client_id"`
	Status       string `json:"status"`
}

// UnitsLowBalance is the data of units.low_balance.
type UnitsLowBalance struct {
	CurrentBalance                  int64  `json:"current_balance"`
	Threshold                       int64  `json:"threshold"`
	EstimatedVerificationsRemaining int64  `json:"estimated_verifications_remaining"`
	ProjectedDepletionDate          string `json:"projected_depletion_date"`
}

// UnitsDepleted is the data of units.depleted: the balance can no longer
// pay for the cheapest workflow (OCR extraction alone).
type UnitsDepleted struct {
	CurrentBalance          int64 `json:"current_balance"`
	MinimumVerificationCost int64 `json:"minimum_verification_cost"`
}

// DeliveryFailed is the data of webhook.delivery.failed.
type DeliveryFailed struct {
	WebhookID        string `json:"webhook_id"`
	WebhookName      string `json:"webhook_name"`
	DeliveryID       string `json:"delivery_id"`
	Event            string `json:"event"`
	EventID          string `json:"event_id"`
	Attempts         int    `json:"attempts"`
	LastResponseCode int    `json:"last_response_code"`
	Error            string `json:"error"`
	FailureCount     int64  `json:"failure_count"`
}

// ClientCreditsLow is the data of client.credits.low: the organisation's
// balance no longer covers ten more verifications of the workflow a client
// just used.
type ClientCreditsLow struct {
	ClientID               string `json:"client_id"`
	WorkflowID             string `json:"workflow_id"`
	CurrentBalance         int64  `json:"current_balance"`
	UnitsPerVerification   int64  `json:"units_per_verification"`
	VerificationsRemaining int64  `json:"verifications_remaining"`
}

// CreditsLowVerifications is how many verifications' worth of units left
// make client.credits.low fire.
const CreditsLowVerifications = 10

// SampleData returns example data of an event, used by test deliveries so a
// receiver sees the real shape.
func SampleData(event string, now time.Time) any {
	switch event {
	case EventVerificationStarted:
		return VerificationStarted{VerificationID: "0123456789abcdef0123456789abcdef", WorkflowID: "wf-test", WorkflowName: "Test workflow",
			RequestID: "req-test", ClientID: "client-test", Status: "started"}
	case EventVerificationCompleted, EventVerificationReviewRequired:
		d := VerificationCompleted{VerificationID: "0123456789abcdef0123456789abcdef", WorkflowID: "wf-test", WorkflowName: "Test workflow",
			Status: "accept", Confidence: 0.93, UnitsConsumed: 5, ProcessingTimeMS: 1840,
			Result: VerificationResult{Decision: "accept",
				ExtractedData: map[string]string{"full_name": "JANE WANJIKU DOE", "date_of_birth": "01.01.1990", "national_id_number": "12345678"},
				Checks:        map[string]CheckSummary{"ocr_extraction": {Result: "passed", Confidence: 0.97}, "face_matching": {Result: "passed", Confidence: 0.93}}},
			Metadata: map[string]any{}}
		if event == EventVerificationReviewRequired {
			d.Status, d.Result.Decision, d.Confidence = "review", "review", 0.68
			d.Result.Checks["face_matching"] = CheckSummary{Result: "review", Confidence: 0.68}
		}
		return d
	case EventVerificationFailed:
		return VerificationFailed{VerificationID: "0123456789abcdef0123456789abcdef", WorkflowID: "wf-test", Status: "reject",
			Reason: "face_no_match", FailedCheck: "face_matching", Confidence: 0.41, Threshold: 0.75, UnitsConsumed: 5}
	case EventVerificationTimeout:
		return VerificationTimeout{VerificationID: "0123456789abcdef0123456789abcdef", WorkflowID: "wf-test", ClientID: "client-test", RequestID: "req-test", TimeoutMS: 120000, ElapsedMS: 120003}
	case EventWorkflowCreated, EventWorkflowUpdated, EventWorkflowActivated, EventWorkflowDeactivated:
		d := WorkflowChanged{WorkflowID: "wf-test", WorkflowName: "Test workflow", ClientID: "client-test", Status: "active"}
		if event == EventWorkflowDeactivated {
			d.Status = "archived"
		}
		return d
	case EventUnitsLowBalance:
		return UnitsLowBalance{CurrentBalance: 40, Threshold: 50, EstimatedVerificationsRemaining: 8, ProjectedDepletionDate: now.AddDate(0, 0, 3).UTC().Format("2006-01-02")}
	case EventUnitsDepleted:
		return UnitsDepleted{CurrentBalance: 1, MinimumVerificationCost: 2}
	case EventDeliveryFailed:
		return DeliveryFailed{WebhookID: "wh_test", WebhookName: "Test", DeliveryID: "dlv_test", Event: EventVerificationCompleted, EventID: "evt_test", Attempts: 3, LastResponseCode: 500, Error: "HTTP 500", FailureCount: 1}
	case EventClientCreditsLow:
		return ClientCreditsLow{ClientID: "client-test", WorkflowID: "wf-test", CurrentBalance: 45, UnitsPerVerification: 5, VerificationsRemaining: 9}
	}
	return map[string]any{}
}
