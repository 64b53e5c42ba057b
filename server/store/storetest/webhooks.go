package storetest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

// WebhookBackend is a database that keeps both the server's store and
// the webhooks' (server/sqlite, server/postgres).
type WebhookBackend interface {
	store.Store
	webhook.Store
}

// RunWebhooks runs the webhook.Store suite: webhooks, the fan-out of
// outbox events, leases, attempts with auto-pause, the delivery log.
func RunWebhooks(t *testing.T, open func(t *testing.T) WebhookBackend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s WebhookBackend)
	}{
		{"CRUD", testWebhookCRUD},
		{"FanOutOnce", testFanOut},
		{"LeasesAreExclusive", testLeases},
		{"HandBack", testHandBack},
		{"ClaimBounds", testClaimBounds},
		{"NextDue", testNextDue},
		{"DeliveriesKeepTheirTarget", testTargets},
		{"AttemptsAndAutoPause", testAttempts},
		{"LogsAndStats", testLogs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

func newHook(t *testing.T, s WebhookBackend, org int64, active bool) webhook.Webhook {
	t.Helper()
	ctx := context.Background()
	w := webhook.Webhook{ID: webhook.NewWebhookID(), OrganisationID: org, Type: webhook.TypeEventNotification,
		Name: "receiver", URL: "https://hooks.example.com/in", Method: "POST", CACertificate: "pem", Secret: "s",
		Headers: []webhook.Header{{Name: "X-A", Value: "1"}}, Events: []string{"verification.completed"}, Status: webhook.StatusInactive}
	require.NoError(t, s.CreateWebhook(ctx, w))
	if active {
		require.NoError(t, s.SetWebhookStatus(ctx, w.ID, webhook.StatusActive))
	}
	got, err := s.Webhook(ctx, w.ID)
	require.NoError(t, err)
	return got
}

func testWebhookCRUD(t *testing.T, s WebhookBackend) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	w := newHook(t, s, org.ID, false)
	assert.Equal(t, webhook.StatusInactive, w.Status)
	assert.Nil(t, w.ActivatedAt)
	assert.Equal(t, []webhook.Header{{Name: "X-A", Value: "1"}}, w.Headers)
	assert.Equal(t, []string{"verification.completed"}, w.Events)
	assert.Equal(t, "s", w.Secret)
	require.NoError(t, s.SetWebhookStatus(ctx, w.ID, webhook.StatusActive))
	w, _ = s.Webhook(ctx, w.ID)
	require.NotNil(t, w.ActivatedAt, "first activation is recorded")
	first := *w.ActivatedAt
	require.NoError(t, s.SetWebhookStatus(ctx, w.ID, webhook.StatusPaused))
	require.NoError(t, s.SetWebhookStatus(ctx, w.ID, webhook.StatusActive))
	w, _ = s.Webhook(ctx, w.ID)
	assert.True(t, first.Equal(*w.ActivatedAt), "and kept")

	w.Name, w.Criteria, w.RequestSchema = "renamed", &webhook.Criteria{RequireScore: true, MinThreshold: 0.5}, json.RawMessage(`{"type":"object"}`)
	w.Status = webhook.StatusPaused // not an editable field
	require.NoError(t, s.UpdateWebhook(ctx, w))
	got, err := s.Webhook(ctx, w.ID)
	require.NoError(t, err)
	assert.Equal(t, "renamed", got.Name)
	assert.Equal(t, &webhook.Criteria{RequireScore: true, MinThreshold: 0.5}, got.Criteria)
	assert.JSONEq(t, `{"type":"object"}`, string(got.RequestSchema))
	assert.Equal(t, webhook.StatusActive, got.Status, "update leaves the status")

	other := newHook(t, s, org.ID, false)
	list, err := s.ListWebhooks(ctx, org.ID)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, w.ID, list[0].ID, "oldest first")
	list, err = s.ListWebhooks(ctx, org.ID+1000)
	require.NoError(t, err)
	assert.Empty(t, list)

	require.NoError(t, s.DeleteWebhook(ctx, other.ID))
	_, err = s.Webhook(ctx, other.ID)
	assert.ErrorIs(t, err, webhook.ErrNotFound)
	assert.ErrorIs(t, s.DeleteWebhook(ctx, other.ID), webhook.ErrNotFound)
	assert.ErrorIs(t, s.SetWebhookStatus(ctx, "nope", webhook.StatusActive), webhook.ErrNotFound)
	ghost := w
	ghost.ID = "nope"
	assert.ErrorIs(t, s.UpdateWebhook(ctx, ghost), webhook.ErrNotFound)
}

func delivery(w webhook.Webhook, ev webhook.OutboxEvent, now time.Time) webhook.Delivery {
	return webhook.Delivery{ID: "dlv_" + w.ID + "_" + ev.EventID, WebhookID: w.ID, OrganisationID: w.OrganisationID, EventID: ev.EventID,
		Event: ev.Event, Body: []byte(`{"event":"` + ev.Event + `"}`), Status: webhook.DeliveryPending, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now}
}

// emit writes n events through a claim each, and returns them pending.
func emit(t *testing.T, s WebhookBackend, org store.Organisation, c store.Client, n int) []webhook.OutboxEvent {
	t.Helper()
	ctx := context.Background()
	for range n {
		require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, webhook.NewEventID(), 0), event(org.ID, "verification.completed")))
	}
	evs, err := s.PendingEvents(ctx, 1000)
	require.NoError(t, err)
	return evs
}

func testFanOut(t *testing.T, s WebhookBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	w := newHook(t, s, org.ID, true)
	evs := emit(t, s, org, c, 3)
	require.Len(t, evs, 3)
	assert.True(t, evs[0].Seq < evs[1].Seq && evs[1].Seq < evs[2].Seq, "oldest first")
	now := time.Now()
	d := delivery(w, evs[0], now)
	require.NoError(t, s.FanOut(ctx, evs[0], []webhook.Delivery{d}))
	// A second fan-out of the same event (another replica) keeps the first.
	dup := d
	dup.ID, dup.Body = "dlv_other", []byte("other")
	require.NoError(t, s.FanOut(ctx, evs[0], []webhook.Delivery{dup}))
	ds, err := s.Deliveries(ctx, w.ID, 0)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, d.Body, ds[0].Body)
	got, err := s.Delivery(ctx, d.ID)
	require.NoError(t, err)
	assert.Equal(t, d.EventID, got.EventID)
	_, err = s.Delivery(ctx, "dlv_other")
	assert.ErrorIs(t, err, webhook.ErrNotFound)
	left, err := s.PendingEvents(ctx, 10)
	require.NoError(t, err)
	assert.Len(t, left, 2, "a fanned-out event is no longer pending")
}

func testLeases(t *testing.T, s WebhookBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	w := newHook(t, s, org.ID, true)
	paused := newHook(t, s, org.ID, false)
	now := time.Now()
	for _, ev := range emit(t, s, org, c, 40) {
		require.NoError(t, s.FanOut(ctx, ev, []webhook.Delivery{delivery(w, ev, now), delivery(paused, ev, now)}))
	}
	// Four dispatchers (replicas) lease at once: each due delivery goes to
	// exactly one, and none of the inactive webhook's.
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := s.ClaimDue(ctx, webhook.Claim{Now: now.Add(time.Second), LeaseUntil: now.Add(time.Minute), Limit: 7})
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, d := range got {
					seen[d.ID]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Len(t, seen, 40)
	for id, n := range seen {
		assert.Equal(t, 1, n, id)
	}
	again, err := s.ClaimDue(ctx, webhook.Claim{Now: now.Add(2 * time.Second), LeaseUntil: now.Add(time.Minute), Limit: 100})
	require.NoError(t, err)
	assert.Empty(t, again, "leased rows are not due until the lease lapses")
	lapsed, err := s.ClaimDue(ctx, webhook.Claim{Now: now.Add(2 * time.Minute), LeaseUntil: now.Add(3 * time.Minute), Limit: 100})
	require.NoError(t, err)
	assert.Len(t, lapsed, 40, "a dead holder's leases lapse")
	require.NoError(t, s.ReleaseLeases(ctx))
	notYet, err := s.ClaimDue(ctx, webhook.Claim{Now: now.Add(-time.Second), LeaseUntil: now.Add(time.Minute), Limit: 100})
	require.NoError(t, err)
	assert.Empty(t, notYet, "not due before next_attempt_at")
}

// testHandBack: a dispatcher shutting down hands back the deliveries it
// cut short (webhook.LeaseReleaser); they are due again at once, while
// its other leases and other dispatchers' stay.
func testHandBack(t *testing.T, s WebhookBackend) {
	r, ok := s.(webhook.LeaseReleaser)
	if !ok {
		t.Skipf("%T does not hand back leases: they lapse", s)
	}
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	w := newHook(t, s, org.ID, true)
	now := time.Now()
	for _, ev := range emit(t, s, org, c, 5) {
		require.NoError(t, s.FanOut(ctx, ev, []webhook.Delivery{delivery(w, ev, now)}))
	}
	claim := webhook.Claim{Now: now.Add(time.Second), LeaseUntil: now.Add(time.Hour), Limit: 100}
	got, err := s.ClaimDue(ctx, claim)
	require.NoError(t, err)
	require.Len(t, got, 5)
	back := []string{got[0].ID, got[3].ID}
	require.NoError(t, r.ReleaseDeliveries(ctx, back))
	require.NoError(t, r.ReleaseDeliveries(ctx, nil), "nothing to hand back")
	again, err := s.ClaimDue(ctx, claim)
	require.NoError(t, err)
	var ids []string
	for _, d := range again {
		ids = append(ids, d.ID)
	}
	assert.ElementsMatch(t, back, ids, "only the handed-back deliveries are claimed again")
}

// testClaimBounds: a claim takes the earliest due deliveries first across
// webhooks, at most Limit in all and, per webhook, PerWebhook less what
// Busy says that webhook already has in flight.
func testClaimBounds(t *testing.T, s WebhookBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	a := newHook(t, s, org.ID, true)
	b := newHook(t, s, org.ID, true)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	due := map[string]time.Time{}
	// a's deliveries fall due at t0, t0+2s, t0+4s, t0+6s; b's at t0+1s,
	// t0+3s, t0+5s, t0+7s.
	for i, ev := range emit(t, s, org, c, 8) {
		w := a
		if i%2 == 1 {
			w = b
		}
		d := delivery(w, ev, t0.Add(time.Duration(i)*time.Second))
		due[d.ID] = d.NextAttemptAt
		require.NoError(t, s.FanOut(ctx, ev, []webhook.Delivery{d}))
	}
	now := t0.Add(time.Minute)
	lease := now.Add(time.Minute)
	claim := func(c webhook.Claim) []webhook.Delivery {
		t.Helper()
		c.Now, c.LeaseUntil = now, lease
		got, err := s.ClaimDue(ctx, c)
		require.NoError(t, err)
		return got
	}
	count := func(ds []webhook.Delivery) map[string]int {
		n := map[string]int{}
		for _, d := range ds {
			n[d.WebhookID]++
		}
		return n
	}
	assert.Empty(t, claim(webhook.Claim{Limit: 0}), "a zero limit claims nothing")
	assert.Empty(t, claim(webhook.Claim{Limit: 5, PerWebhook: 2, Busy: map[string]int{a.ID: 2, b.ID: 3}}),
		"no room on either webhook (Busy may exceed the bound)")

	got := claim(webhook.Claim{Limit: 10, PerWebhook: 2, Busy: map[string]int{a.ID: 1}})
	assert.Equal(t, map[string]int{a.ID: 1, b.ID: 2}, count(got), "a has one slot left, b two")
	for i := 1; i < len(got); i++ {
		assert.False(t, due[got[i].ID].Before(due[got[i-1].ID]), "earliest due first")
	}
	require.Len(t, got, 3)
	assert.True(t, due[got[0].ID].Equal(t0), "a's earliest")
	assert.True(t, got[0].NextAttemptAt.Equal(t0))

	got = claim(webhook.Claim{Limit: 2})
	require.Len(t, got, 2, "no bound per webhook: Limit alone")
	assert.Equal(t, map[string]int{a.ID: 2}, count(got), "a's t0+2s and t0+4s come before b's t0+5s")
	assert.True(t, due[got[0].ID].Equal(t0.Add(2*time.Second)))
	assert.True(t, due[got[1].ID].Equal(t0.Add(4*time.Second)))

	got = claim(webhook.Claim{Limit: 10, PerWebhook: 1})
	assert.Equal(t, map[string]int{a.ID: 1, b.ID: 1}, count(got), "one each")
	got = claim(webhook.Claim{Limit: 10})
	require.Len(t, got, 1, "a's four are leased; b's last is left")
	assert.True(t, due[got[0].ID].Equal(t0.Add(7*time.Second)))
	assert.Empty(t, claim(webhook.Claim{Limit: 10}), "all eight leased")
}

func testNextDue(t *testing.T, s WebhookBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	w := newHook(t, s, org.ID, true)
	paused := newHook(t, s, org.ID, false)
	now := time.Now().Truncate(time.Millisecond)
	_, ok, err := s.NextDue(ctx, now)
	require.NoError(t, err)
	assert.False(t, ok, "nothing waiting")
	evs := emit(t, s, org, c, 3)
	require.NoError(t, s.FanOut(ctx, evs[0], []webhook.Delivery{delivery(w, evs[0], now.Add(-time.Second))}))
	require.NoError(t, s.FanOut(ctx, evs[1], []webhook.Delivery{delivery(w, evs[1], now.Add(5*time.Second)),
		delivery(paused, evs[1], now.Add(2*time.Second))}))
	require.NoError(t, s.FanOut(ctx, evs[2], []webhook.Delivery{delivery(w, evs[2], now.Add(9*time.Second))}))
	at, ok, err := s.NextDue(ctx, now)
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, at.Equal(now.Add(5*time.Second)), "the earliest after now of an active webhook, got %v", at)
	// Leasing the t+5s delivery (as a dispatcher claiming at t+6s does)
	// leaves the t+9s one.
	got, err := s.ClaimDue(ctx, webhook.Claim{Now: now.Add(6 * time.Second), LeaseUntil: now.Add(time.Minute), Limit: 10})
	require.NoError(t, err)
	require.Len(t, got, 2, "the overdue one and the t+5s one")
	at, ok, err = s.NextDue(ctx, now)
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, at.Equal(now.Add(9*time.Second)), "leased rows are not waiting, got %v", at)
}

// testTargets: a delivery keeps the webhook's settings it was queued with;
// one queued without them (before targets were stored) has none.
func testTargets(t *testing.T, s WebhookBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	w := newHook(t, s, org.ID, true)
	now := time.Now()
	evs := emit(t, s, org, c, 2)
	with := delivery(w, evs[0], now)
	with.Target = webhook.TargetOf(w)
	without := delivery(w, evs[1], now)
	require.NoError(t, s.FanOut(ctx, evs[0], []webhook.Delivery{with}))
	require.NoError(t, s.FanOut(ctx, evs[1], []webhook.Delivery{without}))
	edited := w
	edited.URL, edited.Secret, edited.Headers = "https://elsewhere.example.com/in", "s2", nil
	require.NoError(t, s.UpdateWebhook(ctx, edited))

	want := webhook.Target{URL: "https://hooks.example.com/in", Method: "POST", CACertificate: "pem", Secret: "s",
		Headers: []webhook.Header{{Name: "X-A", Value: "1"}}}
	got, err := s.Delivery(ctx, with.ID)
	require.NoError(t, err)
	assert.Equal(t, want, got.Target, "an edit does not change a queued delivery")
	got, err = s.Delivery(ctx, without.ID)
	require.NoError(t, err)
	assert.Zero(t, got.Target)
	claimed, err := s.ClaimDue(ctx, webhook.Claim{Now: now.Add(time.Second), LeaseUntil: now.Add(time.Minute), Limit: 10})
	require.NoError(t, err)
	require.Len(t, claimed, 2)
	for _, d := range claimed {
		if d.ID == with.ID {
			assert.Equal(t, want, d.Target, "a claim returns the target")
		} else {
			assert.Zero(t, d.Target)
		}
	}
}

func attempt(d webhook.Delivery, status string, at time.Time) webhook.AttemptRecord {
	d.Attempts++
	d.Status, d.UpdatedAt, d.NextAttemptAt = status, at, at.Add(2*time.Second)
	log := webhook.LogEntry{WebhookID: d.WebhookID, DeliveryID: d.ID, EventID: d.EventID, Event: d.Event, Timestamp: at,
		Status: webhook.LogSuccess, Attempt: d.Attempts, ResponseCode: 200, ResponseTimeMS: 12}
	if status != webhook.DeliverySuccess {
		log.Status, log.ResponseCode, log.Error = webhook.LogFailed, 500, "server error"
	}
	return webhook.AttemptRecord{Delivery: d, Log: log}
}

func testAttempts(t *testing.T, s WebhookBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	w := newHook(t, s, org.ID, true)
	now := time.Now()
	evs := emit(t, s, org, c, webhook.AutoPauseAfter+1)
	var ds []webhook.Delivery
	for _, ev := range evs {
		d := delivery(w, ev, now)
		require.NoError(t, s.FanOut(ctx, ev, []webhook.Delivery{d}))
		ds = append(ds, d)
	}
	before := len(allEvents(t, s))
	rec, err := s.RecordAttempt(ctx, attempt(ds[0], webhook.DeliverySuccess, now), nil)
	require.NoError(t, err)
	assert.False(t, rec.Paused)
	require.NotNil(t, rec.Webhook.LastTriggeredAt)
	got, err := s.Delivery(ctx, ds[0].ID)
	require.NoError(t, err)
	assert.Equal(t, webhook.DeliverySuccess, got.Status)
	assert.Equal(t, 1, got.Attempts)

	for i, d := range ds[1:] {
		rec, err = s.RecordAttempt(ctx, attempt(d, webhook.DeliveryFailedPermanent, now.Add(time.Duration(i+1)*time.Millisecond)),
			func(w webhook.Webhook) []webhook.OutboxEvent {
				if w.Status != webhook.StatusPaused {
					return nil
				}
				return []webhook.OutboxEvent{{EventID: webhook.NewEventID(), Event: "webhook.paused", OrganisationID: w.OrganisationID, Data: json.RawMessage(`{}`)}}
			})
		require.NoError(t, err)
		if i < webhook.AutoPauseAfter-1 {
			assert.False(t, rec.Paused, i)
		}
	}
	assert.True(t, rec.Paused, "paused at the AutoPauseAfter-th consecutive failure")
	assert.EqualValues(t, webhook.AutoPauseAfter, rec.Webhook.ConsecutiveFailures)
	assert.EqualValues(t, webhook.AutoPauseAfter, rec.Webhook.FailureCount)
	w, _ = s.Webhook(ctx, w.ID)
	assert.Equal(t, webhook.StatusPaused, w.Status)
	evsAfter := allEvents(t, s)
	require.Len(t, evsAfter, before+1, "the pause event is written with the attempt")
	assert.Equal(t, "webhook.paused", evsAfter[len(evsAfter)-1].Event)
	require.NoError(t, s.SetWebhookStatus(ctx, w.ID, webhook.StatusActive))
	w, _ = s.Webhook(ctx, w.ID)
	assert.Zero(t, w.ConsecutiveFailures, "resuming resets the consecutive failures")
	assert.EqualValues(t, webhook.AutoPauseAfter, w.FailureCount)

	require.NoError(t, s.DeleteWebhook(ctx, w.ID))
	_, err = s.RecordAttempt(ctx, attempt(ds[0], webhook.DeliverySuccess, now), nil)
	assert.ErrorIs(t, err, webhook.ErrNotFound, "an attempt on a deleted webhook")
}

func testLogs(t *testing.T, s WebhookBackend) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	w := newHook(t, s, org.ID, true)
	st, err := s.Stats(ctx, w.ID)
	require.NoError(t, err)
	assert.Zero(t, st.Total)
	assert.Nil(t, st.LastSuccess)
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for i, status := range []string{webhook.LogSuccess, webhook.LogFailed, webhook.LogSuccess, webhook.LogRetrying} {
		require.NoError(t, s.AppendLog(ctx, webhook.LogEntry{WebhookID: w.ID, Event: "verification.check", Timestamp: t0.Add(time.Duration(i) * time.Minute),
			Status: status, Attempt: 1, ResponseCode: 200, ResponseTimeMS: int64(10 * (i + 1))}))
	}
	all, err := s.Logs(ctx, w.ID, webhook.LogFilter{})
	require.NoError(t, err)
	require.Len(t, all, 4)
	assert.True(t, all[0].Timestamp.Equal(t0.Add(3*time.Minute)), "newest first")
	ok, err := s.Logs(ctx, w.ID, webhook.LogFilter{Status: webhook.LogSuccess})
	require.NoError(t, err)
	assert.Len(t, ok, 2)
	window, err := s.Logs(ctx, w.ID, webhook.LogFilter{From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute), Limit: 1})
	require.NoError(t, err)
	require.Len(t, window, 1)
	assert.True(t, window[0].Timestamp.Equal(t0.Add(2*time.Minute)))
	none, err := s.Logs(ctx, w.ID, webhook.LogFilter{Event: "other"})
	require.NoError(t, err)
	assert.Empty(t, none)

	st, err = s.Stats(ctx, w.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 4, st.Total)
	assert.EqualValues(t, 2, st.Successful)
	assert.EqualValues(t, 2, st.Failed)
	assert.InDelta(t, 25, st.AvgResponseTimeMS, 1e-9)
	assert.InDelta(t, 0.5, st.SuccessRate, 1e-9)
	require.NotNil(t, st.LastSuccess)
	assert.True(t, st.LastSuccess.Equal(t0.Add(2*time.Minute)))
	require.NotNil(t, st.LastFailure)
	assert.True(t, st.LastFailure.Equal(t0.Add(3*time.Minute)))
	w, _ = s.Webhook(ctx, w.ID)
	require.NotNil(t, w.LastTriggeredAt)
}
