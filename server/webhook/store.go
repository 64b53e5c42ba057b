package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Delivery statuses. pending and retrying wait for an attempt; success and
// failed_permanent are final.
const (
	DeliveryPending         = "pending"
	DeliveryRetrying        = "retrying"
	DeliverySuccess         = "success"
	DeliveryFailedPermanent = "failed_permanent"
)

// Log statuses, as the delivery log shows them.
const (
	LogSuccess  = "Success"
	LogFailed   = "Failed"
	LogRetrying = "Retrying"
)

// MaxAttempts is the number of attempts of one delivery.
const MaxAttempts = 3

// RetryDelay is the wait after the n-th failed attempt: 2^n seconds, the
// spec's "delay is 2 to the power of the attempt number" with its listed
// delays 0, 2, 4 s (none before the first attempt, 2 s before the second,
// 4 s before the third). A receiver that fails fast therefore sees attempts
// at 0, 2 and 6 s. The wait runs from the end of the failed attempt, so one
// that timed out (30 s) still gets the whole wait to recover.
func RetryDelay(failedAttempts int) time.Duration {
	if failedAttempts < 1 {
		return 0
	}
	if failedAttempts > 10 {
		failedAttempts = 10 // MaxAttempts is 3; bound the shift anyway
	}
	return time.Duration(1<<failedAttempts) * time.Second
}

// Delivery is one event on its way to one webhook.
type Delivery struct {
	ID             string
	WebhookID      string
	OrganisationID int64
	EventID        string
	Event          string
	// Body is the exact payload; every attempt sends these bytes.
	Body []byte
	// Target is where and how the delivery is sent, copied from the
	// webhook when the delivery was queued: an edit of the webhook does not
	// change its pending deliveries. Zero for deliveries queued before
	// targets were stored; those use the webhook's current settings.
	Target        Target
	Status        string
	Attempts      int
	NextAttemptAt time.Time
	LastCode      int
	LastError     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Target is the part of a webhook a delivery is sent with.
type Target struct {
	URL           string   `json:"url"`
	Method        string   `json:"method"`
	CACertificate string   `json:"ca_certificate"`
	Secret        string   `json:"secret"`
	Headers       []Header `json:"headers"`
}

// TargetOf returns the settings of w that a delivery is sent with.
func TargetOf(w Webhook) Target {
	return Target{URL: w.URL, Method: w.Method, CACertificate: w.CACertificate, Secret: w.Secret,
		Headers: append([]Header(nil), w.Headers...)}
}

// LogEntry is one attempt in a webhook's delivery log.
type LogEntry struct {
	ID             int64     `json:"id"`
	WebhookID      string    `json:"webhook_id"`
	DeliveryID     string    `json:"delivery_id"`
	EventID        string    `json:"event_id"`
	Event          string    `json:"event"`
	Timestamp      time.Time `json:"timestamp"`
	Status         string    `json:"status"`
	Attempt        int       `json:"attempt"`
	ResponseCode   int       `json:"response_code"`
	ResponseTimeMS int64     `json:"response_time_ms"`
	Error          string    `json:"error"`
}

// LogFilter selects log entries; zero fields match everything.
type LogFilter struct {
	From, To time.Time
	Status   string
	Event    string
	Limit    int
}

// Stats are a webhook's delivery statistics over its log.
type Stats struct {
	Total             int64      `json:"total_deliveries"`
	Successful        int64      `json:"successful_deliveries"`
	Failed            int64      `json:"failed_deliveries"`
	AvgResponseTimeMS float64    `json:"average_response_time_ms"`
	SuccessRate       float64    `json:"success_rate"`
	LastSuccess       *time.Time `json:"last_success"`
	LastFailure       *time.Time `json:"last_failure"`
}

// OutboxEvent is an event written by the change that caused it.
type OutboxEvent struct {
	Seq            int64
	EventID        string
	Event          string
	OrganisationID int64
	Data           json.RawMessage
	CreatedAt      time.Time
}

// AttemptRecord is what one attempt changes, written in one transaction.
type AttemptRecord struct {
	Delivery Delivery // with Status, Attempts, NextAttemptAt, LastCode, LastError updated
	Log      LogEntry
}

// Claim selects deliveries to lease.
type Claim struct {
	Now, LeaseUntil time.Time
	// Limit bounds the number of deliveries claimed.
	Limit int
	// PerWebhook bounds, per webhook, Busy plus the deliveries claimed;
	// zero means no bound.
	PerWebhook int
	// Busy is the capacity each webhook already uses (deliveries in
	// flight, and the share a slow webhook is denied).
	Busy map[string]int
}

// Result of RecordAttempt.
type Recorded struct {
	Webhook Webhook
	// Paused is true when this attempt paused the webhook.
	Paused bool
}

// ErrNotFound is returned for an unknown webhook.
var ErrNotFound = errors.New("webhook: not found")

// Store is the persistence the webhooks need; server/sqlite implements it.
type Store interface {
	CreateWebhook(ctx context.Context, w Webhook) error
	Webhook(ctx context.Context, id string) (Webhook, error)
	ListWebhooks(ctx context.Context, orgID int64) ([]Webhook, error)
	// UpdateWebhook replaces the editable fields (not type, status or
	// counters). Pending deliveries keep their payload, schedule and
	// target.
	UpdateWebhook(ctx context.Context, w Webhook) error
	// SetWebhookStatus moves a webhook to status; moving to active resets
	// the count of consecutive failures.
	SetWebhookStatus(ctx context.Context, id, status string) error
	// DeleteWebhook removes the webhook, its deliveries and its log.
	DeleteWebhook(ctx context.Context, id string) error

	// PendingEvents returns outbox events not yet fanned out, oldest first.
	PendingEvents(ctx context.Context, limit int) ([]OutboxEvent, error)
	// FanOut stores the deliveries of one event and marks the event fanned
	// out, in one transaction. A delivery that already exists (same
	// webhook and event) is kept as it is.
	FanOut(ctx context.Context, ev OutboxEvent, ds []Delivery) error
	// ClaimDue leases the deliveries c selects (due, unleased, of an
	// active webhook, within the bounds per webhook and overall) until
	// c.LeaseUntil, so no other worker takes them. Earliest due first.
	ClaimDue(ctx context.Context, c Claim) ([]Delivery, error)
	// NextDue returns when the earliest waiting delivery of an active
	// webhook, unleased at now, falls due after now; ok is false when
	// there is none.
	NextDue(ctx context.Context, now time.Time) (at time.Time, ok bool, err error)
	// ReleaseLeases frees every lease (at start: this process owns none).
	ReleaseLeases(ctx context.Context) error
	// RecordAttempt stores an attempt: the delivery's new state, the log
	// line, and the webhook's counters (a final failure increments
	// failure_count and consecutive failures, and pauses the webhook at
	// AutoPauseAfter; a success resets consecutive failures). events is
	// called inside the transaction with the webhook as updated and its
	// result written to the outbox in the same transaction.
	RecordAttempt(ctx context.Context, r AttemptRecord, events func(w Webhook) []OutboxEvent) (Recorded, error)
	// AppendLog adds a log line that is not part of a queued delivery (a
	// verification check call) and marks the webhook triggered.
	AppendLog(ctx context.Context, e LogEntry) error
	Logs(ctx context.Context, webhookID string, f LogFilter) ([]LogEntry, error)
	Stats(ctx context.Context, webhookID string) (Stats, error)
	// Delivery returns one delivery (tests and the CLI).
	Delivery(ctx context.Context, id string) (Delivery, error)
	// Deliveries lists a webhook's deliveries, newest first.
	Deliveries(ctx context.Context, webhookID string, limit int) ([]Delivery, error)
}
