package face

import (
	"context"
	"errors"
	"fmt"
	"image"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/facerec"
)

func init() {
	idv.Register(idv.CheckFace, func(s idv.Settings) (idv.Check, error) {
		return New(s.Get("models_dir", "")), nil
	})
}

// Decisions of photo_comparison.
const (
	DecisionMatch   = "match"
	DecisionNoMatch = "no_match"
	DecisionReview  = "review"
)

// Decision reasons this check gives.
const (
	ReasonNoMatch        = "face_no_match"
	ReasonLowConfidence  = "face_low_confidence"
	ReasonNoFaceInID     = "no_face_in_id"
	ReasonNoFaceInSelfie = "no_face_in_selfie"
	// ReasonMultipleFaces: the selfie holds a second face of comparable
	// size, so which person is verifying is a question for a person.
	ReasonMultipleFaces = "multiple_faces_in_selfie"
)

// ComparableArea is the area ratio (second largest / largest) above which
// a second face in the selfie counts as comparable. Bystanders far behind
// the holder are well below it; a second person beside them, or a photo
// held up next to the face, is above it.
const ComparableArea = 0.4

// ErrNoCapture is returned when the case lacks the ID front or the selfie.
var ErrNoCapture = errors.New("face: capture missing")

// Section is the photo_comparison object of the result, exactly the
// spec's keys. Distance is null when a face was not found on one side,
// since no distance was computed; similarity is then 0.
type Section struct {
	Decision        string   `json:"decision"`
	Match           bool     `json:"match"`
	Distance        *float64 `json:"distance"`
	Similarity      float64  `json:"similarity"`
	Threshold       float64  `json:"threshold"`
	ReviewBand      float64  `json:"review_band"`
	IDFaceFound     bool     `json:"id_face_found"`
	SelfieFaceFound bool     `json:"selfie_face_found"`
	Model           string   `json:"model"`
}

// Matcher is the face_matching check: the dominant face of the ID photo
// against the dominant face of the selfie.
type Matcher struct {
	modelsDir string
}

var _ idv.Check = (*Matcher)(nil)

// New returns a Matcher reading the dlib models from modelsDir ("" means
// $TAMBUA_MODELS, then ./models). The models load on the first Run.
func New(modelsDir string) *Matcher {
	return &Matcher{modelsDir: facerec.ModelsDir(modelsDir)}
}

// Name implements idv.Check.
func (m *Matcher) Name() string { return idv.CheckFace }

// Cost implements idv.Check.
func (m *Matcher) Cost() int { return idv.CostOf(idv.CheckFace) }

// Recognizer returns the process-wide recogniser, loading the models on
// first use.
func (m *Matcher) Recognizer() (*facerec.Recognizer, error) {
	return facerec.Shared(m.modelsDir)
}

// Found is the outcome of looking for the dominant face in one image.
type Found struct {
	// Face is the largest face, nil when there is none.
	Face *facerec.Face
	// Count is how many faces were detected.
	Count int
	// Comparable is true when a second face is at least ComparableArea
	// of the largest.
	Comparable bool
	// Crop is the image region the descriptor was computed from (the face
	// with a margin), nil without a face.
	Crop image.Image
}

// Dominant finds the largest face of img.
func (m *Matcher) Dominant(ctx context.Context, img image.Image) (Found, error) {
	rec, err := m.Recognizer()
	if err != nil {
		return Found{}, err
	}
	faces, err := rec.Detect(ctx, img)
	if err != nil {
		return Found{}, err
	}
	f := Found{Count: len(faces)}
	if len(faces) == 0 {
		return f, nil
	}
	f.Face = &faces[0]
	if len(faces) > 1 && float64(faces[1].Area()) >= ComparableArea*float64(faces[0].Area()) {
		f.Comparable = true
	}
	f.Crop = Crop(img, faces[0].Rect)
	return f, nil
}

// Crop returns the face rectangle widened by a quarter on each side (the
// padding dlib's face chip uses), clipped to the image.
func Crop(img image.Image, r image.Rectangle) image.Image {
	mx, my := r.Dx()/4, r.Dy()/4
	r = image.Rect(r.Min.X-mx, r.Min.Y-my, r.Max.X+mx, r.Max.Y+my).Intersect(img.Bounds())
	if r.Empty() {
		return nil
	}
	return imaging.Crop(img, r)
}

// Params are the knobs of one comparison.
type Params struct {
	// Threshold is the similarity a pair needs to match.
	Threshold float64
	// ReviewBand: a similarity in [Threshold-ReviewBand, Threshold) goes
	// to review instead of failing.
	ReviewBand float64
}

// DefaultParams are the catalog default threshold and review band.
var DefaultParams = Params{Threshold: DefaultThreshold, ReviewBand: DefaultReviewBand}

// Judge turns the faces of both sides into the section and the outcome.
func Judge(id, selfie Found, p Params) (Section, idv.Outcome) {
	s := Section{
		Threshold:       p.Threshold,
		ReviewBand:      p.ReviewBand,
		IDFaceFound:     id.Face != nil,
		SelfieFaceFound: selfie.Face != nil,
		Model:           facerec.ModelName,
	}
	var reasons []string
	if id.Face == nil {
		reasons = append(reasons, ReasonNoFaceInID)
	}
	if selfie.Face == nil {
		reasons = append(reasons, ReasonNoFaceInSelfie)
	}
	if len(reasons) > 0 {
		// Nothing to compare is not evidence of a different person: a
		// person looks at the captures.
		s.Decision = DecisionReview
		return s, idv.Outcome{Status: idv.StatusReview, Reasons: reasons}
	}
	d := facerec.Distance(id.Face.Descriptor, selfie.Face.Descriptor)
	sim := Similarity(d)
	s.Distance = &d
	s.Similarity = sim
	out := idv.Outcome{
		Confidence:    sim,
		HasConfidence: true,
		Pieces: []idv.ScorePiece{
			{Name: "distance", Value: d, Note: "Euclidean distance between the 128-d descriptors"},
			{Name: "similarity", Value: sim, Weight: 1, Note: fmt.Sprintf("logistic map of distance, 0.5 at %.3f", Midpoint)},
			{Name: "threshold_distance", Value: DistanceAt(p.Threshold), Note: "distance at the workflow threshold"},
		},
	}
	switch {
	case sim >= p.Threshold:
		s.Decision, s.Match = DecisionMatch, true
		out.Status = idv.StatusPassed
	case sim >= p.Threshold-p.ReviewBand:
		s.Decision = DecisionReview
		out.Status = idv.StatusReview
		out.Reasons = []string{ReasonLowConfidence}
	default:
		s.Decision = DecisionNoMatch
		out.Status = idv.StatusFailed
		out.Reasons = []string{ReasonNoMatch}
	}
	if selfie.Comparable {
		// Which of two people is verifying is not ours to guess, whatever
		// the dominant face's distance: the other face may be the holder.
		s.Match = false
		s.Decision = DecisionReview
		out.Status = idv.StatusReview
		out.Reasons = append(out.Reasons, ReasonMultipleFaces)
	}
	return s, out
}

// Run implements idv.Check.
func (m *Matcher) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	idPhoto, _ := c.Derived(idv.ImageIDPhoto)
	rectified, _ := c.Derived(idv.ImageFrontRectified)
	if idPhoto == nil && rectified == nil {
		if _, err := frontCapture(c); err != nil {
			return idv.Outcome{}, err
		}
	}
	selfieCap, ok := c.Images[idv.SlotSelfie]
	if !ok || len(selfieCap.Data) == 0 {
		return idv.Outcome{}, fmt.Errorf("%w: the workflow compares faces but no selfie was sent", ErrNoCapture)
	}
	selfieImg, err := facerec.Decode(selfieCap.Data)
	if err != nil {
		return idv.Outcome{}, fmt.Errorf("face: selfie: %w", err)
	}
	p, err := paramsFor(c.Step)
	if err != nil {
		return idv.Outcome{}, err
	}
	id, err := m.FindIDFace(ctx, idPhoto, rectified, func() (image.Image, error) { return decodeFront(c) })
	if err != nil {
		return idv.Outcome{}, fmt.Errorf("face: ID photo: %w", err)
	}
	selfie, err := m.Dominant(ctx, selfieImg)
	if err != nil {
		return idv.Outcome{}, fmt.Errorf("face: selfie: %w", err)
	}
	if id.Crop != nil {
		c.SetDerived(idv.ImageIDFace, id.Crop)
	}
	if selfie.Crop != nil {
		c.SetDerived(idv.ImageSelfieFace, selfie.Crop)
	}
	sec, out := Judge(id, selfie, p)
	c.SetSection("photo_comparison", sec)
	if selfie.Face != nil {
		// liveness_detection reuses the face box instead of detecting again.
		idv.SelfieFaceRect.Set(c, selfie.Face.Rect)
	}
	return out, nil
}

// frontCapture is the raw front capture, the last place FindIDFace looks.
func frontCapture(c *idv.Case) ([]byte, error) {
	front, ok := c.Images[idv.SlotFront]
	if !ok || len(front.Data) == 0 {
		return nil, fmt.Errorf("%w: no ID front capture and no id_photo", ErrNoCapture)
	}
	return front.Data, nil
}

func decodeFront(c *idv.Case) (image.Image, error) {
	data, err := frontCapture(c)
	if err != nil {
		return nil, err
	}
	img, err := facerec.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("face: ID front: %w", err)
	}
	return img, nil
}

// FindIDFace looks for the face on the document, cheapest and most likely
// place first, and stops at the first face: the photo zone (idPhoto), the
// same zone a quarter, half and three quarters turned (a card the capture
// pipeline brought upright the wrong way has its portrait on its side or
// upside down), the whole rectified card (a zone misplaced on an
// approximate layout), and last the raw capture, decoded only then. Any of
// the images may be nil. Only the first search costs anything on a good
// capture; the others run when it found nothing, which would otherwise send
// the verification to review with no_face_in_id.
func (m *Matcher) FindIDFace(ctx context.Context, idPhoto, rectified image.Image, front func() (image.Image, error)) (Found, error) {
	var tries []func() image.Image
	if idPhoto != nil && !idPhoto.Bounds().Empty() {
		tries = append(tries,
			func() image.Image { return idPhoto },
			func() image.Image { return imaging.Rotate90(idPhoto) },
			func() image.Image { return imaging.Rotate180(idPhoto) },
			func() image.Image { return imaging.Rotate270(idPhoto) })
	}
	if rectified != nil && !rectified.Bounds().Empty() {
		tries = append(tries, func() image.Image { return rectified })
	}
	var last Found
	for _, try := range tries {
		f, err := m.Dominant(ctx, try())
		if err != nil || f.Face != nil {
			return f, err
		}
		last = f
	}
	if front == nil {
		return last, nil
	}
	img, err := front()
	if err != nil {
		if len(tries) > 0 {
			return last, nil // the capture is only a last resort
		}
		return Found{}, err
	}
	return m.Dominant(ctx, img)
}

// ValidateStep refuses a bad threshold or review_band when the workflow is
// prepared (idv.StepValidator).
func (m *Matcher) ValidateStep(st idv.Step) error {
	_, err := paramsFor(st)
	return err
}

func paramsFor(st idv.Step) (Params, error) {
	t, band, err := st.ThresholdAndBand(DefaultParams.Threshold, DefaultParams.ReviewBand)
	if err != nil {
		return DefaultParams, fmt.Errorf("face: %w", err)
	}
	return Params{Threshold: t, ReviewBand: band}, nil
}
