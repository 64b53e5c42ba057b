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
	// Workers bounds concurrent deliveries (4 when zero).
	Workers int
	// Poll is the longest wait between two passes (1 s when zero).
	Poll time.Duration
	// Metrics, when set, count attempts and final statuses.
	Metrics *Metrics
	// Workflows, when set, reads a workflow's webhook block and reviewer:
	// events about the workflow also go to the registered webhook with the
	// block's URL, and verification.review_required is mailed to the
	// reviewer.
	Workflows WorkflowLookup

	wakeOnce sync.Once
	wake     chan struct{}
}

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

// Run delivers until ctx ends. It first frees the leases a killed process
// may have left, so its deliveries resume at once.
func (d *Dispatcher) Run(ctx context.Context) error {
	if err := d.Store.ReleaseLeases(ctx); err != nil {
		return fmt.Errorf("webhook: releasing leases: %w", err)
	}
	poll := d.Poll
	if poll <= 0 {
		poll = time.Second
	}
	for {
		if err := d.Step(ctx); err != nil && ctx.Err() == nil {
			d.log().Error("webhook dispatcher pass", "err", err)
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-d.wakeCh():
			t.Stop()
		case <-t.C:
		}
	}
}

// Step runs one pass: fan out pending events, then send every delivery
// due now and wait for the attempts to be recorded.
func (d *Dispatcher) Step(ctx context.Context) error {
	if err := d.fanOut(ctx); err != nil {
		return err
	}
	workers := d.Workers
	if workers <= 0 {
		workers = 4
	}
	for {
		now := d.now()
		// The lease outlives the longest attempt, so a live worker never
		// loses its delivery to another.
		due, err := d.Store.ClaimDue(ctx, now, now.Add(2*d.Sender.timeout()+time.Minute), 64)
		if err != nil {
			return err
		}
		if len(due) == 0 {
			return nil
		}
		sem := make(chan struct{}, workers)
		var wg sync.WaitGroup
		for _, dl := range due {
			sem <- struct{}{}
			wg.Add(1)
			go func(dl Delivery) {
				defer func() { <-sem; wg.Done() }()
				if err := d.deliver(ctx, dl); err != nil {
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

// deliver makes one attempt of dl and records it.
func (d *Dispatcher) deliver(ctx context.Context, dl Delivery) error {
	w, err := d.Store.Webhook(ctx, dl.WebhookID)
	if err != nil {
		return err
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
		return ctx.Err()
	}
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
		return err
	}
	d.Metrics.observe(a, dl.Status, res.Paused)
	d.log().Info("webhook attempt", "webhook_id", w.ID, "delivery_id", dl.ID, "event", dl.Event,
		"attempt", dl.Attempts, "status", dl.Status, "code", a.StatusCode, "ms", a.Duration.Milliseconds())
	if res.Paused {
		d.notifyPaused(ctx, res.Webhook, now)
	}
	return nil
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
