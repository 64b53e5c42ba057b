// Package docauth is the document_authenticity check: it judges whether
// the captured document is a genuine, valid original by layers of
// evidence (substrate, doc_type, cross_check, mrz, barcode, validity...),
// each explained in the result, and never passes what it could not
// examine. See docs/docauth.md.
package docauth

import (
	"context"
	"fmt"
	"image"
	"math"
	"sort"
	"time"

	"github.com/tambua/tambua/checks/internal/mrzdata"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

// Decisions of the section.
const (
	DecisionPass   = "PASS"
	DecisionReview = "REVIEW"
	DecisionFail   = "FAIL"
)

// Decision reasons (the catalogue's, plus validity's in validity.go).
const (
	ReasonNotAuthentic = "doc_not_authentic"
	ReasonBelowBand    = "doc_confidence_below_review_band"
)

// Layer names, as the spec names them (validity is ours).
const (
	layerSubstrate  = "substrate"
	layerDocType    = "doc_type"
	layerCrossCheck = "cross_check"
	layerMRZ        = "mrz"
	layerGuilloche  = "guilloche"
	layerSeal       = "seal"
	layerHologram   = "hologram"
	layerBarcode    = "barcode"
	layerValidity   = "validity"
	// layerPortrait and layerValuePrint are ours: a portrait, a printed
	// value that does not belong on the card.
	layerPortrait   = "portrait"
	layerValuePrint = "value_print"
	// layerEdit is ours: a patch of the captured picture pasted in before
	// the picture was saved again (recompress.go).
	layerEdit = "capture_edit"
)

// DefaultReviewBand is the width below the threshold that goes to review
// rather than failing, as for face matching.
const DefaultReviewBand = 0.15

func init() {
	idv.Register(idv.CheckDocAuth, func(s idv.Settings) (idv.Check, error) {
		opts := []Option{WithModelsDir(s.Get("models_dir", ""))}
		// The OCR-B font of the MRZ reader, as mrz_parsing and
		// ocr_extraction read it.
		if font := s.Get("ocrb_font", ""); font != "" {
			opts = append(opts, WithMRZReader(mrz.NewReader(mrz.WithFont(font))))
		}
		return New(opts...), nil
	})
}

// Check is the document_authenticity check. It is safe for concurrent use.
type Check struct {
	mrz       *mrz.Reader
	modelsDir string
}

// Option configures a Check.
type Option func(*Check)

// WithModelsDir says where the dlib face models are ("" means
// $TAMBUA_MODELS, then ./models): the portrait layer finds the face in the
// portrait with them. They load on the first portrait examined.
func WithModelsDir(dir string) Option { return func(k *Check) { k.modelsDir = dir } }

// faces returns the process-wide face detector.
func (k *Check) faces() (faceFinder, error) {
	r, err := facerec.Shared(facerec.ModelsDir(k.modelsDir))
	if err != nil {
		return nil, err
	}
	return r, nil
}

var (
	_ idv.Check         = (*Check)(nil)
	_ idv.StepValidator = (*Check)(nil)
)

// sharedReader reads the MRZ when no earlier check left one on the Case
// and no reader was given (WithMRZReader): the default font's glyph
// templates are rendered once for every Check.
var sharedReader = mrz.NewReader()

// WithMRZReader sets the reader of the MRZ band (the registered check
// builds one on the ocrb_font setting when it is set).
func WithMRZReader(r *mrz.Reader) Option { return func(k *Check) { k.mrz = r } }

// New returns the check.
func New(opts ...Option) *Check {
	k := &Check{mrz: sharedReader}
	for _, o := range opts {
		o(k)
	}
	return k
}

// Name implements idv.Check.
func (*Check) Name() string { return idv.CheckDocAuth }

// Cost implements idv.Check.
func (*Check) Cost() int { return idv.CostOf(idv.CheckDocAuth) }

// ValidateStep refuses a bad threshold or review_band up front.
func (*Check) ValidateStep(st idv.Step) error {
	_, _, err := operatingPoint(st)
	return err
}

func operatingPoint(st idv.Step) (float64, float64, error) {
	info, _ := idv.Info(idv.CheckDocAuth)
	t, band, err := st.ThresholdAndBand(info.Threshold.Default, DefaultReviewBand)
	if err != nil {
		return t, band, fmt.Errorf("docauth: %w", err)
	}
	return t, band, nil
}

// Section is the document_authenticity result object: the spec's keys,
// every one present, then the per-layer detail a reviewer reads.
type Section struct {
	Status         string             `json:"status"`
	Decision       string             `json:"decision"`
	OverallAuth    bool               `json:"overall_authentic"`
	ReasonCodes    []string           `json:"reason_codes"`
	Notes          []string           `json:"notes"`
	ChecksApplied  []string           `json:"checks_applied"`
	ChecksSkipped  []string           `json:"checks_skipped"`
	Scores         Scores             `json:"scores"`
	OCRQuality     idv.OCRQuality     `json:"ocr_quality"`
	Confidence     float64            `json:"confidence"`
	Threshold      float64            `json:"threshold"`
	ReviewBand     float64            `json:"review_band"`
	SkippedWhy     map[string]string  `json:"skipped_why"`
	Layers         map[string]Layer   `json:"layers"`
	SubstrateStats map[string]float64 `json:"substrate_stats,omitempty"`
	// PortraitStats are the portrait layer's raw cues.
	PortraitStats map[string]float64 `json:"portrait_stats,omitempty"`
	// PrintStats are the print layer's raw cues.
	PrintStats map[string]float64 `json:"print_stats,omitempty"`
	// EditStats are the capture_edit layer's raw cues.
	EditStats map[string]float64 `json:"capture_edit_stats,omitempty"`
	// MRZPrintStats are the mrz_print layer's raw cues.
	MRZPrintStats map[string]float64 `json:"mrz_print_stats,omitempty"`
	// MRZSource says which reading of the MRZ the layers used:
	// mrz_parsing, ocr_extraction, document_authenticity (read again) or
	// unverified (no reading whose check digits pass); "" without one.
	MRZSource string `json:"mrz_source"`
}

// Scores is the spec's scores object.
type Scores struct {
	Medium          string  `json:"medium"`
	PaperScore      float64 `json:"paper_score"`
	GuillocheScore  float64 `json:"guilloche_score"`
	MRZAllChecks    bool    `json:"mrz_all_checks_pass"`
	OCRScore        float64 `json:"ocr_score"`
	SubstrateDetail string  `json:"-"`
}

// Layer is one layer's part of the verdict.
type Layer struct {
	Score    float64   `json:"score"`
	Weight   float64   `json:"weight"`
	Findings []Finding `json:"findings"`
	// CouldNotExamine lists evidence the layer left aside because the
	// reading it rests on failed (a field misread, too little read).
	CouldNotExamine []string `json:"could_not_examine"`
}

// Finding is one thing a layer found against the document.
type Finding struct {
	Code string `json:"code"`
	// Fail is set when the finding alone rejects the document; otherwise
	// it sends it to review.
	Fail bool   `json:"fail"`
	Note string `json:"note"`
}

type finding struct {
	code string
	fail bool
	note string
}

// layerResult is what a layer reports: a score in 0..1 (how far its
// evidence supports a genuine, valid document), findings against it, or
// why it could not run.
type layerResult struct {
	name     string
	score    float64
	findings []finding
	skipped  string
	// unexamined lists what the layer could not examine because the
	// reading it rests on failed: a misread is no evidence either way.
	unexamined []string
	// substrate only
	medium string
	paper  float64
	stats  map[string]float64
}

// weights of the layers in the confidence: the MRZ's check digits and the
// substrate are the strongest evidence a single photo gives; the others
// corroborate. Chosen by judgement, not fitted.
var weights = map[string]float64{
	layerMRZ: 3, layerSubstrate: 3, layerCrossCheck: 2, layerBarcode: 2, layerPortrait: 2, layerEdit: 2, layerMRZPrint: 2, layerDocType: 1, layerValidity: 1, layerValuePrint: 1, layerNumbers: 2,
}

// accusatory layers look for one kind of tampering; they weigh in only
// when they find it. Counting their silence as a 1 lifted the confidence
// of cards other layers doubted: a held-out genuine card with a
// recapture texture went from FAIL to REVIEW, and a third of the medium
// screen recaptures that failed only went to review.
var accusatory = map[string]bool{layerPortrait: true, layerValuePrint: true, layerEdit: true, layerNumbers: true, layerMRZPrint: true}

// inputs is what the layers examine.
type inputs struct {
	def     *idv.DocumentDefinition
	front   image.Image // the rectified front
	back    image.Image // the rectified back (nil when not sent)
	capture image.Image // the front as captured
	// captureData is the front as stored (its JPEG compression history
	// is evidence of an edit)
	captureData []byte
	mrz         *idv.MRZData
	mrzFrom     string
	fields      map[string]string
	quality     *idv.OCRQuality
	// readings is how ocr_extraction came by each field (nil when it did
	// not say): a weak reading is no evidence against the card.
	readings *idv.OCRReadings
	now      time.Time // the day of the verification
	// lumas are the rectified sides' luminance, made once for the layers
	// that measure the print (luma).
	lumas map[string]*plane
}

// luma is the luminance of the rectified side ("front" or "back"), nil
// when the side was not found.
func (in *inputs) luma(side string) *plane {
	if l, ok := in.lumas[side]; ok {
		return l
	}
	img := in.front
	if side == "back" {
		img = in.back
	}
	var l *plane
	if img != nil {
		l = lumaOf(img)
	}
	if in.lumas == nil {
		in.lumas = map[string]*plane{}
	}
	in.lumas[side] = l
	return l
}

// Run implements idv.Check.
func (k *Check) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	t, band, err := operatingPoint(c.Step)
	if err != nil {
		return idv.Outcome{}, err
	}
	in, layers := k.gather(ctx, c)
	if in.def != nil && in.front != nil {
		layers = append(layers, k.examine(ctx, c, in)...)
	}
	sec, out := judge(layers, t, band)
	if in.quality != nil {
		sec.OCRQuality = *in.quality
		sec.Scores.OCRScore = in.quality.Score
	}
	if in.mrz != nil {
		sec.Scores.MRZAllChecks = in.mrz.AllChecksPass
		sec.MRZSource = in.mrzFrom
	}
	c.SetSection("document_authenticity", sec)
	return out, nil
}

// gather collects the inputs; what is missing becomes a finding.
func (k *Check) gather(ctx context.Context, c *idv.Case) (inputs, []layerResult) {
	in := inputs{def: c.Definition, now: c.Now}
	var problems []layerResult
	bad := func(code, note string) {
		problems = append(problems, layerResult{name: "input", findings: []finding{{code: code, note: note}}})
	}
	if q, ok := idv.ValueOCRQuality.Get(c); ok {
		in.quality = &q
	}
	if r, ok := idv.ValueOCRReadings.Get(c); ok {
		in.readings = &r
	}
	_, in.fields = c.Fields()
	if in.def == nil {
		bad("doc_definition_unknown", "no document definition for config "+c.Config)
		return in, problems
	}
	front, ok := c.Images[idv.SlotFront]
	if !ok || len(front.Data) == 0 {
		bad("doc_front_missing", "no front capture")
		return in, problems
	}
	capture, err := vision.Decode(front.Data)
	if err != nil {
		bad("doc_front_unreadable", err.Error())
		return in, problems
	}
	in.capture, in.captureData = capture, front.Data
	if img, ok := c.Derived(idv.ImageFrontRectified); ok {
		in.front = img
	} else if card, err := vision.Rectify(capture, in.def, "front"); err == nil {
		in.front = card.Image
	} else {
		bad("doc_card_not_found", "no card outline in the front capture")
		return in, problems
	}
	if img, ok := c.Derived(idv.ImageBackRectified); ok {
		in.back = img
	} else if back, ok := c.Images[idv.SlotBack]; ok && len(back.Data) > 0 {
		if img, err := vision.Decode(back.Data); err == nil {
			if card, err := vision.Rectify(img, in.def, "back"); err == nil {
				in.back = card.Image
			}
		}
	}
	if in.def.HasSide("back") && in.back == nil && needsBack(in.def) {
		bad("doc_back_missing", "the definition prints evidence on the back, which was not sent or not found")
	}
	in.mrz, in.mrzFrom = k.findMRZ(ctx, c, in)
	return in, problems
}

// needsBack tells whether the definition prints on its back something the
// layers examine (the MRZ or the barcode).
func needsBack(d *idv.DocumentDefinition) bool {
	return (d.MRZ != nil && d.MRZ.Zone.Side == "back") || (d.Barcode != nil && d.Barcode.Zone.Side == "back")
}

// findMRZ takes the MRZ mrz_parsing left, else parses the text
// ocr_extraction read, else reads it from the rectified side the
// definition prints it on.
func (k *Check) findMRZ(ctx context.Context, c *idv.Case, in inputs) (*idv.MRZData, string) {
	if m := c.MRZ(); m != nil {
		return m, "mrz_parsing"
	}
	if in.def.MRZ == nil {
		return nil, ""
	}
	var first *idv.MRZData
	if txt, ok := idv.ValueMRZText.Get(c); ok && txt != "" {
		if m, err := mrz.ParseText(txt, mrz.Options{Now: c.Now, Repair: true}); err == nil {
			if m.AllChecksPass {
				return mrzdata.From(m), "ocr_extraction"
			}
			first = mrzdata.From(m)
		}
	}
	// No reading, or one whose check digits fail: read the band again,
	// in the definition's zone and then on the whole side, as mrz_parsing
	// does; a reading whose digits pass wins (OCR's reading of ke_passport
	// medium captures of seed 1017 failed where the band reads cleanly).
	side := in.front
	if in.def.MRZ.Zone.Side == "back" {
		side = in.back
	}
	if side != nil {
		for _, img := range []image.Image{vision.Crop(side, grow(in.def.MRZ.Zone)), side} {
			rd, err := k.mrz.Read(ctx, img)
			if err != nil {
				continue
			}
			m, err := mrz.Parse(rd.Lines, mrz.Options{Now: c.Now, Repair: true})
			if err != nil {
				continue
			}
			if m.AllChecksPass {
				return mrzdata.From(m), "document_authenticity"
			}
			if first == nil {
				first = mrzdata.From(m)
			}
		}
	}
	if first == nil {
		return nil, ""
	}
	return first, "unverified"
}

// grow widens a zone by half its height each way, for rectification error.
func grow(z idv.Zone) idv.Zone {
	m := z.H / 2
	z.X, z.Y, z.W, z.H = z.X-m, z.Y-m, z.W+2*m, z.H+2*m
	return z
}

// examine runs the layers on the gathered inputs.
func (k *Check) examine(ctx context.Context, c *idv.Case, in inputs) []layerResult {
	return []layerResult{
		substrate(in),
		docType(c, in),
		crossCheck(in),
		mrzLayer(in),
		{name: layerGuilloche, skipped: featureSkip(in.def, "guilloche", "no expected fine-line spectrum for it (to be measured on genuine specimens, not on our renders): not built")},
		{name: layerSeal, skipped: featureSkip(in.def, "seal", "no reference emblem for it: not built")},
		{name: layerHologram, skipped: "a hologram cannot be judged from one photo: it shows as a changing colour under changing angles"},
		barcode(ctx, in),
		validityOf(in),
		portraitLayer(ctx, &in, k.faces),
		valuePrintLayer(&in),
		editLayer(&in),
		numbersLayer(in),
		mrzPrintLayer(&in),
	}
}

// validityOf runs the validity layer on the MRZ's dates and the printed
// ones. A printed date the reader came by weakly is no evidence against
// the document: when the dates as read show a problem and some were read
// weakly, the layer is judged on the firmly read ones alone and lists the
// others as not examined. When they show none, the weak ones count with
// the rest (an expiry misread as another valid date is a coincidence;
// leaving them out made genuine cards without MRZ unexaminable: a Ghana
// voter card of seed 2029 whose birth date was found without its
// caption).
func validityOf(in inputs) layerResult {
	names := []string{"date_of_birth", "date_of_issue", "date_of_expiry"}
	kind := ""
	if in.def != nil {
		kind = in.def.Kind
	}
	dated := func(fields map[string]string) dates {
		ds := collectDates(in.mrz, fields)
		ds.kind = kind
		return ds
	}
	all := validity(dated(in.fields), in.now)
	firm, weak := firmFields(in.readings, in.fields, names)
	if len(all.findings) == 0 || len(weak) == 0 {
		return all
	}
	lr := validity(dated(firm), in.now)
	lr.unexamined = append(weak, lr.unexamined...)
	if lr.skipped != "" {
		lr.skipped = "could not examine: the dates were read only weakly"
	}
	return lr
}

// featureSkip is why a security-feature layer did not run: the definition
// declares no such feature, or declares one the check has no reference for.
func featureSkip(d *idv.DocumentDefinition, kind, noReference string) string {
	for _, f := range d.Security {
		if f.Kind == kind {
			return fmt.Sprintf("the definition declares a %s on the %s, but %s", kind, f.Zone.Side, noReference)
		}
	}
	return "the definition declares no " + kind
}

// judge turns the layers into the section and the outcome, by the rules
// of face matching: at or above the threshold PASS, within the review band
// below it REVIEW, under that FAIL; a failing finding fails, a review
// finding or layers that cannot support PASS send to review.
func judge(layers []layerResult, threshold, band float64) (Section, idv.Outcome) {
	sec := Section{
		Status: "success", ReasonCodes: []string{}, Notes: []string{}, ChecksApplied: []string{}, ChecksSkipped: []string{},
		SkippedWhy: map[string]string{}, Layers: map[string]Layer{}, Threshold: threshold, ReviewBand: band,
		Scores:     Scores{Medium: MediumUnknown},
		OCRQuality: idv.OCRQuality{Conflicts: []string{}, Unread: []string{}},
	}
	var sum, wsum float64
	var fails, reviews []finding
	var pieces []idv.ScorePiece
	ran := map[string]bool{}
	for _, lr := range layers {
		for _, f := range lr.findings {
			if f.fail {
				fails = append(fails, f)
			} else {
				reviews = append(reviews, f)
			}
			sec.ReasonCodes = appendUnique(sec.ReasonCodes, f.code)
		}
		if lr.name == "input" {
			continue
		}
		if lr.name == layerSubstrate {
			sec.Scores.Medium, sec.Scores.PaperScore, sec.SubstrateStats = lr.medium, round3(lr.paper), lr.stats
		}
		if lr.name == layerPortrait && len(lr.stats) > 0 {
			sec.PortraitStats = lr.stats
		}
		if lr.name == layerValuePrint && len(lr.stats) > 0 {
			sec.PrintStats = lr.stats
		}
		if lr.name == layerEdit && len(lr.stats) > 0 {
			sec.EditStats = lr.stats
		}
		if lr.name == layerMRZPrint && len(lr.stats) > 0 {
			sec.MRZPrintStats = lr.stats
		}
		if lr.skipped != "" {
			sec.ChecksSkipped = append(sec.ChecksSkipped, lr.name)
			sec.SkippedWhy[lr.name] = lr.skipped
			continue
		}
		ran[lr.name] = true
		sec.ChecksApplied = append(sec.ChecksApplied, lr.name)
		w := weights[lr.name]
		if accusatory[lr.name] && len(lr.findings) == 0 {
			// Finding no tampering is no evidence of authenticity: the
			// layer ran, but does not lift the confidence.
			w = 0
		}
		sum += w * lr.score
		wsum += w
		l := Layer{Score: round3(lr.score), Weight: w, Findings: []Finding{}, CouldNotExamine: append([]string{}, lr.unexamined...)}
		for _, f := range lr.findings {
			l.Findings = append(l.Findings, Finding{Code: f.code, Fail: f.fail, Note: f.note})
		}
		sec.Layers[lr.name] = l
		pieces = append(pieces, idv.ScorePiece{Name: lr.name, Value: round3(lr.score), Weight: w, Note: noteOf(lr.findings)})
	}
	conf := 0.0
	if wsum > 0 {
		conf = sum / wsum
	}
	// PASS needs evidence about the object photographed (substrate) and
	// about its content: a verified MRZ, or where the document prints none,
	// the print read and matched to the definition.
	supported := ran[layerSubstrate] && (ran[layerMRZ] || ran[layerDocType] && ran[layerValidity])
	if !supported {
		// Say which evidence was missing, so a reviewer knows what to look at.
		note := "the layers that ran cannot support PASS"
		for _, n := range []string{layerSubstrate, layerMRZ, layerDocType, layerValidity} {
			if why, ok := sec.SkippedWhy[n]; ok {
				note += "; " + n + ": " + why
			}
		}
		sec.Notes = append(sec.Notes, note)
	}
	out := idv.Outcome{HasConfidence: true, Pieces: pieces}
	switch {
	case len(fails) > 0:
		sec.Decision, out.Status = DecisionFail, idv.StatusFailed
		for _, f := range fails {
			switch f.code {
			case ReasonExpired, ReasonDatesInvalid:
				out.Reasons = appendUnique(out.Reasons, f.code)
			default:
				out.Reasons = appendUnique(out.Reasons, ReasonNotAuthentic)
			}
		}
		conf = math.Min(conf, threshold-band-0.01)
	case conf < threshold-band:
		sec.Decision, out.Status = DecisionFail, idv.StatusFailed
		out.Reasons = []string{ReasonNotAuthentic}
	case len(reviews) > 0 || !supported || conf < threshold:
		sec.Decision, out.Status = DecisionReview, idv.StatusReview
		out.Reasons = []string{ReasonBelowBand}
		for _, f := range reviews {
			if f.code == ReasonExpired || f.code == ReasonDatesInvalid {
				out.Reasons = appendUnique(out.Reasons, f.code)
			}
		}
		// The engine compares the confidence with the threshold again:
		// keep it below, so the two agree.
		conf = math.Min(conf, threshold-0.01)
	default:
		sec.Decision, out.Status = DecisionPass, idv.StatusPassed
		sec.OverallAuth = true
		if ran[layerMRZ] && sec.Scores.Medium == MediumOriginal {
			sec.Notes = append(sec.Notes, "AUTO_APPROVED_SECURITY_FEATURES")
		}
	}
	conf = math.Max(0, conf)
	out.Confidence = round3(conf)
	sec.Confidence = out.Confidence
	for _, r := range out.Reasons {
		sec.ReasonCodes = appendUnique(sec.ReasonCodes, r)
	}
	sort.Strings(sec.ChecksSkipped)
	return sec, out
}

func noteOf(fs []finding) string {
	s := ""
	for i, f := range fs {
		if i > 0 {
			s += "; "
		}
		s += f.code + ": " + f.note
	}
	return s
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
