package idv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Engine runs workflows. It owns the checks it has built; build it once and
// share it (it is safe for concurrent use), Close it at exit.
type Engine struct {
	defs     Definitions
	settings Settings
	now      func() time.Time

	mu       sync.Mutex
	explicit map[string]Check
	built    map[string]Check
}

// Option configures an Engine.
type Option func(*Engine)

// WithDefinitions sets the document definitions (usually docdefs.Default()).
func WithDefinitions(d Definitions) Option { return func(e *Engine) { e.defs = d } }

// WithChecks adds checks by value. They take precedence over registered
// checks of the same name, so tests and embedders can supply their own.
func WithChecks(cs ...Check) Option {
	return func(e *Engine) {
		for _, c := range cs {
			e.explicit[c.Name()] = c
		}
	}
}

// WithSettings passes settings to the registered checks' factories.
func WithSettings(s Settings) Option { return func(e *Engine) { e.settings = s } }

// WithClock sets the clock used for Case.Now and timings (tests).
func WithClock(now func() time.Time) Option { return func(e *Engine) { e.now = now } }

// New returns an engine.
func New(opts ...Option) *Engine {
	e := &Engine{settings: Settings{}, now: time.Now, explicit: map[string]Check{}, built: map[string]Check{}}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Close releases the resources of every check that holds some.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var first error
	for _, m := range []map[string]Check{e.built, e.explicit} {
		for _, c := range m {
			if cl, ok := c.(Closer); ok {
				if err := cl.Close(); err != nil && first == nil {
					first = err
				}
			}
		}
	}
	e.built = map[string]Check{}
	return first
}

// Check returns the check of that name: an explicit one, or one built from
// the registry on first use.
func (e *Engine) Check(name string) (Check, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.explicit[name]; ok {
		return c, nil
	}
	if c, ok := e.built[name]; ok {
		return c, nil
	}
	f, ok := lookupFactory(name)
	if !ok {
		if _, known := Info(name); known {
			return nil, Errorf(EUnavailable, "check %s is not available in this build (its package is not compiled in)", name)
		}
		return nil, Errorf(ENotFound, "unknown check %q", name)
	}
	c, err := f(e.settings)
	if err != nil {
		return nil, Errorf(EUnavailable, "check %s: %v", name, err)
	}
	e.built[name] = c
	return c, nil
}

// Prepared is a workflow resolved against an engine: checks built,
// definitions found, thresholds and cost computed. Prepare once, verify many.
type Prepared struct {
	engine   *Engine
	workflow *Workflow
	steps    []preparedStep
	allowed  []*DocumentDefinition
	cost     int
}

type preparedStep struct {
	check        Check
	info         CheckInfo
	spec         CheckSpec
	threshold    float64
	hasThreshold bool
}

func (st preparedStep) rule(review ManualReview) stepRule {
	return stepRule{name: st.spec.Name, info: st.info, threshold: st.threshold, hasThreshold: st.hasThreshold, review: review}
}

// Prepare validates the workflow and resolves its checks and document types.
func (e *Engine) Prepare(w *Workflow) (*Prepared, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	p := &Prepared{engine: e, workflow: w}
	for _, dt := range w.DocumentTypes {
		if e.defs == nil {
			return nil, Errorf(EInvalid, "engine has no document definitions")
		}
		d, ok := e.defs.Definition(dt)
		if !ok {
			return nil, Errorf(ENotFound, "unknown document type %q", dt)
		}
		p.allowed = append(p.allowed, d)
	}
	// Resolve every check before failing, so one error names all missing.
	var missing []string
	code := ""
	for _, cs := range w.Checks {
		if _, err := e.Check(cs.Name); err != nil {
			missing = append(missing, strings.TrimPrefix(err.Error(), "idv: "))
			if code == "" {
				code = ErrorCode(err)
			}
		}
	}
	if len(missing) > 0 {
		return nil, Errorf(code, "%s", strings.Join(missing, "; "))
	}
	for i, cs := range w.Checks {
		c, err := e.Check(cs.Name)
		if err != nil {
			return nil, err
		}
		info := infoFor(cs.Name, c.Cost())
		if _, builtin := Info(cs.Name); builtin && c.Cost() != info.Cost {
			return nil, Errorf(EInternal, "check %s costs %d units, the catalog says %d", cs.Name, c.Cost(), info.Cost)
		}
		t, has := w.ThresholdFor(i)
		if err := validateStep(w, i, c); err != nil {
			return nil, err
		}
		p.steps = append(p.steps, preparedStep{check: c, info: info, spec: cs, threshold: t, hasThreshold: has})
		p.cost += c.Cost()
	}
	return p, nil
}

// ValidateSteps checks the parameters of every step whose check this
// engine can build, as Prepare does (StepValidator), without needing the
// document definitions. A transport calls it when a workflow is created or
// edited, so a workflow every verification would refuse is refused then.
// A check this engine cannot build (a plugin loaded elsewhere, a package
// not compiled in) is left to Prepare.
func (e *Engine) ValidateSteps(w *Workflow) error {
	for i, cs := range w.Checks {
		c, err := e.Check(cs.Name)
		if err != nil {
			continue
		}
		if err := validateStep(w, i, c); err != nil {
			return err
		}
	}
	return nil
}

// validateStep runs c's StepValidator, if it has one, on step i of w with
// the threshold in force.
func validateStep(w *Workflow, i int, c Check) error {
	v, ok := c.(StepValidator)
	if !ok {
		return nil
	}
	cs := w.Checks[i]
	t, has := w.ThresholdFor(i)
	if err := v.ValidateStep(Step{Name: cs.Name, Threshold: t, HasThreshold: has, Params: cs.Params}); err != nil {
		return Errorf(EInvalid, "checks[%d] %s: %v", i, cs.Name, err)
	}
	return nil
}

// Workflow returns the prepared workflow.
func (p *Prepared) Workflow() *Workflow { return p.workflow }

// Cost is the number of units one verification of this workflow consumes.
func (p *Prepared) Cost() int { return p.cost }

// Input is one verification request.
type Input struct {
	// Config is the document type the caller declared.
	Config string
	// Images are the captures by slot (front, back, selfie, or any name).
	Images map[string]Image
	// Message holds the caller's own fields, carried to the result
	// untouched; its "metadata" object is checked against the workflow's
	// metadata_fields. A transport strips its envelope (the server's
	// rpcQueue, menu, method...) before it calls Verify.
	Message    map[string]json.RawMessage
	RequestID  string
	ClientID   string
	WorkflowID string
	Country    string
	// ImageURLs maps stored originals (front_id, back_id, selfie...) to URLs.
	ImageURLs map[string]string
	// StoreImage, when set, is called for every derived image at the end of
	// the verification and returns the URL listed under images.
	StoreImage func(ctx context.Context, name string, img image.Image) (string, error)
}

// Verify runs the workflow on one input. An error means the verification
// could not be attempted (bad input); everything a check finds, including
// that it could not run, is in the result.
func (p *Prepared) Verify(ctx context.Context, in Input) (*Result, error) {
	e := p.engine
	start := e.now()
	def, err := p.definitionFor(in.Config)
	if err != nil {
		return nil, err
	}
	c := NewCase(in.Images)
	c.Config = in.Config
	c.Definition = def
	c.Allowed = p.allowed
	c.Country = in.Country
	c.ClientID = in.ClientID
	c.WorkflowID = in.WorkflowID
	c.Now = start
	if in.Message != nil {
		c.Message = in.Message
	}
	if c.Metadata, err = p.workflow.Metadata(in.Message); err != nil {
		return nil, err
	}
	c.RequestID = in.RequestID
	if c.RequestID == "" {
		c.RequestID = NewRequestID()
	}

	r := &Result{
		IDVUniqueID: NewID(),
		ClientID:    in.ClientID,
		WorkFlowID:  in.WorkflowID,
		RequestID:   c.RequestID,
		Status:      "success",
		Config:      in.Config,
		Country:     in.Country,
		Sections:    map[string]any{},
		Images:      map[string]string{},
		Extra:       map[string]json.RawMessage{},
	}
	for k, v := range in.ImageURLs {
		r.Images[k] = v
	}
	for k, v := range in.Message {
		r.Extra[k] = v
	}

	statuses, reasons := p.runSteps(ctx, c, r)
	r.Decision = decide(statuses)
	r.DecisionReasons = nonNil(reasons)
	p.fillSections(c, r)
	r.FieldSchema, r.Combined = c.Fields()
	if r.FieldSchema == nil && def != nil {
		// OCR did not run far enough to read: the schema is still the
		// document's, every value unread (rule 2 of the spec).
		r.FieldSchema = append([]string(nil), def.FieldSchema...)
		r.Combined = map[string]string{}
	}
	r.DocumentType = c.DocumentType()
	c.mu.Lock()
	r.Flags = append([]string{}, c.flags...)
	c.mu.Unlock()
	if in.StoreImage != nil {
		for _, name := range c.DerivedNames() {
			img, _ := c.Derived(name)
			url, err := in.StoreImage(ctx, name, img)
			if err != nil {
				return nil, fmt.Errorf("idv: storing %s: %w", name, err)
			}
			r.Images[name] = url
		}
	}
	r.UnitsConsumed = p.cost
	r.PerformanceMetrics.StepCount = len(p.steps)
	r.PerformanceMetrics.TotalDurationMS = e.now().Sub(start).Milliseconds()
	return r, nil
}

func (p *Prepared) definitionFor(config string) (*DocumentDefinition, error) {
	if config == "" {
		return nil, Errorf(EInvalid, "config (the document type) is required")
	}
	for _, d := range p.allowed {
		if d.Config == config {
			return d, nil
		}
	}
	if p.engine.defs != nil {
		if _, ok := p.engine.defs.Definition(config); !ok {
			return nil, Errorf(ENotFound, "unknown config %q", config)
		}
	}
	return nil, Errorf(EInvalid, "config %q is not among the workflow's document types %v", config, p.workflow.DocumentTypes)
}

// metadata validates the message's metadata object against the workflow's
// declared fields: a declared field must have its declared type.

// fillSections puts each section the checks produced into the result, and
// a status-only object for the others.
func (p *Prepared) fillSections(c *Case, r *Result) {
	statusOf := map[string]Status{}
	for _, cr := range r.CheckResults {
		statusOf[cr.Name] = cr.Status
	}
	for _, key := range sectionKeys {
		if v, ok := c.Section(key); ok {
			r.Sections[key] = v
			continue
		}
		st, inWorkflow := statusOf[sectionCheck(key)]
		if !inWorkflow {
			st = StatusNotRequested
		}
		r.Sections[key] = map[string]any{"status": st}
	}
	for _, key := range optionalSections {
		if v, ok := c.Section(key); ok {
			r.Sections[key] = v
		} else if st, inWorkflow := statusOf[sectionCheck(key)]; inWorkflow {
			r.Sections[key] = map[string]any{"status": st}
		}
	}
}

// runSteps runs the workflow's checks in order on c, recording each step's
// result and timing on r, and returns the steps' statuses and the decision
// reasons they give. After a failure the remaining steps are skipped.
func (p *Prepared) runSteps(ctx context.Context, c *Case, r *Result) (statuses []Status, reasons []string) {
	e := p.engine
	failed := false
	for _, st := range p.steps {
		cr := CheckResult{Name: st.spec.Name, Units: st.check.Cost()}
		if st.hasThreshold {
			t := st.threshold
			cr.Threshold = &t
		}
		if failed {
			cr.Status = StatusSkipped
			r.CheckResults = append(r.CheckResults, cr)
			r.PerformanceMetrics.StepTimings = append(r.PerformanceMetrics.StepTimings,
				StepTiming{Name: cr.Name, Status: StatusSkipped, Units: cr.Units})
			continue
		}
		c.Step = Step{Name: st.spec.Name, Threshold: st.threshold, HasThreshold: st.hasThreshold, Params: st.spec.Params}
		t0 := e.now()
		out, runErr := runCheck(ctx, st.check, c)
		dur := e.now().Sub(t0)

		cr.Pieces = out.Pieces
		if out.HasConfidence {
			conf := out.Confidence
			cr.Confidence = &conf
		}
		for _, f := range out.Flags {
			c.AddFlag(f)
		}
		if runErr != nil {
			cr.Error = runErr.Error()
		}
		status, stepReasons := judgeStep(st.rule(p.workflow.Review()), out, runErr)
		cr.Reasons = stepReasons
		cr.Status = status
		statuses = append(statuses, status)
		switch status {
		case StatusFailed:
			failed = true
			reasons = appendUnique(reasons, cr.Reasons...)
		case StatusReview, StatusError:
			reasons = appendUnique(reasons, cr.Reasons...)
		}
		r.CheckResults = append(r.CheckResults, cr)
		r.PerformanceMetrics.StepTimings = append(r.PerformanceMetrics.StepTimings,
			StepTiming{Name: cr.Name, Status: status, DurationMS: dur.Milliseconds(), Units: cr.Units})
		if status == StatusError && st.info.Section != "" {
			if _, set := c.Section(st.info.Section); !set {
				c.SetSection(st.info.Section, map[string]any{"status": StatusError, "error": cr.Error})
			}
		}
	}
	return statuses, reasons
}

// runCheck runs one check, turning a panic into an error so that a broken
// check cannot take the process down.
func runCheck(ctx context.Context, ch Check, c *Case) (out Outcome, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("check %s panicked: %v\n%s", ch.Name(), v, debug.Stack())
			out = Outcome{Status: StatusError}
		}
	}()
	if err := ctx.Err(); err != nil {
		return Outcome{Status: StatusError}, err
	}
	return ch.Run(ctx, c)
}

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		if it == "" {
			continue
		}
		dup := false
		for _, have := range list {
			if have == it {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, it)
		}
	}
	return list
}

// NewID returns a verification identifier: 32 lowercase hex characters.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// NewRequestID returns a random UUID (version 4) for requests without one.
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Verify prepares the workflow and runs one verification. Callers that run
// a workflow many times should Prepare once and call Prepared.Verify.
func (e *Engine) Verify(ctx context.Context, w *Workflow, in Input) (*Result, error) {
	p, err := e.Prepare(w)
	if err != nil {
		return nil, err
	}
	return p.Verify(ctx, in)
}
