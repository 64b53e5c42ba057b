package webhook_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server/webhook"
)

// TestWorkflowWebhookBlock: a workflow's webhook block sends the events
// about that workflow to the registered webhook with the block's URL, even
// though the webhook does not subscribe to them; other workflows' events
// and events the block does not list are not sent.
func TestWorkflowWebhookBlock(t *testing.T) {
	e := newEnv(t)
	named := newReceiver(t, always(200))
	other := newReceiver(t, always(200))
	e.hook(t, named, "k", webhook.EventUnitsLowBalance)
	e.hook(t, other, "k", webhook.EventUnitsLowBalance)
	settings := map[string]webhook.WorkflowSettings{
		"wf-kyc": {Name: "KYC", HookURL: strings.ToUpper(named.URL[:8]) + named.URL[8:] + "/hooks/", HookEvents: []string{webhook.EventVerificationCompleted}},
		"wf-all": {Name: "All", HookURL: named.URL + "/hooks"},
	}
	e.d.Workflows = func(_ context.Context, id string) (webhook.WorkflowSettings, bool, error) {
		s, ok := settings[id]
		return s, ok, nil
	}
	e.emit(t, webhook.EventVerificationCompleted, webhook.VerificationCompleted{VerificationID: "v1", WorkflowID: "wf-kyc"})
	e.emit(t, webhook.EventVerificationFailed, webhook.VerificationFailed{VerificationID: "v2", WorkflowID: "wf-kyc"}) // not listed
	e.emit(t, webhook.EventVerificationCompleted, webhook.VerificationCompleted{VerificationID: "v3", WorkflowID: "wf-none"})
	e.emit(t, webhook.EventWorkflowUpdated, webhook.WorkflowChanged{WorkflowID: "wf-all"}) // empty list: every event
	e.step(t)

	var got []string
	for _, r := range named.requests() {
		got = append(got, r.Header.Get("X-Service-Event"))
		require.NoError(t, webhook.Verify("k", r.Body, r.Header.Get("X-Service-Signature")))
	}
	assert.ElementsMatch(t, []string{webhook.EventVerificationCompleted, webhook.EventWorkflowUpdated}, got)
	assert.Empty(t, other.requests(), "another URL receives nothing it did not subscribe to")
}

// TestReviewerMail: verification.review_required is mailed to the
// reviewer of the workflow's manual review, once.
func TestReviewerMail(t *testing.T) {
	e := newEnv(t)
	e.d.Workflows = func(_ context.Context, id string) (webhook.WorkflowSettings, bool, error) {
		if id != "wf-kyc" {
			return webhook.WorkflowSettings{}, false, nil
		}
		return webhook.WorkflowSettings{Name: "KYC", ReviewerEmail: "reviewer@example.com"}, true, nil
	}
	e.emit(t, webhook.EventVerificationReviewRequired, webhook.VerificationCompleted{VerificationID: "v1", WorkflowID: "wf-kyc",
		Status: "review", Confidence: 0.68, Result: webhook.VerificationResult{Decision: "review",
			Checks: map[string]webhook.CheckSummary{"face_matching": {Result: "review", Confidence: 0.68}, "ocr_extraction": {Result: "passed", Confidence: 0.9}}}})
	e.emit(t, webhook.EventVerificationCompleted, webhook.VerificationCompleted{VerificationID: "v2", WorkflowID: "wf-kyc"})
	e.emit(t, webhook.EventVerificationReviewRequired, webhook.VerificationCompleted{VerificationID: "v3", WorkflowID: "wf-gone"})
	e.step(t)
	e.step(t)

	mails := e.mailer.Sent()
	require.Len(t, mails, 1)
	m := mails[0]
	assert.Equal(t, []string{"reviewer@example.com"}, m.To)
	assert.Contains(t, m.Subject, "v1")
	assert.Contains(t, m.Body, "face_matching: review")
	assert.NotContains(t, m.Body, "ocr_extraction")
}
