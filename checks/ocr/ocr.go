// Package ocr is the ocr_extraction check: it finds and rectifies the card
// in the captures (package vision), reads every field of the document
// definition from its zone with tesseract (gosseract over Debian's
// libtesseract), normalises and validates the values, decides the document
// type among those the workflow allows, and cross-checks the printed
// fields with the MRZ. See docs/ocr.md.
package ocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/idv"
	mrzpkg "github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

// Name is the check's name in workflows.
const Name = idv.CheckOCR

// ValueQuality is where the check leaves its measure of the capture
// (the ocr_quality object) for document_authenticity and reviewers.
var ValueQuality = idv.ValueOCRQuality

// ValueMRZText is the MRZ text read from the card, for checks that want the
// printed MRZ without reading it again.
var ValueMRZText = idv.ValueMRZText

func init() {
	idv.Register(Name, func(s idv.Settings) (idv.Check, error) {
		opts := []Option{WithLabelReader(s.Get("ocr_reader", "labels") != "zones")}
		if font := s.Get("ocrb_font", ""); font != "" {
			opts = append(opts, WithMRZReader(mrzpkg.NewReader(mrzpkg.WithFont(font))))
		}
		return New(opts...), nil
	})
}

// Check is the ocr_extraction check. It is safe for concurrent use.
type Check struct {
	workers  int
	labels   bool // read fields by their captions (WithLabelReader)
	mrz      *mrzpkg.Reader
	once     sync.Once
	pool     *pool
	closeErr error
}

var _ idv.Check = (*Check)(nil)
var _ idv.Closer = (*Check)(nil)

// Option configures a Check.
type Option func(*Check)

// WithWorkers sets how many zones are read at once (default GOMAXPROCS);
// it is also the number of tesseract clients kept.
func WithWorkers(n int) Option {
	return func(c *Check) {
		if n > 0 {
			c.workers = n
		}
	}
}

// WithLabelReader chooses how fields are found: by their captions on one
// page reading of each side (true; issue 15, docs/docdefs.md), or by
// cropping each field's zone (false, the default until the caption
// reader matches it on the base corpus and the specimens; docs/ocr.md).
func WithLabelReader(on bool) Option {
	return func(c *Check) { c.labels = on }
}

// WithMRZReader sets the reader of the MRZ band (default: the mrz
// package's reader with its default OCR-B font, shared by every Check).
func WithMRZReader(r *mrzpkg.Reader) Option {
	return func(c *Check) {
		if r != nil {
			c.mrz = r
		}
	}
}

// defaultMRZReader is shared by the Checks built without WithMRZReader: it
// renders its glyphs once and is safe for concurrent use.
var defaultMRZReader = mrzpkg.NewReader()

// New returns the check. Tesseract is loaded on first use.
func New(opts ...Option) *Check {
	c := &Check{workers: runtime.GOMAXPROCS(0), mrz: defaultMRZReader, labels: true}
	for _, o := range opts {
		o(c)
	}
	return c
}

func (k *Check) Name() string { return Name }
func (k *Check) Cost() int    { return idv.CostOf(idv.CheckOCR) }

// Close releases the tesseract clients.
func (k *Check) Close() error {
	if k.pool != nil {
		return k.pool.close()
	}
	return nil
}

func (k *Check) tess() *pool {
	k.once.Do(func() { k.pool = newPool(k.workers) })
	return k.pool
}

// Quality is the ocr_quality object (declared in idv for document_authenticity).
type Quality = idv.OCRQuality

// Extraction is everything the check reads from one verification's
// captures.
type Extraction struct {
	Definition *idv.DocumentDefinition
	// Fields has exactly the definition's schema keys, "" where unread.
	Fields map[string]string
	// Raw is what tesseract read per field before normalisation.
	Raw     map[string]string
	Quality Quality
	// Cards are the rectified sides by side name.
	Cards map[string]*vision.Card
	// Capture holds the quality measures per side.
	Capture map[string]vision.Quality
	// MRZText is the MRZ as read from the card (lines joined by \n).
	MRZText string
	// Reasons are decision reasons (card_not_found, image_too_blurry...).
	Reasons []string
	// FromMRZ names fields that could not be read printed and were taken
	// from a trusted MRZ.
	FromMRZ []string
	// Resolved names fields whose print was ambiguous between letters and
	// digits (O/0, I/1...) and was settled by a trusted MRZ.
	Resolved []string
	conf     float64
	// keyword evidence for the document type (0..1).
	keywords float64
	// mrzMatch: the MRZ read has the definition's format and document code.
	mrzMatch bool
	// noMRZ: there was no MRZ to hold the print against; the score's
	// agreement term is the coverage then.
	noMRZ bool
	// MRZ is the MRZ parsed from MRZText (nil when none was read).
	MRZ *idv.MRZData
	// Located says where each field read from the print was found, by
	// field name; Words is each side's page reading. Both are for
	// inspecting a definition (tambua docdefs try).
	Located map[string]Located
	Words   map[string][]Word
}

// Readings says how each field's value was come by and where the page
// reading found words, for document_authenticity (idv.OCRReadings).
func (ex *Extraction) Readings() idv.OCRReadings {
	out := idv.OCRReadings{Fields: map[string]idv.FieldReading{}, Words: map[string][][4]float64{}}
	from, resolved := map[string]bool{}, map[string]bool{}
	for _, n := range ex.FromMRZ {
		from[n] = true
	}
	for _, n := range ex.Resolved {
		resolved[n] = true
	}
	for _, f := range ex.Definition.Fields {
		if f.Fixed != "" {
			continue
		}
		var r idv.FieldReading
		switch loc, ok := ex.Located[f.Name]; {
		case ex.Fields[f.Name] == "":
		case from[f.Name]:
			r.How = "mrz"
		case ok:
			r = idv.FieldReading{Side: loc.Side, How: loc.How, Conf: rawConf(loc.Raw), Resolved: resolved[f.Name]}
			if b := loc.Value; b != nil {
				r.Box = [4]float64{b.X, b.Y, b.W, b.H}
			}
		}
		out.Fields[f.Name] = r
	}
	for side, ws := range ex.Words {
		for _, w := range ws {
			out.Words[side] = append(out.Words[side], [4]float64{w.Box.X, w.Box.Y, w.Box.W, w.Box.H})
		}
	}
	return out
}

// rawConf is the confidence a field's raw reading ends with ("text|87").
func rawConf(raw string) float64 {
	i := strings.LastIndexByte(raw, '|')
	if i < 0 {
		return 0
	}
	var v float64
	if _, err := fmt.Sscan(raw[i+1:], &v); err != nil {
		return 0
	}
	return v
}

// InputError is returned by Extract when a capture cannot be used at all;
// Reason is the decision reason.
type InputError struct {
	Slot   string
	Reason string
	Err    error
}

func (e *InputError) Error() string { return fmt.Sprintf("ocr: %s image: %v", e.Slot, e.Err) }
func (e *InputError) Unwrap() error { return e.Err }

func reasonFor(err error) string {
	switch {
	case errors.Is(err, vision.ErrTooLarge):
		return vision.ReasonImageTooLarge
	case errors.Is(err, vision.ErrTooSmall):
		return vision.ReasonImageTooSmall
	case errors.Is(err, vision.ErrNoCapture):
		return vision.ReasonImageMissing
	case errors.Is(err, vision.ErrCardNotFound):
		return vision.ReasonCardNotFound
	}
	return vision.ReasonNotDecodable
}

// Run implements idv.Check.
func (k *Check) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	cands := c.Allowed
	if len(cands) == 0 && c.Definition != nil {
		cands = []*idv.DocumentDefinition{c.Definition}
	}
	if len(cands) == 0 {
		return idv.Outcome{Status: idv.StatusError}, errors.New("ocr: no document definition")
	}
	imgs := map[string]image.Image{}
	for _, slot := range []string{idv.SlotFront, idv.SlotBack} {
		in, ok := c.Images[slot]
		if !ok || len(in.Data) == 0 {
			if slot == idv.SlotFront {
				return idv.Failed(vision.ReasonImageMissing), nil
			}
			continue
		}
		img, err := vision.Decode(in.Data)
		if err != nil {
			return idv.Failed(reasonFor(err)), nil
		}
		imgs[slot] = img
	}
	ex, err := k.extract(ctx, imgs, cands, c.MRZ(), c.Now)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return idv.Failed(ie.Reason), nil
		}
		return idv.Outcome{Status: idv.StatusError}, err
	}
	def := ex.Definition
	c.Definition = def
	c.SetDocumentType(def.Config)
	c.SetFields(def.FieldSchema, ex.Fields)
	if card, ok := ex.Cards["front"]; ok {
		c.SetDerived(idv.ImageFrontRectified, card.Image)
		if def.Photo != nil && def.Photo.Side == "front" {
			c.SetDerived(idv.ImageIDPhoto, vision.Crop(card.Image, *def.Photo))
		}
	}
	if card, ok := ex.Cards["back"]; ok {
		c.SetDerived(idv.ImageBackRectified, card.Image)
	}
	ValueQuality.Set(c, ex.Quality)
	if ex.MRZText != "" {
		ValueMRZText.Set(c, ex.MRZText)
	}
	idv.ValueOCRReadings.Set(c, ex.Readings())
	q := ex.Quality
	out := idv.Outcome{
		Status: idv.StatusPassed, Confidence: q.Score, HasConfidence: true,
		Pieces: []idv.ScorePiece{
			{Name: "coverage", Value: q.Coverage, Weight: 0.6, Note: noteList("unread", q.Unread)},
			agreementPiece(ex),
			{Name: "confidence", Value: ex.conf, Weight: 0.15, Note: "mean tesseract word confidence"},
			{Name: "mrz_trusted", Value: b2f(q.MRZTrusted), Weight: 0},
		},
	}
	for side, cq := range ex.Capture {
		out.Pieces = append(out.Pieces,
			idv.ScorePiece{Name: side + "_sharpness", Value: cq.Sharpness, Note: "vision.MinSharpness " + fmt.Sprint(vision.MinSharpness)},
			idv.ScorePiece{Name: side + "_glare", Value: cq.Glare, Note: strings.Join(cq.GlareFields, ",")})
	}
	out.Flags = append(out.Flags, ex.Reasons...)
	if len(ex.FromMRZ) > 0 {
		out.Flags = append(out.Flags, "ocr_fields_from_mrz")
	}
	if len(ex.Resolved) > 0 {
		out.Flags = append(out.Flags, "ocr_fields_resolved_by_mrz")
	}
	switch {
	case hasReason(ex.Reasons, vision.ReasonWrongDocument):
		out.Status = idv.StatusReview
		out.Reasons = appendUnique([]string{vision.ReasonWrongDocument}, ex.Reasons...)
	case q.Coverage < 0.5:
		// Too little of the card could be read to stand behind any of it.
		out.Status = idv.StatusReview
		out.Reasons = append([]string{vision.ReasonUnreadable}, ex.Reasons...)
	case len(q.Conflicts) > 0:
		out.Status = idv.StatusReview
		out.Reasons = append([]string{vision.ReasonMRZConflict}, ex.Reasons...)
	}
	return out, nil
}

func hasReason(rs []string, r string) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// agreementPiece is the score's agreement term as the score used it:
// without an MRZ there is nothing to agree with and coverage stands in,
// which a reviewer would otherwise see as an agreement of 0.
func agreementPiece(ex *Extraction) idv.ScorePiece {
	q := ex.Quality
	if ex.noMRZ {
		return idv.ScorePiece{Name: "agreement", Value: q.Coverage, Weight: 0.25, Note: "no MRZ to hold the print against: coverage stands in"}
	}
	return idv.ScorePiece{Name: "agreement", Value: q.Agreement, Weight: 0.25, Note: noteList("conflicts", q.Conflicts)}
}

func noteList(what string, xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return what + ": " + strings.Join(xs, ", ")
}

// Extract reads the captures (decoded, by slot) as one of the candidate
// definitions, deciding which when there are several. mrz, when not nil,
// is a parsed MRZ to cross-check against.
func (k *Check) Extract(ctx context.Context, imgs map[string]image.Image, cands []*idv.DocumentDefinition, mrz *idv.MRZData) (*Extraction, error) {
	return k.extract(ctx, imgs, cands, mrz, time.Now())
}

func (k *Check) extract(ctx context.Context, imgs map[string]image.Image, cands []*idv.DocumentDefinition, mrz *idv.MRZData, now time.Time) (*Extraction, error) {
	front, ok := imgs[idv.SlotFront]
	if !ok {
		return nil, &InputError{Slot: "front", Reason: vision.ReasonImageMissing, Err: vision.ErrNoCapture}
	}
	// Rectify once per card shape.
	type rect struct {
		card *vision.Card
		err  error
	}
	byAspect := map[string]rect{}
	key := func(d *idv.DocumentDefinition) string {
		return fmt.Sprintf("%.1fx%.1f", d.Size.WidthMM, d.Size.HeightMM)
	}
	for _, d := range cands {
		if _, done := byAspect[key(d)]; done {
			continue
		}
		card, err := vision.Rectify(front, d, "front")
		byAspect[key(d)] = rect{card, err}
	}
	var live []*idv.DocumentDefinition
	for _, d := range cands {
		if byAspect[key(d)].err == nil {
			live = append(live, d)
		}
	}
	if len(live) == 0 {
		err := byAspect[key(cands[0])].err
		return nil, &InputError{Slot: "front", Reason: reasonFor(err), Err: err}
	}
	var best *Extraction
	for _, s := range rankByKeywords(ctx, k, live, func(d *idv.DocumentDefinition) *vision.Card { return byAspect[key(d)].card }) {
		ex, err := k.extractAs(ctx, s.def, byAspect[key(s.def)].card, imgs[idv.SlotBack], mrz, now)
		if err != nil {
			return nil, err
		}
		ex.keywords = s.kw
		if best == nil || ex.rank() > best.rank() {
			best = ex
		}
		// A confident read of the strongest keyword candidate settles it.
		if len(live) == 1 || (ex.Quality.Coverage >= 0.9 && ex.keywords >= 0.5) {
			break
		}
	}
	// A generic reading that found no key field in the print is read
	// again where the capture's MRZ puts the document (placement.go).
	return k.byMRZ(ctx, front, imgs[idv.SlotBack], live, best, mrz, now)
}

func (e *Extraction) rank() float64 {
	r := e.Quality.Coverage + 0.5*e.keywords + 0.002*e.conf
	if e.mrzMatch {
		// An MRZ of the definition's format and document code.
		r += 0.5
	}
	// Tie-breaks for readings that found nothing of their definition (a
	// visa read as a passport or an ID card): an MRZ of any format was
	// read on this card shape, and how well the outline's shape fits the
	// definition's size.
	if e.MRZ != nil {
		r += 0.05
	}
	if c := e.Cards["front"]; c != nil && c.Detection.Found {
		r += 0.01 * shapeFit(c.Detection.Quad, e.Definition.Size.Aspect())
	}
	return r
}

// shapeFit (0..1) is how close the outline's aspect is to the document's:
// 1 when equal, 0 at a quarter off. An image taken whole as the card
// (FillsFrame) has the image's own aspect, so this tells a passport page
// scan from an ID-1 card scan.
func shapeFit(q vision.Quad, aspect float64) float64 {
	hyp := func(a, b vision.Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }
	w := (hyp(q[0], q[1]) + hyp(q[3], q[2])) / 2
	h := (hyp(q[0], q[3]) + hyp(q[1], q[2])) / 2
	if w <= 0 || h <= 0 || aspect <= 0 {
		return 0
	}
	a := w / h
	if a < 1 {
		// An outline found turned a quarter.
		a = 1 / a
	}
	return math.Max(0, 1-4*math.Abs(math.Log(a/aspect)))
}

type scored struct {
	def *idv.DocumentDefinition
	kw  float64
}

// rankByKeywords orders the candidates by how many of their front keywords
// appear in the top band of the card, where titles are printed.
func rankByKeywords(ctx context.Context, k *Check, defs []*idv.DocumentDefinition, card func(*idv.DocumentDefinition) *vision.Card) []scored {
	if len(defs) == 1 {
		return []scored{{defs[0], 0}}
	}
	texts := map[*vision.Card]string{}
	var ss []scored
	for _, d := range defs {
		c := card(d)
		t, ok := texts[c]
		if !ok {
			band := vision.Crop(c.Image, idv.Zone{X: 0, Y: 0, W: 1, H: 0.2})
			if img := prepare(band, 48); img != nil {
				if r, err := k.tess().read(ctx, img, "", 6); err == nil {
					t = compact(r.Text)
				}
			}
			texts[c] = t
		}
		ss = append(ss, scored{d, keywordScore(t, d.Keywords["front"])})
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].kw > ss[j].kw })
	return ss
}

func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '<' {
			return r
		}
		if r >= 'a' && r <= 'z' {
			return r - 32
		}
		return -1
	}, s)
}

func keywordScore(text string, kws []string) float64 {
	if len(kws) == 0 {
		return 0
	}
	n := 0
	for _, kw := range kws {
		if fuzzyContains(text, compact(kw)) {
			n++
		}
	}
	return float64(n) / float64(len(kws))
}

// fuzzyContains reports whether text contains kw with at most one error
// per six characters (substitutions only, which is what OCR mostly makes).
func fuzzyContains(text, kw string) bool {
	if kw == "" || len(kw) > len(text) {
		return false
	}
	allow := len(kw) / 6
	for i := 0; i+len(kw) <= len(text); i++ {
		d := 0
		for j := 0; j < len(kw) && d <= allow; j++ {
			if text[i+j] != kw[j] {
				d++
			}
		}
		if d <= allow {
			return true
		}
	}
	return false
}

// prepare turns a zone crop into what tesseract reads best: grey,
// contrast stretched, the light background print (guilloche, tints) turned
// white, cut to the band of rows that holds the text line(s) and to the
// columns with ink, scaled so glyphs stand about 30 px tall, with a white
// margin so glyphs do not touch the border.
func prepare(img image.Image, targetH int) *image.Gray {
	b := img.Bounds()
	if b.Dy() < 2 || b.Dx() < 2 {
		return nil
	}
	n := imaging.Clone(img)
	w, h := b.Dx(), b.Dy()
	lum := make([]float64, w*h)
	hist := [256]int{}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := n.Pix[y*n.Stride+4*x:]
			v := 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
			lum[y*w+x] = v
			hist[int(v)]++
		}
	}
	lo, hi := float64(histPct(hist, len(lum), 0.01)), float64(histPct(hist, len(lum), 0.90))
	if hi-lo < 20 {
		lo, hi = 0, 255
	}
	t := otsu(hist)
	// Ink is darker than Otsu's threshold; what is lighter becomes paper.
	ink := make([]bool, w*h)
	lum0 := append([]float64(nil), lum...)
	for i, v := range lum {
		if v < t {
			ink[i] = true
		}
		s := (v - lo) * 255 / (hi - lo)
		if v >= t {
			s = 255
		}
		lum[i] = math.Max(0, math.Min(255, s))
	}
	// A column inked over most of the zone's height is no glyph (a glyph
	// is about half the zone): the edge of a finger, a shadow or a frame
	// line beside the value. It would join the label's rows to the
	// value's and sit beside the first letter ("WAKISO" read "WS").
	for x := 0; x < w; x++ {
		n := 0
		for y := 0; y < h; y++ {
			if ink[y*w+x] {
				n++
			}
		}
		if 5*n > 4*h {
			for y := 0; y < h; y++ {
				ink[y*w+x], lum[y*w+x] = false, 255
			}
		}
	}
	// Rows: keep the densest run of inked rows (the value), dropping the
	// tails of the label above and of the next field below.
	rowInk := make([]int, h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if ink[y*w+x] {
				rowInk[y]++
			}
		}
	}
	minRow := max(1, w/200)
	bestS, bestE, bestSum := 0, h, -1
	for y := 0; y < h; {
		if rowInk[y] < minRow {
			y++
			continue
		}
		s, sum := y, 0
		for y < h && rowInk[y] >= minRow {
			sum += rowInk[y]
			y++
		}
		if sum > bestSum {
			bestS, bestE, bestSum = s, y, sum
		}
	}
	if bestSum <= 0 {
		// Nothing printed: nothing for tesseract to read.
		return nil
	}
	// Lines of a multi-line zone are separated by blank rows: keep every
	// band of comparable weight.
	top, bottom := bestS, bestE
	for y := 0; y < h; {
		if rowInk[y] < minRow {
			y++
			continue
		}
		s, sum := y, 0
		for y < h && rowInk[y] >= minRow {
			sum += rowInk[y]
			y++
		}
		if sum*3 >= bestSum && y-s >= (bestE-bestS)/2 {
			top, bottom = min(top, s), max(bottom, y)
		}
	}
	colInk := func(x int) bool {
		for y := top; y < bottom; y++ {
			if ink[y*w+x] {
				return true
			}
		}
		return false
	}
	left, right := 0, w
	for left < w && !colInk(left) {
		left++
	}
	for right > left && !colInk(right-1) {
		right--
	}
	if right-left < 2 || bottom-top < 2 {
		left, right, top, bottom = 0, w, 0, h
	}
	left, right = trimEnds(lum0, ink, w, left, right, top, bottom, hi)
	lineH := bottom - top
	scale := float64(targetH) * 0.55 / float64(max(lineH, 1))
	if lines := targetH / zoneHeight; lines > 1 {
		scale = float64(zoneHeight) * 0.55 * float64(lines) / float64(max(lineH, 1))
	}
	cw, ch := right-left, bottom-top
	g := image.NewGray(image.Rect(0, 0, cw, ch))
	for y := 0; y < ch; y++ {
		for x := 0; x < cw; x++ {
			g.Pix[y*g.Stride+x] = uint8(lum[(y+top)*w+x+left])
		}
	}
	ow, oh := max(1, int(float64(cw)*scale+0.5)), max(1, int(float64(ch)*scale+0.5))
	sized := imaging.Resize(g, ow, oh, imaging.Linear)
	pad := max(10, oh/2)
	out := image.NewGray(image.Rect(0, 0, ow+2*pad, oh+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for y := 0; y < oh; y++ {
		for x := 0; x < ow; x++ {
			out.Pix[(y+pad)*out.Stride+x+pad] = sized.Pix[y*sized.Stride+4*x]
		}
	}
	return out
}

// trimEnds drops runs of inked columns at either end of the value line
// whose ink is much fainter than the line's letters: the grey emblem or
// ghost portrait beside a short value passes the zone's threshold and was
// read as trailing letters ("OMONDI SS"). Depth is measured from the
// paper (the zone's light level), not from the threshold, which may lie
// just above the letters' own shade. Runs are separated by
// blank columns; a run's weight is how far its ink lies under the
// threshold, on average.
func trimEnds(lum []float64, ink []bool, w, left, right, top, bottom int, paper float64) (int, int) {
	type run struct {
		a, b int
		ink  []float64 // luminance of the inked pixels
		dark float64   // depth under the paper of the run's darker ink
	}
	var runs []run
	open := false
	for x := left; x < right; x++ {
		var col []float64
		for y := top; y < bottom; y++ {
			if i := y*w + x; ink[i] {
				col = append(col, lum[i])
			}
		}
		switch {
		case len(col) == 0:
			open = false
		case !open:
			runs = append(runs, run{a: x, b: x + 1, ink: col})
			open = true
		default:
			r := &runs[len(runs)-1]
			r.b, r.ink = x+1, append(r.ink, col...)
		}
	}
	if len(runs) < 2 {
		return left, right
	}
	// The reference is the median shade of the runs with at least a
	// stroke's worth of ink: most runs are letters (a faint emblem can
	// hold more ink than all of them together, and a finger's shadow can
	// be darker). A run's shade is that of its darker fifth, the cores of
	// strokes, not the soft edges around them.
	var shades []float64
	for k := range runs {
		r := &runs[k]
		sort.Float64s(r.ink)
		r.dark = paper - r.ink[len(r.ink)/5]
		if len(r.ink) >= bottom-top {
			shades = append(shades, r.dark)
		}
	}
	if len(shades) == 0 {
		return left, right
	}
	sort.Float64s(shades)
	ref := shades[len(shades)/2]
	i, j := 0, len(runs)-1
	for i < j && runs[i].dark < 0.6*ref {
		i++
	}
	for j > i && runs[j].dark < 0.6*ref {
		j--
	}
	return runs[i].a, runs[j].b
}

// otsu is the threshold that best splits the histogram in two classes.
func otsu(h [256]int) float64 {
	total, sum := 0, 0.0
	for i, c := range h {
		total += c
		sum += float64(i * c)
	}
	var wB, sumB, best float64
	t := 128.0
	for i, c := range h {
		wB += float64(c)
		if wB == 0 {
			continue
		}
		wF := float64(total) - wB
		if wF == 0 {
			break
		}
		sumB += float64(i * c)
		mB, mF := sumB/wB, (sum-sumB)/wF
		between := wB * wF * (mB - mF) * (mB - mF)
		if between > best {
			best, t = between, float64(i)+0.5
		}
	}
	return t
}

func histPct(h [256]int, n int, p float64) int {
	t := int(p * float64(n))
	s := 0
	for i, c := range h {
		s += c
		if s > t {
			return i
		}
	}
	return 255
}
