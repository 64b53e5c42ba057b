package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Dispatcher delivers outbox events to webhooks: it fans each event out to
// the subscribed webhooks, then sends every due delivery, retrying on the
// schedule of RetryDelay and recording every attempt. State lives in the
// Store, so a process killed mid-retry resumes where it stopped when the
// next one starts (receivers deduplicate on event_id: a delivery whose
// attempt was in flight at the kill is sent again).
//
// Deliveries never wait for one another: Run starts each due delivery as
// soon as its webhook and the dispatcher have room, and wakes when the
// next retry is due. A slow receiver fills only its own share
// (PerWebhook, and one slot while its last attempt timed out).
type Dispatcher struct {
	Store  Store
	Sender *Sender
	Mailer Mailer
	// Now is the clock; time.Now when nil. Tests move it by hand.
	Now func() time.Time
	// AlertTo receives the auto-pause email of webhooks without a
	// notify_email.
	AlertTo string
	Logger  *slog.Logger
	// Workers bounds concurrent deliveries overall (DefaultWorkers when
	// zero).
	Workers int
	// PerWebhook bounds concurrent deliveries to one webhook
	// (DefaultPerWebhook when zero).
	PerWebhook int
	// Poll is the longest wait between two passes (1 s when zero).
	Poll time.Duration
	// Metrics, when set, count attempts and final statuses.
	Metrics *Metrics
	// Workflows, when set, reads a workflow's webhook block and reviewer:
	// events about the workflow also go to the registered webhook with the
	// block's URL, and verification.review_required is mailed to the
	// reviewer.
	Workflows WorkflowLookup
	// Grace is how long attempts under way may run on once Run's context
	// ends (a replica shutting down): Run stops claiming at once, lets
	// the attempts finish within Grace, then cuts the rest short and
	// hands their deliveries back (LeaseReleaser) so another replica
	// sends them at once rather than when their leases lapse. Zero cuts
	// them short at once.
	Grace time.Duration
	// Lease is how long a claimed delivery is kept from other
	// dispatchers: when its holder dies, others send it once the lease
	// lapses. Zero: two attempt timeouts plus a minute. It must exceed
	// the attempt timeout, or a live holder's attempt could be sent again
	// by another replica.
	Lease time.Duration

	wakeOnce sync.Once
	wake     chan struct{}
}

// Concurrency defaults. An attempt mostly waits on the network (a goroutine
// and one TLS connection each), so the overall bound is generous: other
// webhooks wait only when DefaultWorkers/DefaultPerWebhook receivers (64)
// hang at once on their first attempts; after its first timeout a webhook
// keeps one slot, so it then takes DefaultWorkers hanging receivers. Four
// per webhook keeps a fast receiver's backlog moving (measured with
// `tambua bench webhooks`) without flooding it.
const (
	DefaultWorkers    = 256
	DefaultPerWebhook = 4
)

func (d *Dispatcher) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *Dispatcher) log() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}

func (d *Dispatcher) wakeCh() chan struct{} {
	d.wakeOnce.Do(func() { d.wake = make(chan struct{}, 1) })
	return d.wake
}

// Notify asks the dispatcher to look at the outbox now (after a commit
// that wrote events, or a resume).
func (d *Dispatcher) Notify() {
	select {
	case d.wakeCh() <- struct{}{}:
	default:
	}
}

func (d *Dispatcher) limits() (workers, perWebhook int) {
	workers, perWebhook = d.Workers, d.PerWebhook
	if workers <= 0 {
		workers = DefaultWorkers
	}
	if perWebhook <= 0 {
		perWebhook = DefaultPerWebhook
	}
	return workers, min(workers, perWebhook)
}

// lease is how long a claimed delivery is kept from other workers: longer
// than the longest attempt, so a live worker never loses its delivery.
func (d *Dispatcher) lease(now time.Time) time.Time {
	if d.Lease > 0 {
		return now.Add(d.Lease)
	}
	return now.Add(2*d.Sender.timeout() + time.Minute)
}

// finished is what a delivery goroutine reports back to Run.
type finished struct {
	webhookID string
	timedOut  bool
}

// Run delivers until ctx ends. It first frees the leases a killed process
// may have left, so its deliveries resume at once. Each claimed delivery
// runs on its own goroutine, and fan-out on another; Run claims again
// whenever a delivery finishes, a fan-out pass ends, the next retry falls
// due, or Poll passes.
func (d *Dispatcher) Run(ctx context.Context) error {
	if err := d.Store.ReleaseLeases(ctx); err != nil {
		return fmt.Errorf("webhook: releasing leases: %w", err)
	}
	poll := d.Poll
	if poll <= 0 {
		poll = time.Second
	}
	workers, perWebhook := d.limits()
	inflight := map[string]int{}
	slow := map[string]bool{} // webhooks whose last attempt timed out
	total := 0
	done := make(chan finished, workers)
	var wg sync.WaitGroup
	// Attempts run on a context of their own, cut when the grace after
	// ctx ends runs out; those cut short are handed back.
	sendCtx, cutSends := context.WithCancel(context.WithoutCancel(ctx))
	defer cutSends()
	var cutMu sync.Mutex
	var cut []string
	defer func() {
		wg.Wait()
		d.handBack(cut)
	}()
	finish := func(f finished) {
		total--
		if inflight[f.webhookID]--; inflight[f.webhookID] <= 0 {
			delete(inflight, f.webhookID)
		}
		if f.timedOut {
			slow[f.webhookID] = true
		} else {
			delete(slow, f.webhookID)
		}
	}
	// The outbox is fanned out on its own goroutine, on a notify and at
	// least once per poll: fan-out may wait (a reviewer mail to a slow
	// SMTP server), and claims and retries must not wait with it. Each
	// pass that ends signals fanned, so new deliveries are claimed at once.
	fanned := make(chan struct{}, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if err := d.fanOut(ctx); err != nil && ctx.Err() == nil {
				d.log().Error("webhook dispatcher fan-out", "err", err)
			}
			select {
			case fanned <- struct{}{}:
			default:
			}
			t := time.NewTimer(poll)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-d.wakeCh():
			case <-t.C:
			}
			t.Stop()
		}
	}()
	for {
		wait := poll
		if free := workers - total; free > 0 && ctx.Err() == nil {
			busy := make(map[string]int, len(inflight)+len(slow))
			for id, n := range inflight {
				busy[id] = n
			}
			for id := range slow {
				// A receiver that timed out gets one attempt at a time
				// until it answers again: its in-flight attempts plus
				// the share it is denied fill all but one slot.
				busy[id] += perWebhook - 1
			}
			now := d.now()
			due, err := d.Store.ClaimDue(ctx, Claim{Now: now, LeaseUntil: d.lease(now), Limit: free, PerWebhook: perWebhook, Busy: busy})
			if err != nil && ctx.Err() == nil {
				d.log().Error("webhook dispatcher claim", "err", err)
			}
			for _, dl := range due {
				total++
				inflight[dl.WebhookID]++
				wg.Add(1)
				go func(dl Delivery) {
					defer wg.Done()
					timedOut, err := d.deliver(sendCtx, dl)
					if err != nil && sendCtx.Err() != nil {
						cutMu.Lock()
						cut = append(cut, dl.ID)
						cutMu.Unlock()
					} else if err != nil {
						d.log().Error("webhook delivery", "delivery_id", dl.ID, "err", err)
					}
					done <- finished{webhookID: dl.WebhookID, timedOut: timedOut}
				}(dl)
			}
			// Wake when the next waiting delivery falls due. One due now
			// but not claimed waits for room, which a finish signals, so
			// only later due times count: a backlog held back by a slow
			// receiver must not hide another webhook's retry.
			if at, ok, err := d.Store.NextDue(ctx, d.now()); err == nil && ok {
				if until := at.Sub(d.now()); until > 0 && until < wait {
					wait = until
				}
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			d.finishInFlight(total, done, cutSends)
			return nil
		case <-fanned:
		case f := <-done:
			finish(f)
		case <-t.C:
		}
		t.Stop()
		// Take every other finish already reported before claiming again.
		for drained := false; !drained; {
			select {
			case f := <-done:
				finish(f)
			default:
				drained = true
			}
		}
	}
}

// finishInFlight waits, after Run's context ended, for the total
// attempts under way to report on done, at most Grace, then cuts the rest
// short. done holds a slot per attempt, so the goroutines of those cut
// short end without anyone reading it.
func (d *Dispatcher) finishInFlight(total int, done <-chan finished, cut context.CancelFunc) {
	if total > 0 && d.Grace > 0 {
		d.log().Info("webhook dispatcher stopping: finishing attempts under way", "attempts", total, "grace", d.Grace.String())
		t := time.NewTimer(d.Grace)
		defer t.Stop()
		for total > 0 {
			select {
			case <-done:
				total--
			case <-t.C:
				cut()
				return
			}
		}
	}
	cut()
}

// LeaseReleaser is a Store that can give leases back before they lapse
// (server/sqlite and server/postgres).
type LeaseReleaser interface {
	// ReleaseDeliveries frees the leases of the deliveries ids that are
	// still waiting, so any dispatcher may claim them at once.
	ReleaseDeliveries(ctx context.Context, ids []string) error
}

// handBack frees the leases of deliveries whose attempts a shutdown cut
// short: another replica sends them now. Each may have reached its
// receiver before the cut; it is then received twice, which receivers
// handle by event_id (at least once, never lost).
func (d *Dispatcher) handBack(ids []string) {
	if len(ids) == 0 {
		return
	}
	r, ok := d.Store.(LeaseReleaser)
	if !ok {
		return // the leases lapse at lease_until
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.ReleaseDeliveries(ctx, ids); err != nil {
		d.log().Error("webhook dispatcher: handing back deliveries", "count", len(ids), "err", err)
		return
	}
	d.log().Info("webhook dispatcher: deliveries handed back to other replicas", "count", len(ids))
}

// Step runs one pass: fan out pending events, then send every delivery
// due now and wait for the attempts to be recorded. Tests and the bench
// use it to move a fake clock between passes; Run does not wait.
func (d *Dispatcher) Step(ctx context.Context) error {
	if err := d.fanOut(ctx); err != nil {
		return err
	}
	workers, perWebhook := d.limits()
	for {
		now := d.now()
		due, err := d.Store.ClaimDue(ctx, Claim{Now: now, LeaseUntil: d.lease(now), Limit: workers, PerWebhook: perWebhook})
		if err != nil {
			return err
		}
		if len(due) == 0 {
			return nil
		}
		var wg sync.WaitGroup
		for _, dl := range due {
			wg.Add(1)
			go func(dl Delivery) {
				defer wg.Done()
				if _, err := d.deliver(ctx, dl); err != nil {
					d.log().Error("webhook delivery", "delivery_id", dl.ID, "err", err)
				}
			}(dl)
		}
		wg.Wait()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func (d *Dispatcher) fanOut(ctx context.Context) error {
	for {
		evs, err := d.Store.PendingEvents(ctx, 100)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			return nil
		}
		hooks := map[int64][]Webhook{}
		workflows := map[string]WorkflowSettings{}
		for _, ev := range evs {
			ws, ok := hooks[ev.OrganisationID]
			if !ok {
				if ws, err = d.Store.ListWebhooks(ctx, ev.OrganisationID); err != nil {
					return err
				}
				hooks[ev.OrganisationID] = ws
			}
			var wf WorkflowSettings
			if id := eventWorkflow(ev.Data); id != "" && d.Workflows != nil {
				var ok bool
				if wf, ok = workflows[id]; !ok {
					if wf, _, err = d.Workflows(ctx, id); err != nil {
						return err
					}
					workflows[id] = wf
				}
				if ev.Event == EventVerificationReviewRequired {
					d.mailReviewer(ctx, ev, wf)
				}
			}
			ds, err := d.deliveriesFor(ev, ws, wf)
			if err != nil {
				return err
			}
			if err := d.Store.FanOut(ctx, ev, ds); err != nil {
				return err
			}
		}
	}
}

// deliveriesFor returns one delivery per subscribed webhook that is active
// or paused (a paused webhook's deliveries wait for its resume) and was
// activated before the event happened, and to the webhook the event's
// workflow names in its webhook block. An inactive webhook receives
// nothing. A webhook.delivery.failed event is not
// sent to the webhook whose failure it reports.
func (d *Dispatcher) deliveriesFor(ev OutboxEvent, ws []Webhook, wf WorkflowSettings) ([]Delivery, error) {
	var subscribed []Webhook
	for _, w := range ws {
		if !(w.Subscribed(ev.Event) || routedBy(w, wf, ev.Event)) || w.Status == StatusInactive {
			continue
		}
		// The outbox may be read late (the server was down, or the event
		// was written by a CLI command): an event from before the webhook
		// was first activated is not its event.
		if w.ActivatedAt == nil || w.ActivatedAt.After(ev.CreatedAt) {
			continue
		}
		if ev.Event == EventDeliveryFailed {
			var df DeliveryFailed
			if json.Unmarshal(ev.Data, &df) == nil && df.WebhookID == w.ID {
				continue
			}
		}
		subscribed = append(subscribed, w)
	}
	if len(subscribed) == 0 {
		return nil, nil
	}
	data := ev.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	body, err := json.Marshal(Envelope{Event: ev.Event, EventID: ev.EventID, Timestamp: ev.CreatedAt.UTC().Format(TimestampLayout),
		OrganisationID: ev.OrganisationID, Data: data})
	if err != nil {
		return nil, fmt.Errorf("webhook: event %s: %w", ev.EventID, err)
	}
	now := d.now()
	ds := make([]Delivery, len(subscribed))
	for i, w := range subscribed {
		ds[i] = Delivery{ID: NewDeliveryID(), WebhookID: w.ID, OrganisationID: ev.OrganisationID, EventID: ev.EventID,
			Event: ev.Event, Body: body, Target: TargetOf(w), Status: DeliveryPending, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now}
	}
	return ds, nil
}

// deliver makes one attempt of dl and records it. timedOut reports an
// attempt that ran out of time.
func (d *Dispatcher) deliver(ctx context.Context, dl Delivery) (timedOut bool, err error) {
	w, err := d.Store.Webhook(ctx, dl.WebhookID)
	if err != nil {
		return false, err
	}
	// The delivery goes where the webhook pointed when it was queued: an
	// edit does not change pending deliveries (the spec).
	t := dl.Target
	if t.URL == "" {
		t = TargetOf(w) // queued before targets were stored
	}
	a := d.Sender.Do(ctx, Request{URL: t.URL, Method: t.Method, CAPEM: t.CACertificate, Secret: t.Secret,
		Event: dl.Event, WebhookID: w.ID, DeliveryID: dl.ID, Headers: t.Headers, Body: dl.Body})
	if ctx.Err() != nil {
		// Shutting down: the lease lapses and the attempt is made again by
		// the next process, which is what a kill would do anyway.
		return false, ctx.Err()
	}
	timedOut = a.Kind == KindTimeout
	now := d.now()
	dl.Attempts++
	dl.LastCode = a.StatusCode
	dl.LastError = a.ErrorText()
	dl.UpdatedAt = now
	logStatus := LogSuccess
	switch {
	case a.Kind == KindSuccess:
		dl.Status = DeliverySuccess
	case a.Retryable() && dl.Attempts < MaxAttempts:
		dl.Status = DeliveryRetrying
		dl.NextAttemptAt = now.Add(RetryDelay(dl.Attempts))
		logStatus = LogRetrying
	default:
		dl.Status = DeliveryFailedPermanent
		logStatus = LogFailed
	}
	rec := AttemptRecord{Delivery: dl, Log: LogEntry{WebhookID: w.ID, DeliveryID: dl.ID, EventID: dl.EventID, Event: dl.Event,
		Timestamp: now, Status: logStatus, Attempt: dl.Attempts, ResponseCode: a.StatusCode,
		ResponseTimeMS: a.Duration.Milliseconds(), Error: dl.LastError}}
	events := func(w Webhook) []OutboxEvent {
		// A failed delivery of a failure notice is not itself announced,
		// or two failing webhooks would notify each other forever.
		if dl.Status != DeliveryFailedPermanent || dl.Event == EventDeliveryFailed {
			return nil
		}
		data, _ := json.Marshal(DeliveryFailed{WebhookID: w.ID, WebhookName: w.Name, DeliveryID: dl.ID, Event: dl.Event,
			EventID: dl.EventID, Attempts: dl.Attempts, LastResponseCode: a.StatusCode, Error: dl.LastError, FailureCount: w.FailureCount})
		return []OutboxEvent{{EventID: NewEventID(), Event: EventDeliveryFailed, OrganisationID: w.OrganisationID, Data: data, CreatedAt: now}}
	}
	res, err := d.Store.RecordAttempt(ctx, rec, events)
	if err != nil {
		return timedOut, err
	}
	d.Metrics.observe(a, dl.Status, res.Paused)
	d.log().Info("webhook attempt", "webhook_id", w.ID, "delivery_id", dl.ID, "event", dl.Event,
		"attempt", dl.Attempts, "status", dl.Status, "code", a.StatusCode, "ms", a.Duration.Milliseconds())
	if res.Paused {
		d.notifyPaused(ctx, res.Webhook, now)
	}
	return timedOut, nil
}

func (d *Dispatcher) notifyPaused(ctx context.Context, w Webhook, now time.Time) {
	to := w.NotifyEmail
	if to == "" {
		to = d.AlertTo
	}
	if d.Mailer == nil || to == "" {
		d.log().Warn("webhook paused after consecutive failures; no mail recipient configured", "webhook_id", w.ID)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Your webhook %q (%s) was paused automatically at %s after %d consecutive failed deliveries.\n\n",
		w.Name, w.ID, now.UTC().Format(time.RFC3339), w.ConsecutiveFailures)
	fmt.Fprintf(&b, "URL: %s\nTotal failed deliveries: %d\n\n", w.URL, w.FailureCount)
	b.WriteString("Events that occur while the webhook is paused are held, not dropped, and are delivered when you resume it.\n")
	fmt.Fprintf(&b, "Fix the endpoint, then resume it: tambua webhooks resume %s\n", w.ID)
	m := Mail{To: []string{to}, Subject: fmt.Sprintf("Webhook %q paused after %d consecutive failures", w.Name, w.ConsecutiveFailures),
		Body: b.String(), SentAt: now}
	if err := d.Mailer.Send(ctx, m); err != nil {
		d.log().Error("webhook pause email", "webhook_id", w.ID, "err", err)
	}
}
