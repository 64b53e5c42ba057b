package webhook_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server/webhook"
)

func TestDeliverySignatureAndHeaders(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, always(200))
	w := e.hook(t, rc, "s3cret", webhook.EventVerificationCompleted, webhook.EventUnitsLowBalance)
	w.Headers = []webhook.Header{{Name: "X-Api-Version", Value: "2026-01", Enabled: true}, {Name: "X-Disabled", Value: "no", Enabled: false}}
	require.NoError(t, e.db.UpdateWebhook(context.Background(), w))
	id := e.emit(t, webhook.EventUnitsLowBalance, webhook.UnitsLowBalance{CurrentBalance: 40, Threshold: 50, EstimatedVerificationsRemaining: 8, ProjectedDepletionDate: "2026-03-04"})
	e.emit(t, webhook.EventWorkflowCreated, map[string]any{"workflow_id": "wf"}) // not subscribed
	e.step(t)

	reqs := rc.requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, "POST", r.Method)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, "Service-Webhooks/1.0", r.Header.Get("User-Agent"))
	assert.Equal(t, webhook.EventUnitsLowBalance, r.Header.Get("X-Service-Event"))
	assert.Equal(t, w.ID, r.Header.Get("X-Webhook-ID"))
	assert.NotEmpty(t, r.Header.Get("X-Delivery-ID"))
	assert.Equal(t, "2026-01", r.Header.Get("X-Api-Version"))
	assert.Empty(t, r.Header.Get("X-Disabled"))
	require.NoError(t, webhook.Verify("s3cret", r.Body, r.Header.Get("X-Service-Signature")))
	require.NotNil(t, r.ClientCert, "the service must present its client certificate")
	assert.Equal(t, "test webhook client", r.ClientCert.Subject.CommonName)

	var env struct {
		Event          string                  `json:"event"`
		EventID        string                  `json:"event_id"`
		Timestamp      string                  `json:"timestamp"`
		OrganisationID int64                   `json:"organisation_id"`
		Data           webhook.UnitsLowBalance `json:"data"`
	}
	dec := json.NewDecoder(bytesReader(r.Body))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&env))
	assert.Equal(t, webhook.EventUnitsLowBalance, env.Event)
	assert.Equal(t, id, env.EventID)
	assert.Equal(t, e.org, env.OrganisationID)
	_, err := time.Parse(time.RFC3339, env.Timestamp)
	assert.NoError(t, err)
	assert.Equal(t, int64(40), env.Data.CurrentBalance)

	logs, err := e.db.Logs(context.Background(), w.ID, webhook.LogFilter{})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, webhook.LogSuccess, logs[0].Status)
	assert.Equal(t, 200, logs[0].ResponseCode)

	// A second pass sends nothing again.
	e.step(t)
	assert.Len(t, rc.requests(), 1)
}

func TestNoSignatureWithoutSecret(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, always(204))
	e.hook(t, rc, "", webhook.EventWorkflowCreated)
	e.emit(t, webhook.EventWorkflowCreated, map[string]any{"workflow_id": "wf"})
	e.step(t)
	require.Len(t, rc.requests(), 1)
	assert.Empty(t, rc.requests()[0].Header.Get("X-Service-Signature"))
}

func TestRetryDelay(t *testing.T) {
	// The spec: delays 0, 2, 4 s, "2 to the power of the attempt number".
	for _, tc := range []struct {
		failed int
		want   time.Duration
	}{{0, 0}, {1, 2 * time.Second}, {2, 4 * time.Second}, {3, 8 * time.Second}} {
		assert.Equal(t, tc.want, webhook.RetryDelay(tc.failed), "after %d failed attempts", tc.failed)
	}
}

func TestRetrySchedule(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, always(503))
	rc.clock = e.clock.Now
	w := e.hook(t, rc, "k", webhook.EventVerificationFailed)
	watcher := newReceiver(t, always(200))
	e.hook(t, watcher, "k", webhook.EventDeliveryFailed)
	start := e.clock.Now()
	e.emit(t, webhook.EventVerificationFailed, map[string]any{"verification_id": "v1"})

	e.step(t)
	require.Len(t, rc.requests(), 1)
	e.clock.Advance(1999 * time.Millisecond)
	e.step(t)
	require.Len(t, rc.requests(), 1, "the second attempt waits 2 s")
	e.clock.Advance(time.Millisecond)
	e.step(t)
	require.Len(t, rc.requests(), 2)
	e.clock.Advance(3999 * time.Millisecond)
	e.step(t)
	require.Len(t, rc.requests(), 2, "the third attempt waits 4 s more")
	e.clock.Advance(time.Millisecond)
	e.step(t)
	reqs := rc.requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []time.Duration{0, 2 * time.Second, 6 * time.Second},
		[]time.Duration{reqs[0].At.Sub(start), reqs[1].At.Sub(start), reqs[2].At.Sub(start)})
	// Every attempt carries the same delivery id and the same bytes.
	assert.Equal(t, reqs[0].Header.Get("X-Delivery-ID"), reqs[2].Header.Get("X-Delivery-ID"))
	assert.Equal(t, reqs[0].Body, reqs[2].Body)

	e.clock.Advance(time.Hour)
	e.step(t)
	assert.Len(t, rc.requests(), 3, "no fourth attempt")

	ds, err := e.db.Deliveries(context.Background(), w.ID, 0)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, webhook.DeliveryFailedPermanent, ds[0].Status)
	assert.Equal(t, 3, ds[0].Attempts)
	got, err := e.db.Webhook(context.Background(), w.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.FailureCount)

	logs, err := e.db.Logs(context.Background(), w.ID, webhook.LogFilter{})
	require.NoError(t, err)
	var statuses []string
	for _, l := range logs {
		statuses = append(statuses, l.Status)
	}
	assert.Equal(t, []string{"Failed", "Retrying", "Retrying"}, statuses, "newest first")

	assert.Equal(t, 3.0, e.metric(t, "tambua_webhook_attempts_total", "outcome", "http_error"))
	assert.Equal(t, 1.0, e.metric(t, "tambua_webhook_deliveries_total", "status", "failed_permanent"))

	// webhook.delivery.failed reached the subscribed watcher.
	wr := watcher.requests()
	require.Len(t, wr, 1)
	var env webhook.Envelope
	require.NoError(t, json.Unmarshal(wr[0].Body, &env))
	assert.Equal(t, webhook.EventDeliveryFailed, env.Event)
	var df webhook.DeliveryFailed
	require.NoError(t, json.Unmarshal(env.Data, &df))
	assert.Equal(t, w.ID, df.WebhookID)
	assert.Equal(t, 3, df.Attempts)
	assert.Equal(t, 503, df.LastResponseCode)
	assert.Equal(t, int64(1), df.FailureCount)
}

func TestNoRetry(t *testing.T) {
	// A CA that did not sign the endpoint's certificate.
	otherCA, _, _, err := webhook.GenerateClientIdentity("unrelated", time.Now(), time.Hour)
	require.NoError(t, err)
	tests := []struct {
		name     string
		status   int
		wrongCA  bool
		wantKind string
	}{
		{name: "4xx", status: 422},
		{name: "3xx is not followed and not retried", status: 307},
		{name: "tls verification failure", status: 200, wrongCA: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			rc := newReceiver(t, always(tc.status))
			w := e.hook(t, rc, "k", webhook.EventWorkflowUpdated)
			if tc.wrongCA {
				w.CACertificate = string(otherCA)
				require.NoError(t, e.db.UpdateWebhook(context.Background(), w))
			}
			e.emit(t, webhook.EventWorkflowUpdated, map[string]any{"workflow_id": "wf"})
			for range 4 {
				e.step(t)
				e.clock.Advance(10 * time.Second)
			}
			logs, err := e.db.Logs(context.Background(), w.ID, webhook.LogFilter{})
			require.NoError(t, err)
			require.Len(t, logs, 1, "one attempt only")
			assert.Equal(t, webhook.LogFailed, logs[0].Status)
			if tc.wrongCA {
				assert.Empty(t, rc.requests(), "no request passes a failed handshake")
				assert.Contains(t, logs[0].Error, "tls_error")
			} else {
				assert.Len(t, rc.requests(), 1)
				assert.Equal(t, tc.status, logs[0].ResponseCode)
			}
		})
	}
}

func TestAutoPauseAndResume(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, always(400))
	w := e.hook(t, rc, "k", webhook.EventVerificationStarted)
	ctx := context.Background()
	for i := range webhook.AutoPauseAfter {
		e.emit(t, webhook.EventVerificationStarted, map[string]any{"n": i})
		e.step(t)
	}
	got, err := e.db.Webhook(ctx, w.ID)
	require.NoError(t, err)
	assert.Equal(t, webhook.StatusPaused, got.Status)
	assert.Equal(t, int64(10), got.FailureCount)
	mail := e.mailer.Sent()
	require.Len(t, mail, 1)
	assert.Equal(t, []string{"ops@example.com"}, mail[0].To)
	assert.Contains(t, mail[0].Subject, "paused")
	assert.Contains(t, mail[0].Body, w.ID)

	// Held while paused, not dropped.
	rc.setStatus(always(200))
	held := []string{e.emit(t, webhook.EventVerificationStarted, map[string]any{"n": "a"}), e.emit(t, webhook.EventVerificationStarted, map[string]any{"n": "b"})}
	e.step(t)
	e.clock.Advance(time.Minute)
	e.step(t)
	assert.Len(t, rc.requests(), 10, "nothing is sent while paused")

	require.NoError(t, e.db.SetWebhookStatus(ctx, w.ID, webhook.StatusActive))
	e.step(t)
	reqs := rc.requests()
	require.Len(t, reqs, 12)
	var ids []string
	for _, r := range reqs[10:] {
		var env webhook.Envelope
		require.NoError(t, json.Unmarshal(r.Body, &env))
		ids = append(ids, env.EventID)
	}
	assert.ElementsMatch(t, held, ids)
	got, err = e.db.Webhook(ctx, w.ID)
	require.NoError(t, err)
	assert.Equal(t, webhook.StatusActive, got.Status)
	assert.Equal(t, int64(0), got.ConsecutiveFailures)
	assert.Len(t, e.mailer.Sent(), 1)
}

func TestInactiveWebhookGetsNothing(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, always(200))
	w := webhook.Webhook{ID: webhook.NewWebhookID(), OrganisationID: e.org, Type: webhook.TypeEventNotification,
		Name: "new", URL: rc.URL, CACertificate: rc.CAPEM, Events: []string{webhook.EventWorkflowCreated}}
	require.NoError(t, w.Normalize())
	require.NoError(t, e.db.CreateWebhook(context.Background(), w)) // inactive
	e.emit(t, webhook.EventWorkflowCreated, map[string]any{})
	e.step(t)
	// An event the dispatcher reads only after the activation (the
	// server was down) is still from before it.
	e.emit(t, webhook.EventWorkflowCreated, map[string]any{})
	time.Sleep(2 * time.Millisecond)
	require.NoError(t, e.db.SetWebhookStatus(context.Background(), w.ID, webhook.StatusActive))
	e.step(t)
	assert.Empty(t, rc.requests(), "events before activation are not subscribed")
	e.emit(t, webhook.EventWorkflowCreated, map[string]any{})
	e.step(t)
	assert.Len(t, rc.requests(), 1)
}

// TestEditDoesNotDisturbPendingDeliveries: a retrying delivery keeps its
// id, payload, schedule and target across an edit (the spec: "editing does
// not affect pending deliveries"); events queued after the edit use the
// edited URL, secret and headers.
func TestEditDoesNotDisturbPendingDeliveries(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	old := newReceiver(t, func(n int) int {
		if n == 1 {
			return 502
		}
		return 200
	})
	edited := newReceiver(t, always(200))
	w := e.hook(t, old, "k1", webhook.EventUnitsDepleted)
	w.Headers = []webhook.Header{{Name: "X-Version", Value: "1", Enabled: true}}
	require.NoError(t, e.db.UpdateWebhook(ctx, w))
	e.emit(t, webhook.EventUnitsDepleted, map[string]any{"current_balance": 0})
	e.step(t)
	require.Len(t, old.requests(), 1)

	w.URL = edited.URL + "/v2"
	w.CACertificate = edited.CAPEM
	w.Secret = "k2"
	w.Headers = []webhook.Header{{Name: "X-Version", Value: "2", Enabled: true}}
	w.Name = "renamed"
	require.NoError(t, e.db.UpdateWebhook(ctx, w))
	e.step(t)
	assert.Len(t, old.requests(), 1, "the schedule is unchanged: not before 2 s")
	e.clock.Advance(2 * time.Second)
	e.step(t)
	assert.Empty(t, edited.requests(), "the pending delivery is not redirected by the edit")
	got := old.requests()
	require.Len(t, got, 2)
	assert.Equal(t, got[0].Header.Get("X-Delivery-ID"), got[1].Header.Get("X-Delivery-ID"))
	assert.Equal(t, got[0].Body, got[1].Body)
	assert.Equal(t, "1", got[1].Header.Get("X-Version"))
	require.NoError(t, webhook.Verify("k1", got[1].Body, got[1].Header.Get("X-Service-Signature")))
	ds, err := e.db.Deliveries(ctx, w.ID, 0)
	require.NoError(t, err)
	assert.Equal(t, webhook.DeliverySuccess, ds[0].Status)
	assert.Equal(t, 2, ds[0].Attempts)

	// An event after the edit goes where the webhook now points.
	e.emit(t, webhook.EventUnitsDepleted, map[string]any{"current_balance": 0})
	e.step(t)
	fresh := edited.requests()
	require.Len(t, fresh, 1)
	assert.Equal(t, "/v2", fresh[0].Path)
	assert.Equal(t, "2", fresh[0].Header.Get("X-Version"))
	require.NoError(t, webhook.Verify("k2", fresh[0].Body, fresh[0].Header.Get("X-Service-Signature")))
	assert.Len(t, old.requests(), 2)
}

// TestFailureNoticesDoNotChain: two failing webhooks subscribed to
// webhook.delivery.failed do not notify each other without end.
func TestFailureNoticesDoNotChain(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := newReceiver(t, always(400))
	b := newReceiver(t, always(400))
	wa := e.hook(t, a, "k", webhook.EventVerificationFailed, webhook.EventDeliveryFailed)
	wb := e.hook(t, b, "k", webhook.EventDeliveryFailed)
	e.emit(t, webhook.EventVerificationFailed, map[string]any{})
	for range 5 {
		e.step(t)
	}
	// a fails the event; b gets (and fails) the notice about a; nobody
	// hears about b's failure, and a never hears about its own.
	assert.Len(t, a.requests(), 1)
	assert.Len(t, b.requests(), 1)
	for _, w := range []webhook.Webhook{wa, wb} {
		got, err := e.db.Webhook(ctx, w.ID)
		require.NoError(t, err)
		assert.Equal(t, int64(1), got.FailureCount)
	}
}
