package webhook

import (
	"errors"
	"reflect"

	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"
)

// Webhook types.
const (
	TypeEventNotification = "event_notification"
	TypeVerificationCheck = "verification_check"
)

// Webhook statuses.
const (
	StatusInactive = "inactive"
	StatusActive   = "active"
	StatusPaused   = "paused"
)

// AutoPauseAfter is the number of consecutive failed deliveries that pause
// a webhook.
const AutoPauseAfter = 10

// DefaultMinThreshold is the default minimum score of a verification check.
const DefaultMinThreshold = 0.85

// Header is a custom header added to every request when Enabled.
type Header struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Enabled bool   `json:"enabled"`
}

// Criteria are the verification criteria of a Verification Check webhook.
type Criteria struct {
	RequireSuccess bool    `json:"require_success"`
	RequireScore   bool    `json:"require_score"`
	MinThreshold   float64 `json:"min_threshold"`
}

// DefaultCriteria are the spec's defaults: both fields required, 0.85.
func DefaultCriteria() Criteria {
	return Criteria{RequireSuccess: true, RequireScore: true, MinThreshold: DefaultMinThreshold}
}

// Webhook is a configured endpoint.
type Webhook struct {
	ID             string          `json:"id"`
	OrganisationID int64           `json:"organisation_id"`
	Type           string          `json:"type" validate:"oneof=event_notification verification_check"`
	Name           string          `json:"name" validate:"required,max=255"`
	Description    string          `json:"description" validate:"max=4096"`
	URL            string          `json:"url" validate:"required,max=2048,url,startswith=https://"`
	Method         string          `json:"method" validate:"oneof=POST PUT PATCH"`
	CACertificate  string          `json:"ca_certificate"`
	Secret         string          `json:"-" validate:"max=512"`
	Headers        []Header        `json:"headers" validate:"max=20"`
	Events         []string        `json:"events"`
	Criteria       *Criteria       `json:"criteria,omitempty"`
	RequestSchema  json.RawMessage `json:"request_schema,omitempty"`
	ResponseSchema json.RawMessage `json:"response_schema,omitempty"`
	// NotifyEmail receives the auto-pause notification; the server's
	// default recipient is used when it is empty.
	NotifyEmail         string     `json:"notify_email,omitempty" validate:"omitempty,max=254,email"`
	Status              string     `json:"status"`
	FailureCount        int64      `json:"failure_count"`
	ConsecutiveFailures int64      `json:"consecutive_failures"`
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
	LastTriggeredAt     *time.Time `json:"last_triggered_at"`
	// ActivatedAt is the first activation: the webhook receives the events
	// that happen from then on (held while it is paused).
	ActivatedAt *time.Time `json:"activated_at"`
}

// MarshalJSON reports has_secret instead of the secret, which is never
// returned.
func (w *Webhook) MarshalJSON() ([]byte, error) {
	type plain Webhook
	return json.Marshal(struct {
		*plain
		HasSecret bool `json:"has_secret"`
	}{(*plain)(w), w.Secret != ""})
}

// Subscribed reports whether the webhook wants deliveries of event.
func (w *Webhook) Subscribed(event string) bool {
	if w.Type != TypeEventNotification {
		return false
	}
	for _, e := range w.Events {
		if e == event {
			return true
		}
	}
	return false
}

// reservedHeaders may not be set by custom headers: they are the service's
// own or belong to the transport.
var reservedHeaders = map[string]bool{
	"Content-Type": true, "Content-Length": true, "Host": true, "User-Agent": true,
	"Transfer-Encoding": true, "Connection": true, "Authorization-Proxy": true, "Proxy-Authorization": true,
	http.CanonicalHeaderKey(HeaderSignature): true, http.CanonicalHeaderKey(HeaderEvent): true,
	http.CanonicalHeaderKey(HeaderWebhookID): true, http.CanonicalHeaderKey(HeaderDeliveryID): true,
}

// ValidationError lists the broken rules of a webhook.
type ValidationError struct{ Problems []string }

func (e *ValidationError) Error() string {
	return "webhook: invalid: " + strings.Join(e.Problems, "; ")
}

// Normalize applies defaults (method POST, criteria defaults) and checks
// every rule that needs no network: use CheckURL and ValidateCertificate
// for the rest.
func (w *Webhook) Normalize() error {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	w.Name = strings.TrimSpace(w.Name)
	if w.Method == "" {
		w.Method = http.MethodPost
	}
	w.Method = strings.ToUpper(w.Method)
	switch w.Type {
	case TypeEventNotification:
		if w.Criteria != nil {
			add("criteria apply to verification_check webhooks only")
		}
		if len(w.RequestSchema) > 0 || len(w.ResponseSchema) > 0 {
			add("request and response schemas apply to verification_check webhooks only")
		}
		if len(w.Events) == 0 {
			add("events: subscribe to at least one event")
		}
		seen := map[string]bool{}
		for _, e := range w.Events {
			if !KnownEvent(e) {
				add("events: unknown event %q", e)
			}
			if seen[e] {
				add("events: %q listed twice", e)
			}
			seen[e] = true
		}
	case TypeVerificationCheck:
		if len(w.Events) > 0 {
			add("events apply to event_notification webhooks only")
		}
		if w.Criteria == nil {
			c := DefaultCriteria()
			w.Criteria = &c
		}
		if t := w.Criteria.MinThreshold; t < 0 || t > 1 || t != t {
			add("criteria.min_threshold %g is outside [0, 1]", t)
		}
		for _, sc := range []struct {
			name string
			raw  json.RawMessage
		}{{"request_schema", w.RequestSchema}, {"response_schema", w.ResponseSchema}} {
			if len(sc.raw) > 0 {
				if _, err := compileSchema(sc.name, sc.raw); err != nil {
					add("%v", err)
				}
			}
		}
	}
	problems, err := fieldProblems(w)
	if err != nil {
		return err
	}
	p = append(p, problems...)
	if strings.TrimSpace(w.CACertificate) == "" {
		add("ca_certificate (PEM) is required for mutual TLS")
	} else if _, _, err := ParseCAPEM([]byte(w.CACertificate)); err != nil {
		add("ca_certificate: %s", strings.TrimPrefix(err.Error(), "webhook: "))
	}
	for i, h := range w.Headers {
		if !validHeaderName(h.Name) {
			add("headers[%d]: %q is not a header name", i, h.Name)
		} else if reservedHeaders[http.CanonicalHeaderKey(h.Name)] {
			add("headers[%d]: %s is set by the service and cannot be overridden", i, h.Name)
		}
		if strings.ContainsAny(h.Value, "\r\n\x00") || len(h.Value) > 4096 {
			add("headers[%d]: value must be one line of at most 4096 bytes", i)
		}
	}
	if w.Status == "" {
		w.Status = StatusInactive
	}
	if len(p) > 0 {
		return &ValidationError{Problems: p}
	}
	return nil
}

func validHeaderName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

var validate = func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	// Report JSON names, not Go names.
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name := strings.SplitN(f.Tag.Get("json"), ",", 2)[0]
		if name == "-" {
			return strings.ToLower(f.Name)
		}
		return name
	})
	return v
}()

// fieldProblems checks the validator tags of the webhook's fields.
func fieldProblems(w *Webhook) ([]string, error) {
	err := validate.Struct(w)
	if err == nil {
		return nil, nil
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return nil, err
	}
	var out []string
	for _, fe := range ves {
		switch fe.Tag() {
		case "required":
			out = append(out, fe.Field()+" is required")
		case "max":
			out = append(out, fmt.Sprintf("%s: at most %s", fe.Field(), fe.Param()))
		case "oneof":
			out = append(out, fmt.Sprintf("%s must be one of %s", fe.Field(), strings.ReplaceAll(fe.Param(), " ", ", ")))
		case "startswith":
			out = append(out, fe.Field()+" must be https")
		default:
			out = append(out, fmt.Sprintf("%s is not a valid %s", fe.Field(), fe.Tag()))
		}
	}
	return out, nil
}
