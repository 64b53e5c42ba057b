package server

import (
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

// timeoutEvent is verification.timeout: the verification did not run
// within its time limit. Either no worker became free before the queue
// timeout (the claim is released with the event, nothing billed) or the
// checks ran past the run deadline (the verification completes with the
// checks that finished, and the event commits with the result, beside its
// verdict event).
func timeoutEvent(c Claim, limit, elapsed time.Duration) Event {
	data, _ := json.Marshal(webhook.VerificationTimeout{VerificationID: c.ID, WorkflowID: c.WorkflowID, ClientID: c.ClientID,
		RequestID: c.RequestID, TimeoutMS: limit.Milliseconds(), ElapsedMS: elapsed.Milliseconds()})
	return Event{EventID: idv.NewRequestID(), Event: webhook.EventVerificationTimeout, OrganisationID: c.OrganisationID, Data: data}
}

// withEvents adds extra events to those a completion writes.
func withEvents(f func(Organisation, int64) []Event, extra ...Event) func(Organisation, int64) []Event {
	if len(extra) == 0 {
		return f
	}
	return func(before Organisation, after int64) []Event {
		return append(f(before, after), extra...)
	}
}
