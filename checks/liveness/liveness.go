package liveness

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"sort"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/facerec"
)

func init() {
	idv.Register(idv.CheckLiveness, func(s idv.Settings) (idv.Check, error) {
		return New(s.Get("models_dir", "")), nil
	})
}

// Decision reasons this check gives.
const (
	// ReasonFailed: the selfie looks like a print or a screen replay.
	ReasonFailed = "liveness_failed"
	// ReasonLowConfidence: the confidence is in the review band below
	// the threshold.
	ReasonLowConfidence = "liveness_low_confidence"
	// ReasonNoFace: no face was found in the selfie, so there is nothing
	// to judge (the same reason face_matching gives).
	ReasonNoFace = "no_face_in_selfie"
)

// Default parameters. The threshold is the catalog default; the review
// band is as wide as face_matching's.
const (
	DefaultThreshold  = 0.80
	DefaultReviewBand = 0.10
)

// ErrNoCapture is returned when the case has no selfie.
var ErrNoCapture = errors.New("liveness: no selfie capture")

// Section is the liveness_detection object of the result, exactly the
// spec's keys. Status is the check's own status (passed, review, failed).
type Section struct {
	Status     string  `json:"status"`
	Liveness   bool    `json:"liveness"`
	Confidence float64 `json:"confidence"`
	Threshold  float64 `json:"threshold"`
	Method     string  `json:"method"`
}

// Params are the knobs of one decision.
type Params struct {
	// Threshold is the confidence a selfie needs to pass as live.
	Threshold float64
	// ReviewBand: a confidence in [Threshold-ReviewBand, Threshold) goes
	// to review instead of failing.
	ReviewBand float64
}

// DefaultParams are the catalog default threshold and the review band.
var DefaultParams = Params{Threshold: DefaultThreshold, ReviewBand: DefaultReviewBand}

// Detector is the liveness_detection check: passive presentation-attack
// detection on the selfie alone.
type Detector struct {
	modelsDir string
	model     *Model
}

var _ idv.Check = (*Detector)(nil)

// Option configures a Detector.
type Option func(*Detector)

// WithModel makes the detector use m instead of the embedded model.
func WithModel(m *Model) Option { return func(d *Detector) { d.model = m } }

// New returns a Detector reading the dlib face models from modelsDir (""
// means $TAMBUA_MODELS, then ./models). The models load on the first Run.
func New(modelsDir string, opts ...Option) *Detector {
	d := &Detector{modelsDir: facerec.ModelsDir(modelsDir)}
	for _, o := range opts {
		o(d)
	}
	return d
}

// Name implements idv.Check.
func (d *Detector) Name() string { return idv.CheckLiveness }

// Cost implements idv.Check.
func (d *Detector) Cost() int { return idv.CostOf(idv.CheckLiveness) }

// Model returns the classifier in use.
func (d *Detector) Model() (*Model, error) {
	if d.model != nil {
		return d.model, d.model.Validate()
	}
	return Embedded()
}

// recognizer is the process-wide recogniser face_matching also uses;
// facerec.Shared loads the models once and caches them.
func (d *Detector) recognizer() (*facerec.Recognizer, error) {
	return facerec.Shared(d.modelsDir)
}

// DetectFace finds the dominant (largest) face of img; ok is false when
// there is none.
func (d *Detector) DetectFace(ctx context.Context, img image.Image) (image.Rectangle, bool, error) {
	rec, err := d.recognizer()
	if err != nil {
		return image.Rectangle{}, false, err
	}
	faces, err := rec.Detect(ctx, img)
	if err != nil || len(faces) == 0 {
		return image.Rectangle{}, false, err
	}
	return faces[0].Rect, true, nil
}

// Assessment is the verdict of the classifier on one selfie.
type Assessment struct {
	// Face is the dominant face; empty when none was found, and then
	// Confidence means nothing.
	Face       image.Rectangle
	FaceFound  bool
	Confidence float64
	// Features are the inputs the classifier saw, in FeatureNames order.
	Features []float64
}

// Assess scores img. face is the dominant face's rectangle when the
// caller already knows it; an empty rectangle makes Assess detect it.
func (d *Detector) Assess(ctx context.Context, img image.Image, face image.Rectangle) (Assessment, error) {
	m, err := d.Model()
	if err != nil {
		return Assessment{}, err
	}
	if face.Empty() {
		var ok bool
		if face, ok, err = d.DetectFace(ctx, img); err != nil || !ok {
			return Assessment{}, err
		}
	}
	x, err := Extract(img, face)
	if errors.Is(err, ErrNoFace) {
		return Assessment{}, nil
	}
	if err != nil {
		return Assessment{}, err
	}
	return Assessment{Face: face, FaceFound: true, Confidence: m.Confidence(x), Features: x}, nil
}

// Judge turns an assessment into the section and the outcome.
func Judge(m *Model, a Assessment, p Params) (Section, idv.Outcome) {
	s := Section{Threshold: p.Threshold, Method: m.Method()}
	if !a.FaceFound {
		// Nothing to judge is not evidence of an attack: a person looks.
		s.Status = string(idv.StatusReview)
		return s, idv.Outcome{Status: idv.StatusReview, Reasons: []string{ReasonNoFace}}
	}
	s.Confidence = a.Confidence
	out := idv.Outcome{Confidence: a.Confidence, HasConfidence: true, Pieces: pieces(m, a)}
	switch {
	case a.Confidence >= p.Threshold:
		s.Liveness = true
		out.Status = idv.StatusPassed
	case a.Confidence >= p.Threshold-p.ReviewBand-1e-9: // 0.8-0.1 is 0.7000000000000001
		out.Status = idv.StatusReview
		out.Reasons = []string{ReasonLowConfidence}
	default:
		out.Status = idv.StatusFailed
		out.Reasons = []string{ReasonFailed}
	}
	s.Status = string(out.Status)
	return s, out
}

// pieces explains a confidence: the logit, then the five features that
// moved it most (their term in the logit as the value, the weight of the
// standardised feature as the weight).
func pieces(m *Model, a Assessment) []idv.ScorePiece {
	c := m.Contributions(a.Features)
	order := make([]int, len(c))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return math.Abs(c[order[i]]) > math.Abs(c[order[j]]) })
	out := []idv.ScorePiece{{Name: "logit", Value: m.Logit(a.Features), Weight: 1, Note: "confidence = 1/(1+exp(-logit))"}}
	for _, i := range order[:min(5, len(order))] {
		out = append(out, idv.ScorePiece{Name: m.Features[i], Value: c[i], Weight: m.Weights[i],
			Note: fmt.Sprintf("feature %.4g, term in the logit", a.Features[i])})
	}
	return out
}

// Run implements idv.Check.
func (d *Detector) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	capt, ok := c.Images[idv.SlotSelfie]
	if !ok || len(capt.Data) == 0 {
		return idv.Outcome{}, fmt.Errorf("%w: the workflow checks liveness but no selfie was sent", ErrNoCapture)
	}
	p, err := paramsFor(c.Step)
	if err != nil {
		return idv.Outcome{}, err
	}
	m, err := d.Model()
	if err != nil {
		return idv.Outcome{}, err
	}
	img, err := facerec.Decode(capt.Data)
	if err != nil {
		return idv.Outcome{}, fmt.Errorf("liveness: selfie: %w", err)
	}
	var face image.Rectangle
	// face_matching already found the face: do not pay for it twice. Both
	// checks decode the selfie with facerec.Decode, so the rectangle is in
	// the same coordinates.
	if r, ok := idv.SelfieFaceRect.Get(c); ok && r.In(img.Bounds()) {
		face = r
	}
	a, err := d.Assess(ctx, img, face)
	if err != nil {
		return idv.Outcome{}, fmt.Errorf("liveness: selfie: %w", err)
	}
	sec, out := Judge(m, a, p)
	c.SetSection("liveness_detection", sec)
	return out, nil
}

// ValidateStep refuses a bad threshold or review_band when the workflow is
// prepared (idv.StepValidator).
func (d *Detector) ValidateStep(st idv.Step) error {
	_, err := paramsFor(st)
	return err
}

func paramsFor(st idv.Step) (Params, error) {
	t, band, err := st.ThresholdAndBand(DefaultParams.Threshold, DefaultParams.ReviewBand)
	if err != nil {
		return DefaultParams, fmt.Errorf("liveness: %w", err)
	}
	return Params{Threshold: t, ReviewBand: band}, nil
}
