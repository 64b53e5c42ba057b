package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/webhook"
)

// The two events the verification path emits for webhooks beyond the
// verdict and balance events (docs/webhooks.md).

// creditsLowEvent is client.credits.low: this debit took the organisation's
// balance from enough for webhook.CreditsLowVerifications verifications of
// the workflow the client just used to fewer than that.
func creditsLowEvent(org int64, clientID, workflowID string, before, after, cost int64) (Event, bool) {
	if cost <= 0 {
		return Event{}, false
	}
	limit := cost * webhook.CreditsLowVerifications
	if before < limit || after >= limit {
		return Event{}, false
	}
	data, err := json.Marshal(webhook.ClientCreditsLow{ClientID: clientID, WorkflowID: workflowID, CurrentBalance: after,
		UnitsPerVerification: cost, VerificationsRemaining: after / cost})
	if err != nil {
		return Event{}, false
	}
	return Event{EventID: idv.NewRequestID(), Event: webhook.EventClientCreditsLow, OrganisationID: org, Data: data}, true
}

// timeoutEvent records verification.timeout: the verification did not run
// within its time limit (no worker became free before the queue timeout,
// or the checks ran past the run deadline). Nothing is billed for the
// first; the second completes with the checks that finished, so a
// verdict event follows.
func (s *Server) timeoutEvent(ctx context.Context, c Claim, limit, elapsed time.Duration) {
	ob, ok := s.store.(interface {
		AddEvents(ctx context.Context, events ...Event) error
	})
	if !ok {
		return
	}
	data, err := json.Marshal(webhook.VerificationTimeout{VerificationID: c.ID, WorkflowID: c.WorkflowID, ClientID: c.ClientID,
		RequestID: c.RequestID, TimeoutMS: limit.Milliseconds(), ElapsedMS: elapsed.Milliseconds()})
	if err != nil {
		return
	}
	ev := Event{EventID: idv.NewRequestID(), Event: webhook.EventVerificationTimeout, OrganisationID: c.OrganisationID, Data: data}
	if err := ob.AddEvents(context.WithoutCancel(ctx), ev); err != nil {
		s.log.ErrorContext(ctx, "recording verification.timeout", "request_id", requestIDFrom(ctx), "error", err)
	}
}
