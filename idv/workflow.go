package idv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"
	"go.yaml.in/yaml/v3"
)

// Workflow statuses.
const (
	WorkflowActive   = "active"
	WorkflowDraft    = "draft"
	WorkflowArchived = "archived"
)

// Limits of the spec's Limits table.
const (
	MinChecks        = 1
	MaxChecks        = 10
	MinWorkflowName  = 3
	MaxWorkflowName  = 255
	DefaultMinAge    = 18
	MetadataString   = "string"
	MetadataNumber   = "number"
	maxWorkflowBytes = 1 << 20
)

// Workflow is an ordered list of checks with their thresholds and the
// policy that turns their outcomes into a verdict. The same type is decoded
// from workflow files (YAML or JSON) and stored by the server.
type Workflow struct {
	ID             string            `json:"id,omitempty" yaml:"id,omitempty" validate:"omitempty,max=64"`
	Name           string            `json:"name" yaml:"name" validate:"required,min=3,max=255"`
	Description    string            `json:"description,omitempty" yaml:"description,omitempty" validate:"max=4096"`
	DocumentTypes  []string          `json:"document_types" yaml:"document_types" validate:"required,min=1,unique,dive,required,max=64"`
	Checks         []CheckSpec       `json:"checks" yaml:"checks" validate:"required,min=1,max=10,dive"`
	ManualReview   *ManualReview     `json:"manual_review,omitempty" yaml:"manual_review,omitempty"`
	MetadataFields map[string]string `json:"metadata_fields,omitempty" yaml:"metadata_fields,omitempty" validate:"max=50,dive,keys,required,max=64,endkeys,oneof=string number"`
	Webhook        *WebhookConfig    `json:"webhook,omitempty" yaml:"webhook,omitempty"`
	Status         string            `json:"status,omitempty" yaml:"status,omitempty" validate:"omitempty,oneof=active draft archived"`
	ReactNativeSDK *SDKConfig        `json:"react_native_sdk_configs,omitempty" yaml:"react_native_sdk_configs,omitempty"`
	WebSDK         *SDKConfig        `json:"web_sdk_configs,omitempty" yaml:"web_sdk_configs,omitempty"`
}

// CheckSpec is one step of a workflow.
type CheckSpec struct {
	Name string `json:"name" yaml:"name" validate:"required,max=64"`
	// Threshold overrides the catalog default; nil keeps the default.
	Threshold *float64 `json:"threshold,omitempty" yaml:"threshold,omitempty"`
	// Required marks a step the SDK must not let the user skip. OCR
	// extraction is always required whatever this says.
	Required bool           `json:"required,omitempty" yaml:"required,omitempty"`
	Params   map[string]any `json:"params,omitempty" yaml:"params,omitempty"`
}

// ManualReview decides what a confidence below threshold does: review when
// enabled with auto-decline off, reject when auto-decline is on or manual
// review is disabled. A workflow without the block has manual review
// enabled with auto-decline off, the cautious default.
type ManualReview struct {
	Enabled       bool   `json:"enabled" yaml:"enabled"`
	AutoDecline   bool   `json:"auto_decline" yaml:"auto_decline"`
	ReviewerEmail string `json:"reviewer_email,omitempty" yaml:"reviewer_email,omitempty" validate:"omitempty,email,max=254"`
	// FourEyes is the four-eyes rule of the review queue (beyond the
	// spec, docs/reviews.md): FourEyesRejections makes a rejection, and
	// FourEyesAll every decision, wait for a second, different reviewer.
	// Empty or FourEyesOff: one reviewer decides.
	FourEyes string `json:"four_eyes,omitempty" yaml:"four_eyes,omitempty" validate:"omitempty,oneof=off rejections all"`
}

// Four-eyes rules (ManualReview.FourEyes).
const (
	FourEyesOff        = "off"
	FourEyesRejections = "rejections"
	FourEyesAll        = "all"
)

// NeedsSecond reports whether the four-eyes rule makes a decision (an
// approval when approve) wait for a second reviewer.
func (m ManualReview) NeedsSecond(approve bool) bool {
	switch m.FourEyes {
	case FourEyesAll:
		return true
	case FourEyesRejections:
		return !approve
	}
	return false
}

// WebhookConfig is the workflow-specific notification target.
type WebhookConfig struct {
	URL    string   `json:"url" yaml:"url" validate:"required,url,startswith=https://,max=2048"`
	Events []string `json:"events,omitempty" yaml:"events,omitempty" validate:"dive,required,max=64"`
}

// SDKConfig is the branding of the React Native and web SDKs.
type SDKConfig struct {
	Logo            string     `json:"logo,omitempty" yaml:"logo,omitempty" validate:"max=2048"`
	Title           string     `json:"title,omitempty" yaml:"title,omitempty" validate:"max=255"`
	Tagline         string     `json:"tagline,omitempty" yaml:"tagline,omitempty" validate:"max=255"`
	HeroImage       string     `json:"hero_image,omitempty" yaml:"hero_image,omitempty" validate:"max=2048"`
	BackgroundImage string     `json:"background_image,omitempty" yaml:"background_image,omitempty" validate:"max=2048"`
	Colors          *SDKColors `json:"colors,omitempty" yaml:"colors,omitempty"`
	// AllowedOrigins are the browser origins (https://shop.example.com:
	// scheme, host and port, no path) whose pages may obtain a session
	// token for the workflow without a secret (web SDK, docs/sdk.md).
	// Meaningful in web_sdk_configs only; empty allows none.
	AllowedOrigins []string `json:"allowed_origins,omitempty" yaml:"allowed_origins,omitempty" validate:"max=20,dive,required,max=255"`
}

// SDKColors are CSS colours of the SDK screens.
type SDKColors struct {
	Primary    string `json:"primary,omitempty" yaml:"primary,omitempty" validate:"omitempty,max=32"`
	Secondary  string `json:"secondary,omitempty" yaml:"secondary,omitempty" validate:"omitempty,max=32"`
	Text       string `json:"text,omitempty" yaml:"text,omitempty" validate:"omitempty,max=32"`
	Background string `json:"background,omitempty" yaml:"background,omitempty" validate:"omitempty,max=32"`
}

// Review returns the manual review settings in force.
func (w *Workflow) Review() ManualReview {
	if w.ManualReview == nil {
		return ManualReview{Enabled: true}
	}
	return *w.ManualReview
}

// ThresholdFor returns the threshold in force for the check at index i.
func (w *Workflow) ThresholdFor(i int) (float64, bool) {
	cs := w.Checks[i]
	if cs.Threshold != nil {
		return *cs.Threshold, true
	}
	if ci, ok := Info(cs.Name); ok && ci.Threshold != nil && !ci.Threshold.CheckDefault {
		return ci.Threshold.Default, true
	}
	return 0, false
}

// Cost is the sum of the unit costs of the workflow's catalog checks.
// Checks outside the catalog are priced by the engine, which knows them.
func (w *Workflow) Cost() int {
	n := 0
	for _, cs := range w.Checks {
		if ci, ok := Info(cs.Name); ok {
			n += ci.Cost
		}
	}
	return n
}

// Steps are the workflow's checks as the SDK sees them.
type WorkflowStep struct {
	Name     string `json:"name"`
	Order    int    `json:"order"`
	Required bool   `json:"required"`
}

// Steps returns the checks as SDK steps, numbered from 1.
func (w *Workflow) Steps() []WorkflowStep {
	out := make([]WorkflowStep, len(w.Checks))
	for i, cs := range w.Checks {
		out[i] = WorkflowStep{Name: cs.Name, Order: i + 1, Required: cs.Required || cs.Name == CheckOCR}
	}
	return out
}

// FieldError is one broken rule of a workflow or other validated input.
type FieldError struct {
	// Field is the path of the offending value (checks[1].threshold).
	Field string
	// Rule is the broken rule (required, min, max, range, oneof, first...).
	Rule    string
	Message string
}

func (e FieldError) Error() string {
	return fmt.Sprintf("%s: %s (rule %s)", e.Field, e.Message, e.Rule)
}

// ValidationError lists every broken rule of one input.
type ValidationError struct {
	Errors []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.Error()
	}
	return "idv: invalid workflow: " + strings.Join(parts, "; ")
}

var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	// Report JSON names (checks[1].threshold), not Go names.
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name := strings.SplitN(f.Tag.Get("json"), ",", 2)[0]
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}

// Validate checks every rule of the spec's workflow resource and Limits
// table and returns a *ValidationError naming each broken rule.
func (w *Workflow) Validate() error {
	var errs []FieldError
	if err := validate.Struct(w); err != nil {
		var ves validator.ValidationErrors
		if !errors.As(err, &ves) {
			return err
		}
		for _, fe := range ves {
			errs = append(errs, FieldError{Field: fieldPath(fe.Namespace()), Rule: fe.Tag(), Message: ruleMessage(fe)})
		}
	}
	errs = append(errs, w.checkRules()...)
	if len(errs) == 0 {
		return nil
	}
	return &ValidationError{Errors: errs}
}

// checkRules are the rules validator tags cannot say: OCR first, names
// unique and well formed, thresholds in their per-check ranges.
func (w *Workflow) checkRules() []FieldError {
	var errs []FieldError
	if len(w.Checks) > 0 && w.Checks[0].Name != CheckOCR {
		errs = append(errs, FieldError{Field: "checks[0].name", Rule: "first",
			Message: fmt.Sprintf("the first check must be %s, got %q", CheckOCR, w.Checks[0].Name)})
	}
	seen := map[string]int{}
	for i, cs := range w.Checks {
		path := fmt.Sprintf("checks[%d]", i)
		if cs.Name != "" && !validCheckName(cs.Name) {
			errs = append(errs, FieldError{Field: path + ".name", Rule: "check_name",
				Message: fmt.Sprintf("%q is not a check name (lower case letters, digits and _)", cs.Name)})
		}
		if j, dup := seen[cs.Name]; dup && cs.Name != "" {
			errs = append(errs, FieldError{Field: path + ".name", Rule: "unique",
				Message: fmt.Sprintf("%s already appears at checks[%d]", cs.Name, j)})
		}
		seen[cs.Name] = i
		if cs.Threshold == nil {
			continue
		}
		t := *cs.Threshold
		lo, hi := 0.0, 1.0
		if ci, ok := Info(cs.Name); ok {
			if ci.Threshold == nil {
				errs = append(errs, FieldError{Field: path + ".threshold", Rule: "no_threshold",
					Message: fmt.Sprintf("%s has no confidence threshold", cs.Name)})
				continue
			}
			lo, hi = ci.Threshold.Min, ci.Threshold.Max
		}
		// A small epsilon keeps 0.60 written in YAML inside [0.60, 0.95].
		if t < lo-1e-9 || t > hi+1e-9 || t != t {
			errs = append(errs, FieldError{Field: path + ".threshold", Rule: "range",
				Message: fmt.Sprintf("%s threshold %g is outside [%.2f, %.2f]", cs.Name, t, lo, hi)})
		}
	}
	if _, ok := seen[CheckOCR]; !ok && len(w.Checks) > 0 {
		errs = append(errs, FieldError{Field: "checks", Rule: "required_check",
			Message: CheckOCR + " is required in every workflow"})
	}
	return errs
}

func fieldPath(ns string) string {
	// Namespace is "Workflow.checks[1].threshold"; drop the type name.
	if i := strings.IndexByte(ns, '.'); i >= 0 {
		return ns[i+1:]
	}
	return ns
}

func ruleMessage(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "min":
		return "must have at least " + fe.Param() + lengthUnit(fe)
	case "max":
		return "must have at most " + fe.Param() + lengthUnit(fe)
	case "oneof":
		return fmt.Sprintf("%v is not one of %s", fe.Value(), fe.Param())
	case "unique":
		return "must not repeat a value"
	case "email":
		return fmt.Sprintf("%v is not an email address", fe.Value())
	case "url", "startswith":
		return fmt.Sprintf("%v is not an https:// URL", fe.Value())
	}
	return "breaks rule " + fe.Tag()
}

func lengthUnit(fe validator.FieldError) string {
	if fe.Kind().String() == "string" {
		return " characters"
	}
	return " entries"
}

// ParseWorkflow decodes a workflow file, YAML or JSON (JSON is detected by
// its leading brace), strictly: an unknown key is an error. It validates
// the result.
func ParseWorkflow(data []byte) (*Workflow, error) {
	if len(data) > maxWorkflowBytes {
		return nil, fmt.Errorf("idv: workflow file is %d bytes, more than the %d allowed", len(data), maxWorkflowBytes)
	}
	var w Workflow
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("idv: workflow file is empty")
	}
	if trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&w); err != nil {
			return nil, fmt.Errorf("idv: workflow JSON: %w", err)
		}
		if dec.More() {
			return nil, errors.New("idv: workflow JSON: trailing data after the object")
		}
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(trimmed))
		dec.KnownFields(true)
		if err := dec.Decode(&w); err != nil {
			return nil, fmt.Errorf("idv: workflow YAML: %w", err)
		}
		var extra any
		if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
			return nil, errors.New("idv: workflow YAML: more than one document")
		}
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return &w, nil
}

// Metadata checks the "metadata" object of a request message against the
// workflow's metadata_fields and returns it decoded (nil when the workflow
// declares no fields or the message has none). Fields not declared pass
// untouched; a declared field present with another type is an invalid
// input error.
func (w *Workflow) Metadata(msg map[string]json.RawMessage) (map[string]any, error) {
	raw, ok := msg["metadata"]
	if !ok || len(w.MetadataFields) == 0 {
		return nil, nil
	}
	var md map[string]any
	if err := json.Unmarshal(raw, &md); err != nil {
		return nil, Errorf(EInvalid, "metadata must be a JSON object")
	}
	for name, typ := range w.MetadataFields {
		v, present := md[name]
		if !present {
			continue
		}
		_, isString := v.(string)
		_, isNumber := v.(float64)
		if typ == MetadataString && !isString || typ == MetadataNumber && !isNumber {
			return nil, Errorf(EInvalid, "metadata field %s must be a %s", name, typ)
		}
	}
	return md, nil
}
