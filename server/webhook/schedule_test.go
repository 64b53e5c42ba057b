package webhook_test

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/webhook"
)

// hanging returns a receiver that never answers until the test ends.
func hanging(t *testing.T) *receiver {
	rc := newReceiver(t, always(200))
	rc.hold = make(chan struct{})
	t.Cleanup(func() { close(rc.hold) }) // runs before rc.Close, which waits for handlers
	return rc
}

// runDispatcher runs e's dispatcher on the real clock until the test ends.
func runDispatcher(t *testing.T, e *env) {
	e.d.Now = nil
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, e.d.Run(ctx))
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// waitFor polls until cond holds or the deadline passes.
func waitFor(t *testing.T, within time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cond()
}

// TestHangingReceiverDoesNotStallOthers (issue 14, medium 7): one receiver
// hangs (the sender's 30 s timeout) on 20 deliveries; another webhook of
// the same organisation and one of another organisation still get their
// events at once, the hanging one holds only its own share of the
// workers, and a retrying receiver sees its attempts at 0, 2 and 6 s
// while the other hangs and a third webhook keeps receiving a stream of
// events (each finish wakes the dispatcher, which must still wake for the
// retry on time).
func TestHangingReceiverDoesNotStallOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the dispatcher for about 7 s of real time")
	}
	e := newEnv(t)
	ctx := context.Background()
	stuck := hanging(t)
	e.hook(t, stuck, "k", webhook.EventWorkflowUpdated)
	for range 20 {
		e.emit(t, webhook.EventWorkflowUpdated, map[string]any{"workflow_id": "wf"})
	}
	runDispatcher(t, e)
	e.d.Notify()
	require.True(t, waitFor(t, 10*time.Second, func() bool { return len(stuck.requests()) == webhook.DefaultPerWebhook }),
		"the hanging receiver gets its share, %d", webhook.DefaultPerWebhook)

	// Same organisation, another webhook.
	fast := newReceiver(t, always(200))
	e.hook(t, fast, "k", webhook.EventUnitsLowBalance)
	// Another organisation, a receiver that fails twice, then answers.
	org2, err := e.db.CreateOrganisation(ctx, "Other")
	require.NoError(t, err)
	flaky := newReceiver(t, func(n int) int {
		if n <= 2 {
			return 503
		}
		return 204
	})
	other := *e
	other.org = org2.ID
	other.hook(t, flaky, "k", webhook.EventUnitsDepleted)

	sent := time.Now()
	for range 10 {
		e.emit(t, webhook.EventUnitsLowBalance, map[string]any{"current_balance": 1})
	}
	other.emit(t, webhook.EventUnitsDepleted, map[string]any{"current_balance": 0})
	e.d.Notify()
	// 5 s, far below the 30 s the hanging receiver holds its attempts,
	// leaves room for a loaded machine under -race (the log shows the
	// real figure, tens of milliseconds when the machine is idle).
	require.True(t, waitFor(t, 5*time.Second, func() bool { return len(fast.requests()) == 10 }),
		"the fast receiver got %d of 10 within 5 s", len(fast.requests()))
	t.Logf("fast receiver: 10 deliveries %v after the events", time.Since(sent).Round(time.Millisecond))

	// A stream of events to the fast receiver during the retry waits, 100
	// ms after the first failure and then every 900 ms: each wakes the
	// dispatcher before its 1 s poll would, so a dispatcher that waited
	// only for wakes and polls would take the retries 0.8 s and 0.5 s late.
	require.True(t, waitFor(t, 5*time.Second, func() bool { return len(flaky.requests()) == 1 }), "first attempt")
	streamed := 0
	for next := flaky.requests()[0].At.Add(100 * time.Millisecond); len(flaky.requests()) < 3 && time.Since(sent) < 8*time.Second; {
		if time.Now().Before(next) {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		e.emit(t, webhook.EventUnitsLowBalance, map[string]any{"current_balance": 1})
		e.d.Notify()
		streamed++
		next = next.Add(900 * time.Millisecond)
	}
	require.Len(t, flaky.requests(), 3, "three attempts")
	reqs := flaky.requests()
	gap1, gap2 := reqs[1].At.Sub(reqs[0].At), reqs[2].At.Sub(reqs[1].At)
	t.Logf("flaky receiver: first attempt %v after the event, then waits of %v and %v (%d events streamed meanwhile)",
		reqs[0].At.Sub(sent).Round(time.Millisecond), gap1.Round(time.Millisecond), gap2.Round(time.Millisecond), streamed)
	assert.Less(t, reqs[0].At.Sub(sent), 5*time.Second, "not held behind the hanging receiver (30 s)")
	// The waits are 2 s and 4 s from the end of a failed attempt; the
	// receiver answers in about a millisecond (the dispatcher wakes at the
	// due time, not on Poll, which is 1 s). 400 ms allow for a loaded
	// machine under -race and still catch a dispatcher that waits for the
	// stream's wakes, which would take the first retry 800 ms late.
	assert.InDelta(t, float64(2*time.Second), float64(gap1), float64(400*time.Millisecond), "second attempt 2 s after the first")
	assert.InDelta(t, float64(4*time.Second), float64(gap2), float64(400*time.Millisecond), "third attempt 4 s after the second")
	assert.GreaterOrEqual(t, gap1, 2*time.Second)
	assert.GreaterOrEqual(t, gap2, 4*time.Second)
	require.True(t, waitFor(t, 5*time.Second, func() bool { return len(fast.requests()) == 10+streamed }),
		"the streamed events arrived: %d of %d", len(fast.requests())-10, streamed)

	assert.Len(t, stuck.requests(), webhook.DefaultPerWebhook, "the hanging receiver never got more than its share")
	assert.Equal(t, webhook.DefaultPerWebhook, stuck.resetPeak())
}

// TestTimedOutReceiverGetsOneSlot: once an attempt to a receiver timed
// out, it gets one attempt at a time until it answers again, and its
// backlog still moves.
func TestTimedOutReceiverGetsOneSlot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the dispatcher for about 6 s of real time")
	}
	e := newEnv(t)
	// 1 s stands in for the 30 s timeout (the rule is the same); long
	// enough that a loaded machine under -race still completes the
	// handshakes well inside it.
	e.d.Sender.Timeout = time.Second
	stuck := hanging(t)
	e.hook(t, stuck, "k", webhook.EventWorkflowUpdated)
	for range 12 {
		e.emit(t, webhook.EventWorkflowUpdated, map[string]any{"workflow_id": "wf"})
	}
	runDispatcher(t, e)
	e.d.Notify()
	// A fifth request starts only once the first attempts timed out.
	require.True(t, waitFor(t, 10*time.Second, func() bool { return len(stuck.requests()) > webhook.DefaultPerWebhook }))
	assert.LessOrEqual(t, stuck.resetPeak(), webhook.DefaultPerWebhook, "never more than the webhook's share")
	// From the first timeouts on, attempts go one at a time: each starts
	// once the one before it timed out, a timeout (1 s) after it. Told by
	// when the receiver saw each request begin, not by how many it still
	// holds open: on a loaded machine a server notices a closed
	// connection late, and requests the client gave up on stayed "open"
	// there for seconds, overlapping the next ones.
	n0 := len(stuck.requests())
	time.Sleep(3500 * time.Millisecond)
	reqs := stuck.requests()[n0:]
	require.GreaterOrEqual(t, len(reqs), 2, "the backlog still moves, one at a time")
	for i := 1; i < len(reqs); i++ {
		gap := reqs[i].At.Sub(reqs[i-1].At)
		assert.GreaterOrEqual(t, gap, 900*time.Millisecond, "attempt %d began %v after the one before: not one at a time", i, gap)
	}
	t.Logf("%d requests in 3.5 s after the first timeouts, one at a time", len(reqs))
}

// TestClaimBoundsPerWebhook: one claim takes at most PerWebhook minus
// what a webhook already uses, so one backlog cannot fill the workers.
func TestClaimBoundsPerWebhook(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.hook(t, newReceiver(t, always(200)), "k", webhook.EventWorkflowUpdated)
	b := e.hook(t, newReceiver(t, always(200)), "k", webhook.EventWorkflowUpdated)
	evs := make([]server.Event, 10)
	for i := range evs {
		evs[i] = server.Event{EventID: webhook.NewEventID(), Event: webhook.EventWorkflowUpdated, OrganisationID: e.org, Data: []byte(`{}`)}
	}
	require.NoError(t, e.db.AddEvents(ctx, evs...))
	// Fan out without sending: a paused webhook's deliveries are queued
	// and held.
	for _, w := range []webhook.Webhook{a, b} {
		require.NoError(t, e.db.SetWebhookStatus(ctx, w.ID, webhook.StatusPaused))
	}
	e.step(t)
	for _, w := range []webhook.Webhook{a, b} {
		require.NoError(t, e.db.SetWebhookStatus(ctx, w.ID, webhook.StatusActive))
	}
	now := time.Now()
	tests := []struct {
		name  string
		claim webhook.Claim
		want  map[string]int
	}{
		{"per webhook", webhook.Claim{Limit: 100, PerWebhook: 3}, map[string]int{a.ID: 3, b.ID: 3}},
		{"busy counts", webhook.Claim{Limit: 100, PerWebhook: 3, Busy: map[string]int{a.ID: 2, b.ID: 3}}, map[string]int{a.ID: 1}},
		{"overall limit", webhook.Claim{Limit: 5, PerWebhook: 4}, nil},
		{"no bound", webhook.Claim{Limit: 100}, map[string]int{a.ID: 10, b.ID: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, e.db.ReleaseLeases(ctx))
			tc.claim.Now, tc.claim.LeaseUntil = now, now.Add(time.Hour)
			ds, err := e.db.ClaimDue(ctx, tc.claim)
			require.NoError(t, err)
			got := map[string]int{}
			for _, d := range ds {
				got[d.WebhookID]++
			}
			if tc.want == nil {
				assert.Len(t, ds, tc.claim.Limit)
				assert.LessOrEqual(t, got[a.ID], 4)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestHangingSMTPDoesNotHoldRetries: the reviewer mail of a
// verification.review_required event goes to a real TCP server that
// accepts and never answers; fan-out waits for it, but a retry already
// queued for another organisation's receiver still runs 2 s and 4 s
// after its failures.
func TestHangingSMTPDoesNotHoldRetries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the dispatcher for about 7 s of real time")
	}
	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never greeted
		}
	}()
	host, port, err := net.SplitHostPort(ln.Addr().String())
	require.NoError(t, err)
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	m, err := webhook.NewSMTPMailer(webhook.SMTPConfig{Host: host, Port: p, From: "tambua@example.com", TLS: "none"})
	require.NoError(t, err)
	e.d.Mailer = m
	e.d.Workflows = func(context.Context, string) (webhook.WorkflowSettings, bool, error) {
		return webhook.WorkflowSettings{Name: "KYC", ReviewerEmail: "reviewer@example.com"}, true, nil
	}
	flaky := newReceiver(t, func(n int) int {
		if n <= 2 {
			return 503
		}
		return 204
	})
	e.hook(t, flaky, "k", webhook.EventUnitsDepleted)
	e.emit(t, webhook.EventUnitsDepleted, map[string]any{"current_balance": 0})
	runDispatcher(t, e)
	// Registered after runDispatcher, so it runs first: the mail's
	// connection closes and the dispatcher can stop.
	t.Cleanup(func() {
		ln.Close()
		for {
			select {
			case c := <-accepted:
				c.Close()
			default:
				return
			}
		}
	})
	e.d.Notify()
	require.True(t, waitFor(t, 5*time.Second, func() bool { return len(flaky.requests()) == 1 }), "first attempt")

	e.emit(t, webhook.EventVerificationReviewRequired, map[string]any{"workflow_id": "wf", "verification_id": "v1"})
	e.d.Notify()
	var conn net.Conn
	select {
	case conn = <-accepted:
		accepted <- conn // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("the reviewer mail never connected")
	}
	require.True(t, waitFor(t, 10*time.Second, func() bool { return len(flaky.requests()) == 3 }),
		"three attempts while the mail hangs, got %d", len(flaky.requests()))
	reqs := flaky.requests()
	gap1, gap2 := reqs[1].At.Sub(reqs[0].At), reqs[2].At.Sub(reqs[1].At)
	t.Logf("while the SMTP server hangs: waits of %v and %v", gap1.Round(time.Millisecond), gap2.Round(time.Millisecond))
	assert.InDelta(t, float64(2*time.Second), float64(gap1), float64(400*time.Millisecond))
	assert.InDelta(t, float64(4*time.Second), float64(gap2), float64(400*time.Millisecond))
}
