package mrz

import (
	"context"
	"errors"
	"image"
	"math"
	"strings"
	"sync"
)

// ErrNotFound is returned by Read when no MRZ band is found in an image.
var ErrNotFound = errors.New("mrz: no MRZ found in the image")

// Reader locates and reads the MRZ in images. It renders its OCR-B glyph
// templates once, on first use; it is safe for concurrent use.
type Reader struct {
	fontPath string
	once     sync.Once
	glyphs   *glyphSet
	err      error
}

// ReaderOption configures a Reader.
type ReaderOption func(*Reader)

// WithFont sets the OCR-B font file the glyph templates are rendered from.
func WithFont(path string) ReaderOption { return func(r *Reader) { r.fontPath = path } }

// NewReader returns a reader.
func NewReader(opts ...ReaderOption) *Reader {
	r := &Reader{fontPath: DefaultFont}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Prepare renders the glyph templates now rather than on the first Read.
func (r *Reader) Prepare() error {
	r.once.Do(func() { r.glyphs, r.err = loadGlyphs(r.fontPath) })
	return r.err
}

// Reading is what Read found: the MRZ lines as read, their format, and
// where the band lies in the image.
type Reading struct {
	Lines  []string
	Format string
	// Box bounds the MRZ band, in the coordinates of the image turned by
	// Rotation degrees clockwise.
	Box image.Rectangle
	// Rotation is how far the image was turned clockwise to read it.
	Rotation int
	// Confidence is the mean template correlation of the chosen characters.
	Confidence float64
	// cells keeps every class score, for repair by second choices.
	cells [][]classScores
	// cellsAll are the unconstrained scores of a single line (ReadLine).
	cellsAll []classScores
}

// Read locates the MRZ in img and reads it.
//
// An MRZ photographed sideways or upside down is found too: when the
// upright reading does not pass its check digits, the image is turned by
// 90, 270 and 180 degrees and the reading that passes (or, failing that,
// matches the glyphs best) is kept; Reading.Rotation says which.
func (r *Reader) Read(ctx context.Context, img image.Image) (*Reading, error) {
	if err := r.Prepare(); err != nil {
		return nil, err
	}
	if img == nil || img.Bounds().Dx() < 16 || img.Bounds().Dy() < 8 {
		return nil, ErrNotFound
	}
	full := toGray(img)
	var best *Reading
	for _, rot := range []int{0, 90, 270, 180} {
		rd, err := r.readGray(ctx, full.rotate(rot))
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rd.Rotation = rot
		if m, err := Parse(rd.Lines, Options{Repair: true}); err == nil && m.AllChecksPass {
			return rd, nil
		}
		if rd.Confidence >= uprightConfidence {
			// The glyphs fit the way up they are (upright reads correlate
			// 0.9 and more, turned ones about 0.8): the document's own check
			// digits fail, turning it will not help.
			return rd, nil
		}
		if best == nil || rd.Confidence > best.Confidence {
			best = rd
		}
	}
	if best == nil {
		return nil, ErrNotFound
	}
	return best, nil
}

// uprightConfidence is the mean glyph correlation above which a reading is
// taken to be the right way up.
const uprightConfidence = 0.87

func (r *Reader) readGray(ctx context.Context, full *gray) (*Reading, error) {
	k := max(1, int(math.Ceil(float64(max(full.w, full.h))/1400)))
	g := shrink(full, k)
	// The threshold's window follows the image's size. On a crop of the
	// band alone that is half a glyph, and on a capture blurred by motion
	// the fillers run together under it (a TD3 band read < as K): a band
	// whose reading fails its check digits is found again with a window
	// of two thirds of a glyph from the band's width (its lines span it
	// in 30 to 44 pitches, a glyph is 1.4 pitches high). Not the wider
	// window alone: the band's geometry moves with it, and a sharp card
	// read well at the first (a ke_passport's 1 read as I) can lose.
	// Chosen on a tuning family's blurred passport; bench mrz lost no
	// reading, mrz_parsing on rectified cards easy 29 -> 30 of 30,
	// medium 27 of 30 as before.
	wins := []int{max(6, min(g.w, g.h)/25)}
	if w := g.w / 66; w > wins[0] {
		wins = append(wins, w)
	}
	var first *Reading
	for _, win := range wins {
		rd, err := r.readWindow(ctx, full, g, float64(k), win)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		if rd == nil {
			continue
		}
		if m, perr := Parse(rd.Lines, Options{Repair: true}); perr == nil && m.AllChecksPass {
			return rd, nil
		}
		if first == nil {
			first = rd
		}
	}
	if first == nil {
		return nil, ErrNotFound
	}
	return first, nil
}

// readWindow finds the band in g (full shrunk k times) with a threshold
// window of win pixels and reads it.
func (r *Reader) readWindow(ctx context.Context, full, g *gray, k float64, win int) (*Reading, error) {
	ink := binarize(g, win)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lines := findLines(components(ink, g.w, g.h), g.h/5)
	b := findBand(lines)
	if b == nil {
		return nil, ErrNotFound
	}
	return r.readBand(ctx, full, k, b)
}

// readBand classifies every cell of the band's lines.
func (r *Reader) readBand(ctx context.Context, g *gray, k float64, b *band) (*Reading, error) {
	// The lines of an MRZ are left-aligned: take the leftmost start, and
	// the pitch from the extents (the last character sits width-1 pitches
	// from the first), which pins it far better than neighbour gaps.
	x0 := math.Inf(1)
	pitch := 0.0
	for _, l := range b.lines {
		x0 = math.Min(x0, l.x0)
		pitch += l.pitch
	}
	pitch /= float64(len(b.lines))
	var ext []float64
	for _, l := range b.lines {
		if l.n >= b.width-1 {
			ext = append(ext, (l.x1-x0)/float64(b.width-1))
		}
	}
	if len(ext) > 0 {
		pitch = median(ext)
	}
	type grid struct{ x0, pitch float64 }
	grids := make([]grid, len(b.lines))
	centres := make([][]float64, len(b.lines))
	rms := make([]float64, len(b.lines))
	ref := -1
	for li, l := range b.lines {
		grids[li] = grid{x0, pitch}
		centres[li], rms[li] = l.centres(b.width, pitch)
		if centres[li] != nil && (ref < 0 || rms[li] < rms[ref]) {
			ref = li
		}
	}
	// The lines of a band start and end together: a line whose grid
	// disagrees with the best fitting one at either end takes its grid.
	if ref >= 0 {
		r := centres[ref]
		for li, c := range centres {
			disagree := c == nil || math.Abs(c[0]-r[0]) > 0.35*pitch || math.Abs(c[b.width-1]-r[b.width-1]) > 0.35*pitch
			// A line that fits its own components well keeps its grid
			// even so: photos at an angle shift lines against each other.
			if disagree && (c == nil || rms[li] > 0.1*pitch) {
				centres[li] = r
			}
		}
	}
	// All lines of an MRZ are printed at one size; their measured heights
	// differ with the letters they hold, so the band shares the median.
	if len(b.lines) > 1 {
		var hs []float64
		for _, l := range b.lines {
			hs = append(hs, l.capH)
		}
		h := median(hs)
		for _, l := range b.lines {
			l.capH = h
		}
	}
	rd := &Reading{}
	box := image.Rectangle{}
	cal := make([]calibration, len(b.lines))
	for li := range b.lines {
		if centres[li] == nil {
			centres[li] = make([]float64, b.width)
			for i := range centres[li] {
				centres[li][i] = grids[li].x0 + float64(i)*grids[li].pitch
			}
		}
	}
	for li, l := range b.lines {
		cal[li] = r.calibrate(g, k, l, centres[li])
	}
	cellAt := func(li, i int) []float32 {
		l, c := b.lines[li], cal[li]
		x := centres[li][i]
		y := l.a + l.b*x + c.dy*l.capH
		h := l.capH * c.scale * k
		return sampleCell(g, x*k, y*k, h, h*c.wide, l.b)
	}
	// The format decides which classes each position allows; a visa is
	// told apart by its first letter.
	if len(b.lines) == 1 {
		// A lone line: score every class and let the caller pick a pattern.
		rd.cellsAll = make([]classScores, b.width)
		for i := range rd.cellsAll {
			rd.cellsAll[i] = r.glyphs.score(cellAt(0, i), alphabet)
		}
		return rd, nil
	}
	format := TD1
	if b.width != 30 {
		first := best(r.glyphs.score(cellAt(0, 0), allowedFor(kAlpha)), allowedFor(kAlpha))
		format = map[bool]map[int]string{true: {36: MRVB, 44: MRVA}, false: {36: TD2, 44: TD3}}[first == 'V'][b.width]
	}
	ks, names := layouts[format].kinds()
	for li, l := range b.lines {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rd.cells = append(rd.cells, make([]classScores, b.width))
		for i := 0; i < b.width; i++ {
			rd.cells[li][i] = r.glyphs.score(cellAt(li, i), allowedFor(ks[li][i]))
		}
		x0, pitch := grids[li].x0, grids[li].pitch
		r0 := image.Rect(int((x0-pitch)*k), int((l.a+l.b*x0-l.capH)*k), int((x0+float64(b.width)*pitch)*k), int((l.a+l.b*x0+l.capH)*k))
		box = box.Union(r0)
	}
	rd.Box = box
	rd.Format = format
	rd.decode(ks, names)
	rd.fixByChecks(format)
	return rd, nil
}

// calibration corrects a line's measured cap height (binarisation thins
// strokes, so components come out short) and its centre line.
type calibration struct{ scale, dy, wide float64 }

// calibrate tries a few scales and vertical offsets on a sample of the
// line's cells and keeps the one whose glyphs match the templates best.
func (r *Reader) calibrate(g *gray, k float64, l *textLine, xs []float64) calibration {
	try := func(c calibration) float32 {
		var sum float32
		for i := 1; i < len(xs); i += 5 {
			x := xs[i]
			y := l.a + l.b*x + c.dy*l.capH
			h := l.capH * c.scale * k
			sc := r.glyphs.scoreWith(sampleCell(g, x*k, y*k, h, h*c.wide, l.b), alphabet, 0, 1)
			m := float32(-2)
			for _, v := range sc {
				m = max(m, v)
			}
			sum += m
		}
		return sum
	}
	// Coarse to fine: the scale first, then the offset, then the width
	// (crops and scans are sometimes stretched sideways).
	bestC, bestS := calibration{1, 0, 1}, float32(-1e9)
	for _, scale := range []float64{0.94, 1.0, 1.07, 1.14, 1.22, 1.3, 1.4} {
		if s := try(calibration{scale, 0, 1}); s > bestS {
			bestC, bestS = calibration{scale, 0, 1}, s
		}
	}
	for _, dy := range []float64{-0.1, -0.05, 0.05, 0.1} {
		if s := try(calibration{bestC.scale, dy, 1}); s > bestS {
			bestC, bestS = calibration{bestC.scale, dy, 1}, s
		}
	}
	for _, wide := range []float64{0.85, 0.92, 1.08, 1.17, 1.27} {
		if s := try(calibration{bestC.scale, bestC.dy, wide}); s > bestS {
			bestC, bestS = calibration{bestC.scale, bestC.dy, wide}, s
		}
	}
	return bestC
}

// ReadLine reads a single MRZ line from an image holding one (a crop).
// Without the other lines the format is unknown, so every line pattern of
// that width is tried and the one whose glyphs match best is kept.
func (r *Reader) ReadLine(ctx context.Context, img image.Image) (string, error) {
	if err := r.Prepare(); err != nil {
		return "", err
	}
	if img == nil || img.Bounds().Dx() < 16 || img.Bounds().Dy() < 8 {
		return "", ErrNotFound
	}
	g := toGray(img)
	ink := binarize(g, max(6, min(g.w, g.h)/3))
	lines := findLines(components(ink, g.w, g.h), g.h)
	var line *textLine
	width := 0
	for _, l := range lines {
		for _, w := range []int{30, 36, 44} {
			if l.n >= w-3 && l.n <= w+2 && (line == nil || len(l.comps) > len(line.comps)) {
				line, width = l, w
			}
		}
	}
	if line == nil {
		return "", ErrNotFound
	}
	rd, err := r.readBand(ctx, g, 1, &band{lines: []*textLine{line}, width: width})
	if err != nil {
		return "", err
	}
	// Decode the cells under every line pattern of this width, with the
	// check digits that lie on that line, and keep the best match.
	bestLine, bestScore := "", -1e9
	for _, f := range []string{TD1, TD2, TD3, MRVA, MRVB} {
		lay := layouts[f]
		if lay.width != width {
			continue
		}
		ks, names := lay.kinds()
		for li := range ks {
			h := &Reading{cells: make([][]classScores, lay.lines)}
			for i := range h.cells {
				h.cells[i] = make([]classScores, width)
				if i == li {
					copy(h.cells[i], rd.cellsAll)
					continue
				}
				for j := range h.cells[i] {
					h.cells[i][j] = fillerScores
				}
			}
			h.decode(ks, names)
			h.fixLines(f, li)
			var score float64
			for j := 0; j < width; j++ {
				score += float64(rd.cellsAll[j][classIndex(h.Lines[li][j])])
			}
			// A check digit that holds is strong evidence for the pattern
			// (one in ten by chance), one that fails is evidence against.
			buf := make([][]byte, lay.lines)
			for i := range buf {
				buf[i] = []byte(h.Lines[i])
			}
			if li == 0 && !strings.ContainsRune(codeLetters[f], rune(h.Lines[0][0])) {
				// A first line must open with its format's document code.
				score -= 1
			}
			for _, c := range checksFor(lay, buf) {
				if !onLine(c, li) {
					continue
				}
				if c.verify(buf) {
					score += checkEvidence
				} else {
					score -= checkEvidence
				}
			}
			if score > bestScore {
				bestLine, bestScore = h.Lines[li], score
			}
		}
	}
	return bestLine, nil
}

// codeLetters are the first letters of the document codes each format
// may carry (ICAO 9303: A, C or I on cards, P on passports, V on visas).
var codeLetters = map[string]string{TD1: "ACI", TD2: "ACI", TD3: "P", MRVA: "V", MRVB: "V"}

// checkEvidence is what a check digit that holds (or fails) adds to (or
// takes from) the summed correlation of a line pattern in ReadLine.
const checkEvidence = 0.2

// fillerScores stands for a line not in view: fillers everywhere.
var fillerScores = func() classScores {
	var sc classScores
	for i := range sc {
		sc[i] = -1
	}
	sc[classIndex('<')] = 1
	return sc
}()

// onLine reports whether a check digit and all it covers lie on line li.
func onLine(c checkDef, li int) bool {
	for _, sp := range append(append([]span{}, c.data...), c.digit) {
		if sp.line != li {
			return false
		}
	}
	return true
}
