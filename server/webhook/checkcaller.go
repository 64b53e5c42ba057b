package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tambua/tambua/checks/webhookcheck/hookcall"
)

// EventVerificationCheck is the X-Service-Event of a custom check call. It
// is not one of the 13 events: nothing subscribes to it.
const EventVerificationCheck = "verification.check"

// CheckCaller is the server's transport for the custom_webhook check: the
// step's webhook_id must name an active verification_check webhook of the
// organisation that owns the verifying client. The call goes through the
// guarded mutual-TLS Sender, is signed like a delivery, is made once (the
// verification is waiting), and lands in the webhook's log.
type CheckCaller struct {
	Store  Store
	Sender *Sender
	// OrgOf returns the organisation of an API client.
	OrgOf func(ctx context.Context, clientID string) (int64, error)
	Now   func() time.Time
}

var _ hookcall.Caller = (*CheckCaller)(nil)

// ErrCheckWebhook: the step names no usable webhook.
var ErrCheckWebhook = errors.New("webhook: no usable verification check webhook")

// CallCheck calls the webhook named by r.WebhookID.
func (c *CheckCaller) CallCheck(ctx context.Context, r hookcall.Request) (hookcall.Reply, error) {
	if r.WebhookID == "" {
		return hookcall.Reply{}, fmt.Errorf("%w: the step has no webhook_id parameter", ErrCheckWebhook)
	}
	w, err := c.Store.Webhook(ctx, r.WebhookID)
	if err != nil {
		return hookcall.Reply{}, fmt.Errorf("%w: %s: %v", ErrCheckWebhook, r.WebhookID, err)
	}
	if c.OrgOf != nil {
		org, err := c.OrgOf(ctx, r.ClientID)
		if err != nil || org != w.OrganisationID {
			// Another organisation's webhook is as good as unknown.
			return hookcall.Reply{}, fmt.Errorf("%w: %s: not found", ErrCheckWebhook, r.WebhookID)
		}
	}
	if w.Type != TypeVerificationCheck {
		return hookcall.Reply{}, fmt.Errorf("%w: %s is an %s webhook", ErrCheckWebhook, w.ID, w.Type)
	}
	if w.Status != StatusActive {
		return hookcall.Reply{}, fmt.Errorf("%w: %s is %s", ErrCheckWebhook, w.ID, w.Status)
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	if err := checkAgainst("request_schema", w.RequestSchema, r.Body); err != nil {
		return hookcall.Reply{}, fmt.Errorf("webhook: %s: the check's request %w", w.ID, err)
	}
	dlv := NewDeliveryID()
	a := c.Sender.Do(ctx, Request{URL: w.URL, Method: w.Method, CAPEM: w.CACertificate, Secret: w.Secret,
		Event: EventVerificationCheck, WebhookID: w.ID, DeliveryID: dlv, Headers: w.Headers, Body: r.Body})
	status := LogSuccess
	errText := a.ErrorText()
	var schemaErr error
	if a.Kind == KindSuccess {
		if schemaErr = checkAgainst("response_schema", w.ResponseSchema, a.Body); schemaErr != nil {
			errText = "response " + schemaErr.Error()
		}
	}
	if a.Kind != KindSuccess || schemaErr != nil {
		status = LogFailed
	}
	_ = c.Store.AppendLog(context.WithoutCancel(ctx), LogEntry{WebhookID: w.ID, DeliveryID: dlv, Event: EventVerificationCheck,
		Timestamp: now(), Status: status, Attempt: 1, ResponseCode: a.StatusCode, ResponseTimeMS: a.Duration.Milliseconds(), Error: errText})
	if schemaErr != nil {
		return hookcall.Reply{}, fmt.Errorf("webhook: %s: the response %w", w.ID, schemaErr)
	}
	if a.Kind != KindSuccess && a.Kind != KindHTTPError {
		return hookcall.Reply{}, fmt.Errorf("webhook: calling %s: %s", w.ID, a.ErrorText())
	}
	crit := DefaultCriteria()
	if w.Criteria != nil {
		crit = *w.Criteria
	}
	return hookcall.Reply{StatusCode: a.StatusCode, Body: a.Body,
		Criteria: hookcall.Criteria{RequireSuccess: crit.RequireSuccess, RequireScore: crit.RequireScore, MinThreshold: crit.MinThreshold}}, nil
}
