package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// TestResult is the outcome of a test delivery: success with the response
// time, an HTTP error status, a TLS verification failure or a timeout.
type TestResult struct {
	Outcome        string `json:"outcome"` // success, http_error, tls_error, timeout, connection_error, refused
	Success        bool   `json:"success"`
	ResponseCode   int    `json:"response_code"`
	ResponseTimeMS int64  `json:"response_time_ms"`
	Error          string `json:"error,omitempty"`
	EventID        string `json:"event_id"`
	DeliveryID     string `json:"delivery_id"`
}

// TestPayload returns the body of a test delivery: event, event_id,
// timestamp, organisation_id, test: true, and sample data of the event.
func TestPayload(event string, orgID int64, now time.Time) ([]byte, string, error) {
	if !KnownEvent(event) {
		return nil, "", fmt.Errorf("webhook: unknown event %q", event)
	}
	data, err := json.Marshal(SampleData(event, now))
	if err != nil {
		return nil, "", err
	}
	id := "test_" + NewEventID()
	body, err := json.Marshal(Envelope{Event: event, EventID: id, Timestamp: now.UTC().Format(TimestampLayout),
		OrganisationID: orgID, Test: true, Data: data})
	return body, id, err
}

// SendTest sends one test event to w right away, whatever its status, with
// no retry; test deliveries are not queued, logged or counted.
func (s *Sender) SendTest(ctx context.Context, w Webhook, event string, now time.Time) (TestResult, error) {
	body, id, err := TestPayload(event, w.OrganisationID, now)
	if err != nil {
		return TestResult{}, err
	}
	dlv := NewDeliveryID()
	a := s.Do(ctx, Request{URL: w.URL, Method: w.Method, CAPEM: w.CACertificate, Secret: w.Secret, Event: event,
		WebhookID: w.ID, DeliveryID: dlv, Headers: w.Headers, Body: body})
	return TestResult{Outcome: a.Kind, Success: a.Kind == KindSuccess, ResponseCode: a.StatusCode,
		ResponseTimeMS: a.Duration.Milliseconds(), Error: a.ErrorText(), EventID: id, DeliveryID: dlv}, nil
}
