package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Service holds the webhook operations of the console, the JSON API and
// the CLI: create, show, edit, activate, pause, resume, delete, validate
// the certificate, test, logs and statistics.
type Service struct {
	Store  Store
	Sender *Sender
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time
	// Notify, when set, wakes the dispatcher (after a resume).
	Notify func()
}

// NewService returns a service.
func NewService(st Store, s *Sender) *Service { return &Service{Store: st, Sender: s} }

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// ErrTransition: the status change is not allowed from the current status.
var ErrTransition = errors.New("webhook: status change not allowed")

// CriteriaInput sets verification criteria; nil fields keep defaults.
type CriteriaInput struct {
	RequireSuccess *bool    `json:"require_success"`
	RequireScore   *bool    `json:"require_score"`
	MinThreshold   *float64 `json:"min_threshold"`
}

func (c *CriteriaInput) apply(base Criteria) Criteria {
	if c == nil {
		return base
	}
	if c.RequireSuccess != nil {
		base.RequireSuccess = *c.RequireSuccess
	}
	if c.RequireScore != nil {
		base.RequireScore = *c.RequireScore
	}
	if c.MinThreshold != nil {
		base.MinThreshold = *c.MinThreshold
	}
	return base
}

// Input is the body of a create or an edit. On an edit, absent (nil)
// fields are unchanged.
type Input struct {
	Type           *string         `json:"type"`
	Name           *string         `json:"name"`
	Description    *string         `json:"description"`
	URL            *string         `json:"url"`
	Method         *string         `json:"method"`
	CACertificate  *string         `json:"ca_certificate"`
	Secret         *string         `json:"secret"`
	Headers        *[]Header       `json:"headers"`
	Events         *[]string       `json:"events"`
	Criteria       *CriteriaInput  `json:"criteria"`
	RequestSchema  json.RawMessage `json:"request_schema"`
	ResponseSchema json.RawMessage `json:"response_schema"`
	NotifyEmail    *string         `json:"notify_email"`
}

// DecodeInput reads an Input strictly: unknown fields and trailing data
// are refused. Bodies over 1 MiB are refused.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	body, err := io.ReadAll(io.LimitReader(r, 1<<20+1))
	if err != nil {
		return in, err
	}
	if len(body) > 1<<20 {
		return in, &ValidationError{Problems: []string{"body larger than 1 MiB"}}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, &ValidationError{Problems: []string{"body: " + err.Error()}}
	}
	if dec.More() {
		return in, &ValidationError{Problems: []string{"body: trailing data after the JSON object"}}
	}
	return in, nil
}

func (in Input) applyTo(w *Webhook) {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&w.Name, in.Name)
	set(&w.Description, in.Description)
	set(&w.URL, in.URL)
	set(&w.Method, in.Method)
	set(&w.CACertificate, in.CACertificate)
	set(&w.Secret, in.Secret)
	set(&w.NotifyEmail, in.NotifyEmail)
	if in.Headers != nil {
		w.Headers = *in.Headers
	}
	if in.Events != nil {
		w.Events = *in.Events
	}
	if in.Criteria != nil {
		base := DefaultCriteria()
		if w.Criteria != nil {
			base = *w.Criteria
		}
		c := in.Criteria.apply(base)
		w.Criteria = &c
	}
	if in.RequestSchema != nil {
		w.RequestSchema = in.RequestSchema
	}
	if in.ResponseSchema != nil {
		w.ResponseSchema = in.ResponseSchema
	}
}

// Create validates and stores a new webhook of organisation org, with
// status inactive. The URL must be https and, unless the guard allows
// private addresses, resolve only to public addresses.
func (s *Service) Create(ctx context.Context, org int64, in Input) (Webhook, error) {
	w := Webhook{ID: NewWebhookID(), OrganisationID: org, Status: StatusInactive}
	if in.Type != nil {
		w.Type = *in.Type
	}
	in.applyTo(&w)
	if err := s.validate(ctx, &w); err != nil {
		return Webhook{}, err
	}
	if err := s.Store.CreateWebhook(ctx, w); err != nil {
		return Webhook{}, err
	}
	return s.Store.Webhook(ctx, w.ID)
}

func (s *Service) validate(ctx context.Context, w *Webhook) error {
	if err := w.Normalize(); err != nil {
		return err
	}
	if err := s.Sender.Guard.CheckURL(ctx, w.URL); err != nil {
		return &ValidationError{Problems: []string{"url: " + trimPrefix(err.Error())}}
	}
	return nil
}

func trimPrefix(s string) string {
	const p = "webhook: "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// Get returns a webhook of organisation org (org 0: any, for the admin
// CLI). Another organisation's webhook is not found.
func (s *Service) Get(ctx context.Context, org int64, id string) (Webhook, error) {
	w, err := s.Store.Webhook(ctx, id)
	if err != nil {
		return Webhook{}, err
	}
	if org != 0 && w.OrganisationID != org {
		return Webhook{}, ErrNotFound
	}
	return w, nil
}

// Summary is a row of the webhook list.
type Summary struct {
	Webhook
	EventCount  int     `json:"event_count"`
	SuccessRate float64 `json:"success_rate"`
}

// MarshalJSON flattens the webhook and adds the list columns.
func (s Summary) MarshalJSON() ([]byte, error) {
	base, err := s.Webhook.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(base, &m); err != nil {
		return nil, err
	}
	m["event_count"], _ = json.Marshal(s.EventCount)
	m["success_rate"], _ = json.Marshal(s.SuccessRate)
	return json.Marshal(m)
}

// List returns an organisation's webhooks with their list columns.
func (s *Service) List(ctx context.Context, org int64) ([]Summary, error) {
	ws, err := s.Store.ListWebhooks(ctx, org)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(ws))
	for _, w := range ws {
		st, err := s.Store.Stats(ctx, w.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, Summary{Webhook: w, EventCount: len(w.Events), SuccessRate: st.SuccessRate})
	}
	return out, nil
}

// Update edits a webhook. The type cannot change; pending deliveries keep
// their payload, schedule and target (URL, method, CA, secret, headers as
// they were when queued): the spec says an edit does not affect them.
func (s *Service) Update(ctx context.Context, org int64, id string, in Input) (Webhook, error) {
	w, err := s.Get(ctx, org, id)
	if err != nil {
		return Webhook{}, err
	}
	if in.Type != nil && *in.Type != w.Type {
		return Webhook{}, &ValidationError{Problems: []string{"type cannot be changed after creation"}}
	}
	in.applyTo(&w)
	if err := s.validate(ctx, &w); err != nil {
		return Webhook{}, err
	}
	if err := s.Store.UpdateWebhook(ctx, w); err != nil {
		return Webhook{}, err
	}
	return s.Store.Webhook(ctx, id)
}

// Delete removes a webhook and all its logs, permanently.
func (s *Service) Delete(ctx context.Context, org int64, id string) error {
	if _, err := s.Get(ctx, org, id); err != nil {
		return err
	}
	return s.Store.DeleteWebhook(ctx, id)
}

// Status changes: activate (inactive to active), pause (active to
// paused), resume (paused to active). Repeating a change is a no-op.
func (s *Service) Activate(ctx context.Context, org int64, id string) (Webhook, error) {
	return s.move(ctx, org, id, StatusInactive, StatusActive)
}

// Pause stops deliveries; events are held until Resume.
func (s *Service) Pause(ctx context.Context, org int64, id string) (Webhook, error) {
	return s.move(ctx, org, id, StatusActive, StatusPaused)
}

// Resume restarts deliveries, held ones first in the order they are due.
func (s *Service) Resume(ctx context.Context, org int64, id string) (Webhook, error) {
	return s.move(ctx, org, id, StatusPaused, StatusActive)
}

func (s *Service) move(ctx context.Context, org int64, id, from, to string) (Webhook, error) {
	w, err := s.Get(ctx, org, id)
	if err != nil {
		return Webhook{}, err
	}
	if w.Status == to {
		return w, nil
	}
	if w.Status != from {
		return Webhook{}, fmt.Errorf("%w: the webhook is %s; only a %s webhook can become %s", ErrTransition, w.Status, from, to)
	}
	if err := s.Store.SetWebhookStatus(ctx, id, to); err != nil {
		return Webhook{}, err
	}
	if to == StatusActive && s.Notify != nil {
		s.Notify()
	}
	return s.Store.Webhook(ctx, id)
}

// Test sends a test event to a webhook now.
func (s *Service) Test(ctx context.Context, org int64, id, event string) (TestResult, error) {
	w, err := s.Get(ctx, org, id)
	if err != nil {
		return TestResult{}, err
	}
	if !KnownEvent(event) {
		return TestResult{}, &ValidationError{Problems: []string{fmt.Sprintf("event: unknown event %q", event)}}
	}
	return s.Sender.SendTest(ctx, w, event, s.now())
}

// ValidateCertificate checks a webhook's CA certificate and handshake.
func (s *Service) ValidateCertificate(ctx context.Context, org int64, id string) (CertificateReport, error) {
	w, err := s.Get(ctx, org, id)
	if err != nil {
		return CertificateReport{}, err
	}
	return s.Sender.ValidateCertificate(ctx, w.URL, w.CACertificate, s.now()), nil
}

// Logs returns a webhook's delivery log.
func (s *Service) Logs(ctx context.Context, org int64, id string, f LogFilter) ([]LogEntry, error) {
	if _, err := s.Get(ctx, org, id); err != nil {
		return nil, err
	}
	switch f.Status {
	case "", LogSuccess, LogFailed, LogRetrying:
	default:
		return nil, &ValidationError{Problems: []string{"status must be Success, Failed or Retrying"}}
	}
	return s.Store.Logs(ctx, id, f)
}

// Stats returns a webhook's statistics.
func (s *Service) Stats(ctx context.Context, org int64, id string) (Stats, error) {
	if _, err := s.Get(ctx, org, id); err != nil {
		return Stats{}, err
	}
	return s.Store.Stats(ctx, id)
}

// ParseLogFilter reads from, to (RFC 3339 or YYYY-MM-DD; to is exclusive,
// a date meaning the end of that day), status and event.
func ParseLogFilter(from, to, status, event string) (LogFilter, error) {
	f := LogFilter{Status: status, Event: event}
	var err error
	if f.From, err = parseWhen(from, false); err != nil {
		return f, &ValidationError{Problems: []string{"from: " + err.Error()}}
	}
	if f.To, err = parseWhen(to, true); err != nil {
		return f, &ValidationError{Problems: []string{"to: " + err.Error()}}
	}
	if event != "" && !KnownEvent(event) && event != EventVerificationCheck {
		return f, &ValidationError{Problems: []string{fmt.Sprintf("event: unknown event %q", event)}}
	}
	return f, nil
}

func parseWhen(s string, endOfDay bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("want RFC 3339 or YYYY-MM-DD, got %q", s)
	}
	if endOfDay {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}
