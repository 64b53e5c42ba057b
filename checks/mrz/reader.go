package mrz

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"sort"
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

// gray is an 8-bit luminance image.
type gray struct {
	w, h int
	p    []uint8
}

func (g *gray) at(x, y int) uint8 { return g.p[y*g.w+x] }

// bilinear samples the image at a real position (edges clamped).
func (g *gray) bilinear(x, y float64) float32 {
	if x < 0 {
		x = 0
	} else if mx := float64(g.w - 1); x > mx {
		x = mx
	}
	if y < 0 {
		y = 0
	} else if my := float64(g.h - 1); y > my {
		y = my
	}
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, g.w-1), min(y0+1, g.h-1)
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	a := float32(g.p[y0*g.w+x0])*(1-fx) + float32(g.p[y0*g.w+x1])*fx
	b := float32(g.p[y1*g.w+x0])*(1-fx) + float32(g.p[y1*g.w+x1])*fx
	return a*(1-fy) + b*fy
}

func toGray(img image.Image) *gray {
	b := img.Bounds()
	g := &gray{w: b.Dx(), h: b.Dy(), p: make([]uint8, b.Dx()*b.Dy())}
	switch m := img.(type) {
	case *image.Gray:
		for y := 0; y < g.h; y++ {
			copy(g.p[y*g.w:(y+1)*g.w], m.Pix[(y+b.Min.Y-m.Rect.Min.Y)*m.Stride+(b.Min.X-m.Rect.Min.X):])
		}
	case *image.YCbCr:
		for y := 0; y < g.h; y++ {
			for x := 0; x < g.w; x++ {
				yi := m.YOffset(x+b.Min.X, y+b.Min.Y)
				ci := m.COffset(x+b.Min.X, y+b.Min.Y)
				r, gg, bb := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				g.p[y*g.w+x] = max(r, gg, bb)
			}
		}
	case *image.RGBA:
		for y := 0; y < g.h; y++ {
			row := m.Pix[(y+b.Min.Y-m.Rect.Min.Y)*m.Stride+(b.Min.X-m.Rect.Min.X)*4:]
			for x := 0; x < g.w; x++ {
				g.p[y*g.w+x] = max(row[4*x], row[4*x+1], row[4*x+2])
			}
		}
	case *image.NRGBA:
		for y := 0; y < g.h; y++ {
			row := m.Pix[(y+b.Min.Y-m.Rect.Min.Y)*m.Stride+(b.Min.X-m.Rect.Min.X)*4:]
			for x := 0; x < g.w; x++ {
				g.p[y*g.w+x] = max(row[4*x], row[4*x+1], row[4*x+2])
			}
		}
	default:
		// The brightest channel rather than luminance: MRZ ink is black,
		// and coloured guilloche or overprint under it (red "RH", blue
		// waves) then fades into the background.
		for y := 0; y < g.h; y++ {
			for x := 0; x < g.w; x++ {
				r, gg, bb, _ := img.At(x+b.Min.X, y+b.Min.Y).RGBA()
				g.p[y*g.w+x] = uint8(max(r, gg, bb) >> 8)
			}
		}
	}
	return g
}

// shrink reduces g by an integer factor, averaging.
func shrink(g *gray, k int) *gray {
	if k <= 1 {
		return g
	}
	out := &gray{w: g.w / k, h: g.h / k}
	out.p = make([]uint8, out.w*out.h)
	for y := 0; y < out.h; y++ {
		for x := 0; x < out.w; x++ {
			s := 0
			for yy := y * k; yy < y*k+k; yy++ {
				for xx := x * k; xx < x*k+k; xx++ {
					s += int(g.p[yy*g.w+xx])
				}
			}
			out.p[y*out.w+x] = uint8(s / (k * k))
		}
	}
	return out
}

// binarize marks pixels darker than their neighbourhood: ink.
func binarize(g *gray, r int) []bool {
	w, h := g.w, g.h
	integ := make([]int64, (w+1)*(h+1))
	for y := 0; y < h; y++ {
		var row int64
		for x := 0; x < w; x++ {
			row += int64(g.p[y*w+x])
			integ[(y+1)*(w+1)+x+1] = integ[y*(w+1)+x+1] + row
		}
	}
	ink := make([]bool, w*h)
	for y := 0; y < h; y++ {
		y0, y1 := max(0, y-r), min(h, y+r+1)
		for x := 0; x < w; x++ {
			x0, x1 := max(0, x-r), min(w, x+r+1)
			s := integ[y1*(w+1)+x1] - integ[y0*(w+1)+x1] - integ[y1*(w+1)+x0] + integ[y0*(w+1)+x0]
			mean := float64(s) / float64((y1-y0)*(x1-x0))
			v := float64(g.p[y*w+x])
			ink[y*w+x] = v < mean*0.85-4
		}
	}
	return ink
}

// comp is a connected component of ink.
type comp struct {
	x0, y0, x1, y1 int // inclusive bounds
	n              int
}

func (c comp) w() int              { return c.x1 - c.x0 + 1 }
func (c comp) h() int              { return c.y1 - c.y0 + 1 }
func (c comp) cx() float64         { return float64(c.x0+c.x1) / 2 }
func (c comp) cy() float64         { return float64(c.y0+c.y1) / 2 }
func (c comp) overlapY(d comp) int { return min(c.y1, d.y1) - max(c.y0, d.y0) + 1 }

// components labels 8-connected ink with a union-find over runs.
func components(ink []bool, w, h int) []comp {
	parent := make([]int32, 0, 1024)
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	labels := make([]int32, w*h)
	for i := range labels {
		labels[i] = -1
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !ink[y*w+x] {
				continue
			}
			l := int32(-1)
			join := func(o int32) {
				if o < 0 {
					return
				}
				if l < 0 {
					l = find(o)
					return
				}
				a, b := find(l), find(o)
				if a != b {
					parent[b] = a
					l = a
				}
			}
			if x > 0 {
				join(labels[y*w+x-1])
			}
			if y > 0 {
				for dx := -1; dx <= 1; dx++ {
					if xx := x + dx; xx >= 0 && xx < w {
						join(labels[(y-1)*w+xx])
					}
				}
			}
			if l < 0 {
				l = int32(len(parent))
				parent = append(parent, l)
			}
			labels[y*w+x] = l
		}
	}
	idx := map[int32]int{}
	var cs []comp
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			l := labels[y*w+x]
			if l < 0 {
				continue
			}
			r := find(l)
			i, ok := idx[r]
			if !ok {
				i = len(cs)
				idx[r] = i
				cs = append(cs, comp{x0: x, y0: y, x1: x, y1: y})
			}
			c := &cs[i]
			c.x0, c.x1 = min(c.x0, x), max(c.x1, x)
			c.y0, c.y1 = min(c.y0, y), max(c.y1, y)
			c.n++
		}
	}
	return cs
}

// textLine is a run of components that read as one line of characters.
type textLine struct {
	comps []comp
	pitch float64 // median distance between neighbouring centres
	capH  float64 // height of the full-height glyphs
	// centre line y = a + b*x of the full-height glyphs
	a, b   float64
	x0, x1 float64 // centres of the first and last component
	n      int     // characters the extent holds at this pitch
	reg    float64 // share of neighbour gaps that are one pitch
}

// findLines chains components into text lines.
func findLines(cs []comp, maxH int) []*textLine {
	var keep []comp
	for _, c := range cs {
		if c.h() >= 4 && c.h() <= maxH && c.w() <= 12*c.h() && c.n >= 6 {
			keep = append(keep, c)
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].x0 < keep[j].x0 })
	parent := make([]int, len(keep))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i, c := range keep {
		best, bestGap := -1, math.MaxInt
		for j := i + 1; j < len(keep); j++ {
			d := keep[j]
			gap := d.x0 - c.x1
			if gap > 2*max(c.h(), d.h()) {
				break
			}
			hr := float64(d.h()) / float64(c.h())
			if hr < 0.45 || hr > 2.2 || d.cx() <= c.cx() {
				continue
			}
			if float64(c.overlapY(d)) < 0.5*float64(min(c.h(), d.h())) {
				continue
			}
			if math.Abs(d.cy()-c.cy()) > 0.4*float64(max(c.h(), d.h())) {
				continue
			}
			if gap < bestGap {
				best, bestGap = j, gap
			}
		}
		if best >= 0 {
			a, b := find(i), find(best)
			if a != b {
				parent[b] = a
			}
		}
	}
	groups := map[int][]comp{}
	for i, c := range keep {
		r := find(i)
		groups[r] = append(groups[r], c)
	}
	var lines []*textLine
	for _, g := range groups {
		if len(g) < 10 {
			continue
		}
		if l := measureLine(g); l != nil {
			lines = append(lines, l)
		}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].a+lines[i].b*lines[i].x0 < lines[j].a+lines[j].b*lines[j].x0 })
	return lines
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// measureLine estimates the pitch, height and slant of a line.
func measureLine(g []comp) *textLine {
	sort.Slice(g, func(i, j int) bool { return g[i].cx() < g[j].cx() })
	l := &textLine{comps: g, x0: g[0].cx(), x1: g[len(g)-1].cx()}
	var gaps, hs []float64
	for i := 1; i < len(g); i++ {
		gaps = append(gaps, g[i].cx()-g[i-1].cx())
	}
	for _, c := range g {
		hs = append(hs, float64(c.h()))
	}
	l.pitch = median(gaps)
	if l.pitch <= 0 {
		return nil
	}
	sort.Float64s(hs)
	top := hs[len(hs)*8/10]
	// Fit the centre line over full-height glyphs (the filler is shorter).
	var sx, sy, sxx, sxy, n float64
	var full []float64
	for _, c := range g {
		if float64(c.h()) >= 0.82*top && float64(c.h()) <= 1.2*top {
			x, y := c.cx(), c.cy()
			sx, sy, sxx, sxy, n = sx+x, sy+y, sxx+x*x, sxy+x*y, n+1
			full = append(full, float64(c.h()))
		}
	}
	if n < 3 {
		return nil
	}
	den := n*sxx - sx*sx
	if den != 0 {
		l.b = (n*sxy - sx*sy) / den
	}
	l.a = (sy - l.b*sx) / n
	l.capH = median(full)
	ok := 0
	for _, d := range gaps {
		if d > 0.75*l.pitch && d < 1.25*l.pitch {
			ok++
		}
	}
	l.reg = float64(ok) / float64(len(gaps))
	// Fillers at the end of a line often run together into one blob whose
	// centre is not the last character's: end the line half a glyph inside
	// the blob's edge instead.
	var ws []float64
	for _, c := range g {
		if float64(c.w()) <= 1.3*l.pitch {
			ws = append(ws, float64(c.w()))
		}
	}
	if len(ws) > 0 {
		half := median(ws) / 2
		if first := g[0]; float64(first.w()) > 1.3*l.pitch {
			l.x0 = float64(first.x0) + half
		}
		if last := g[len(g)-1]; float64(last.w()) > 1.3*l.pitch {
			l.x1 = float64(last.x1) - half
		}
	}
	l.n = int(math.Round((l.x1-l.x0)/l.pitch)) + 1
	return l
}

// band is a candidate MRZ: consecutive lines of one width.
type band struct {
	lines []*textLine
	width int
	score float64
}

// findBand picks the lines that form the MRZ.
func findBand(lines []*textLine) *band {
	var best *band
	for _, spec := range []struct{ n, w int }{{3, 30}, {2, 36}, {2, 44}} {
		for i := 0; i+spec.n <= len(lines); i++ {
			set := lines[i : i+spec.n]
			score := 0.0
			ok := true
			for k, l := range set {
				if l.reg < 0.5 || l.n < spec.w*3/4 || l.n > spec.w+3 {
					ok = false
					break
				}
				score += l.reg - 0.05*math.Abs(float64(l.n-spec.w))
				if k > 0 {
					p := set[k-1]
					if math.Abs(l.pitch-p.pitch) > 0.15*p.pitch || math.Abs(l.x0-p.x0) > 3*p.pitch {
						ok = false
						break
					}
					dy := (l.a + l.b*l.x0) - (p.a + p.b*l.x0)
					if dy < 1.2*p.capH || dy > 3.2*p.capH {
						ok = false
						break
					}
				}
			}
			if !ok {
				continue
			}
			score /= float64(spec.n)
			// Prefer the lower band when two qualify: the MRZ is at the bottom.
			score += 0.001 * float64(i)
			if best == nil || score > best.score {
				best = &band{lines: set, width: spec.w, score: score}
			}
		}
	}
	return best
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
	ink := binarize(g, max(6, min(g.w, g.h)/25))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lines := findLines(components(ink, g.w, g.h), g.h/5)
	b := findBand(lines)
	if b == nil {
		return nil, ErrNotFound
	}
	return r.readBand(ctx, full, float64(k), b)
}

// rotate returns g turned clockwise by 0, 90, 180 or 270 degrees.
func (g *gray) rotate(deg int) *gray {
	if deg == 0 {
		return g
	}
	out := &gray{w: g.w, h: g.h, p: make([]uint8, len(g.p))}
	if deg == 90 || deg == 270 {
		out.w, out.h = g.h, g.w
	}
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			var nx, ny int
			switch deg {
			case 90:
				nx, ny = g.h-1-y, x
			case 180:
				nx, ny = g.w-1-x, g.h-1-y
			default: // 270
				nx, ny = y, g.w-1-x
			}
			out.p[ny*out.w+nx] = g.p[y*g.w+x]
		}
	}
	return out
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

// decode chooses each character under the constraints of the format's
// field types.
func (rd *Reading) decode(ks [][]kind, names [][]string) {
	n := len(rd.cells)
	rd.Lines = make([]string, n)
	var conf float64
	cells := 0
	for li := range rd.cells {
		buf := make([]byte, len(rd.cells[li]))
		for i, sc := range rd.cells[li] {
			if names[li][i] == "name" {
				buf[i] = bestName(sc)
			} else {
				buf[i] = best(sc, allowedFor(ks[li][i]))
			}
			if ks[li][i] == kAlnum {
				buf[i] = preferDigit(sc, buf[i])
			}
			conf += float64(sc[classIndex(buf[i])])
			cells++
		}
		rd.Lines[li] = string(buf)
	}
	rd.Confidence = conf / float64(cells)
}

// digitBias is how much better a letter must match than the digit it
// resembles to be read in a field that holds letters and digits.
const digitBias = 0.06

// ambiguity is how close to the best score a class must come to be tried
// when a check digit fails.
const ambiguity = 0.12

// closeCall is how close any other reading must come to be tried, look-alike
// or not.
const closeCall = 0.04

// fixByChecks revisits the characters a failing check digit covers: among
// the readings whose scores come close to the best, it takes the highest
// scoring combination that makes the check pass. The check digits thereby
// arbitrate between look-alike glyphs with the evidence of the image.
func (rd *Reading) fixByChecks(format string) { rd.fixLines(format, -1) }

// fixLines is fixByChecks restricted to the check digits that lie wholly on
// line only (all check digits when only is -1).
func (rd *Reading) fixLines(format string, only int) {
	lay := layouts[format]
	ks, _ := lay.kinds()
	buf := make([][]byte, len(rd.Lines))
	for i, l := range rd.Lines {
		buf[i] = []byte(l)
	}
	checks := checksFor(lay, buf)
	covered := map[[2]int]bool{}
	for _, c := range checks {
		if c.name == CheckComposite || !c.verify(buf) {
			continue
		}
		for _, s := range append(append([]span{}, c.data...), c.digit) {
			for p := s.start; p < s.end; p++ {
				covered[[2]int{s.line, p}] = true
			}
		}
	}
	fieldsFail := false
	for _, c := range checksFor(lay, buf) {
		if only >= 0 && !onLine(c, only) {
			continue
		}
		if c.verify(buf) && typeOK(buf, ks, c) {
			continue
		}
		if c.name == CheckComposite && fieldsFail {
			// A field check that no look-alike fixes means the document
			// itself is off: a composite fix would be luck, not evidence.
			continue
		}
		var cands []scoredCand
		for _, s := range append(append([]span{}, c.data...), c.digit) {
			for p := s.start; p < s.end; p++ {
				if c.name == CheckComposite && covered[[2]int{s.line, p}] {
					continue
				}
				sc := rd.cells[s.line][p]
				cur := buf[s.line][p]
				var alts []byte
				var costs []float32
				allowed := allowedFor(ks[s.line][p])
				for i := 0; i < len(allowed); i++ {
					a := allowed[i]
					// The loss counts the digit preference and the name
					// prior, so undoing them is not free.
					d := sc[classIndex(cur)] + prior(ks[s.line][p], cur) - sc[classIndex(a)] - prior(ks[s.line][p], a)
					if a != cur && (d < ambiguity && lookAlike(a, cur) || d < closeCall) {
						alts, costs = append(alts, a), append(costs, max(d, 0))
					}
				}
				if len(alts) > 0 {
					cands = append(cands, scoredCand{s.line, p, alts, costs})
				}
			}
		}
		valid := func() bool {
			if !c.verify(buf) || !typeOK(buf, ks, c) {
				return false
			}
			switch c.name {
			case CheckDateOfBirth, CheckDateOfExpiry:
				_, _, _, ok := yymmdd(joined(buf, c.data))
				return ok
			}
			return true
		}
		cheapestFix(buf, cands, valid)
		if !c.verify(buf) {
			fieldsFail = true
		}
		if c.name != CheckComposite && c.verify(buf) {
			for _, s := range append(append([]span{}, c.data...), c.digit) {
				for p := s.start; p < s.end; p++ {
					covered[[2]int{s.line, p}] = true
				}
			}
		}
	}
	for i := range buf {
		rd.Lines[i] = string(buf[i])
	}
}

type scoredCand struct {
	line, pos int
	alts      []byte
	costs     []float32
}

// cheapestFix applies, among combinations of up to maxRepairs changes,
// the one of lowest total score loss that makes valid true.
func cheapestFix(buf [][]byte, cands []scoredCand, valid func() bool) {
	var bestSet []change
	bestCost := float32(math.MaxFloat32)
	cur := make([]change, 0, maxRepairs)
	var walk func(from int, cost float32)
	walk = func(from int, cost float32) {
		if cost >= bestCost {
			return
		}
		if len(cur) > 0 && valid() {
			bestCost, bestSet = cost, append(bestSet[:0], cur...)
			return
		}
		if len(cur) == maxRepairs {
			return
		}
		for i := from; i < len(cands); i++ {
			cd := cands[i]
			old := buf[cd.line][cd.pos]
			for j, a := range cd.alts {
				buf[cd.line][cd.pos] = a
				cur = append(cur, change{cd.line, cd.pos, a})
				walk(i+1, cost+cd.costs[j]+0.001)
				cur = cur[:len(cur)-1]
			}
			buf[cd.line][cd.pos] = old
		}
	}
	walk(0, 0)
	for _, ch := range bestSet {
		buf[ch.line][ch.pos] = ch.to
	}
}

func allowedFor(k kind) string {
	switch k {
	case kAlpha:
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
	case kNum:
		return "0123456789"
	case kNumF:
		return "0123456789<"
	case kSex:
		return "MFX<"
	}
	return alphabet
}

func best(sc classScores, allowed string) byte {
	bc, bs := allowed[0], float32(-3)
	for i := 0; i < len(allowed); i++ {
		if s := sc[classIndex(allowed[i])]; s > bs {
			bc, bs = allowed[i], s
		}
	}
	return bc
}

// sampleCell samples the grid around a cell centre, rotated by the line's
// slant, with shift extra samples on every side.
func sampleCell(g *gray, cx, cy, capH, capW, slope float64) []float32 {
	const cw, ch = gridW + 2*shift, gridH + 2*shift
	out := make([]float32, cw*ch)
	cos, sin := 1/math.Sqrt(1+slope*slope), slope/math.Sqrt(1+slope*slope)
	sx := 2 * cellU * capW / gridW
	sy := 2 * cellV * capH / gridH
	for gy := 0; gy < ch; gy++ {
		v := -cellV*capH + (float64(gy-shift)+0.5)*sy
		for gx := 0; gx < cw; gx++ {
			u := -cellU*capW + (float64(gx-shift)+0.5)*sx
			// Average a 2x2 pattern inside the sample to stand for its area.
			var s float32
			for _, o := range [4][2]float64{{-0.25, -0.25}, {0.25, -0.25}, {-0.25, 0.25}, {0.25, 0.25}} {
				uu, vv := u+o[0]*sx, v+o[1]*sy
				s += g.bilinear(cx+uu*cos-vv*sin, cy+uu*sin+vv*cos)
			}
			out[gy*cw+gx] = 255 - s/4 // ink is high, as in the templates
		}
	}
	return out
}

// lookAlikes are the groups of MRZ glyphs that blur into each other; the
// reader only trades a reading for another of its group.
var lookAlikes = []string{"0OQDU", "1I", "2Z", "5S", "8BS", "6G", "<K"}

func lookAlike(a, b byte) bool {
	for _, g := range lookAlikes {
		if strings.IndexByte(g, a) >= 0 && strings.IndexByte(g, b) >= 0 {
			return true
		}
	}
	return false
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

// centres places the width character centres of a line by walking its
// components with a running pitch and fitting a quadratic through them,
// which follows the pitch as it grows across a photo taken at an angle.
// It returns nil when the components do not cover the line well.
func (l *textLine) centres(width int, pitch float64) ([]float64, float64) {
	cs := l.comps
	if len(cs) < width/2 {
		return nil, 0
	}
	var ss, xs []float64
	slot, local := 0, pitch
	add := func(s int, x float64) { ss, xs = append(ss, float64(s)), append(xs, x) }
	for i, c := range cs {
		if i > 0 {
			gap := c.cx() - cs[i-1].cx()
			k := max(1, int(math.Round(gap/local)))
			slot += k
			if k == 1 {
				local = 0.7*local + 0.3*gap
			}
		}
		if float64(c.w()) > 1.4*local {
			// A blob of merged fillers: spread its characters over it.
			k := int(math.Round(float64(c.w()) / local))
			for j := 0; j < k; j++ {
				add(slot+j, float64(c.x0)+(float64(j)+0.5)*float64(c.w())/float64(k))
			}
			slot += k - 1
			continue
		}
		add(slot, c.cx())
	}
	if slot < width-3 || slot > width+1 {
		return nil, 0
	}
	lin, linRMS := fitPoly(ss, xs, 2)
	quad, quadRMS := fitPoly(ss, xs, 3)
	coef, rms := lin, linRMS
	// A bend is kept only when the line really curves: it must cut the
	// residual markedly, or a stray end blob bends the whole line.
	if quad != nil && linRMS > 0.12*pitch && quadRMS < 0.6*linRMS {
		coef, rms = quad, quadRMS
	}
	if coef == nil {
		return nil, 0
	}
	out := make([]float64, width)
	for i := range out {
		s := float64(i)
		out[i] = coef[0] + coef[1]*s
		if len(coef) > 2 {
			out[i] += coef[2] * s * s
		}
	}
	return out, rms
}

// fitPoly fits x = c0 + c1*s (+ c2*s^2 when n is 3) by least squares and
// returns the coefficients and the RMS residual, or nil when singular.
func fitPoly(ss, xs []float64, n int) ([]float64, float64) {
	var m [3][4]float64
	for i := range ss {
		v := [3]float64{1, ss[i], ss[i] * ss[i]}
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				m[r][c] += v[r] * v[c]
			}
			m[r][3] += v[r] * xs[i]
		}
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		if math.Abs(m[c][c]) < 1e-9 {
			return nil, 0
		}
		for r := 0; r < n; r++ {
			if r != c {
				f := m[r][c] / m[c][c]
				for k := c; k < 4; k++ {
					m[r][k] -= f * m[c][k]
				}
			}
		}
	}
	coef := make([]float64, n)
	for i := range coef {
		coef[i] = m[i][3] / m[i][i]
	}
	var rss float64
	for i := range ss {
		x := coef[0] + coef[1]*ss[i]
		if n > 2 {
			x += coef[2] * ss[i] * ss[i]
		}
		rss += (x - xs[i]) * (x - xs[i])
	}
	return coef, math.Sqrt(rss / float64(len(ss)))
}

// preferDigit returns the best digit that looks like letter c when it
// scores nearly as well: document numbers and optional data are mostly
// digits. Check digits cannot arbitrate some of these pairs (S is worth 28,
// so S and 8 weigh the same modulo 10).
func preferDigit(sc classScores, c byte) byte {
	if c < 'A' || c > 'Z' {
		return c
	}
	best, bs := c, sc[classIndex(c)]-digitBias
	for d := byte('0'); d <= '9'; d++ {
		if lookAlike(c, d) && sc[classIndex(d)] >= bs {
			best, bs = d, sc[classIndex(d)]
		}
	}
	return best
}

// letterFreq is roughly how often letters occur in names written in the
// Latin alphabet, in percent (an estimate: vowels, N, R, S, L lead; H, F,
// W are rarer than in running text; Q and X are rare). Names carry no check
// digit, so between two glyphs that match equally well the common letter
// is the better bet.
var letterFreq = map[byte]float64{
	'A': 11, 'E': 9.5, 'I': 8, 'N': 7.5, 'R': 7, 'O': 6.5, 'S': 6, 'L': 5.5, 'T': 4.5,
	'K': 4, 'M': 3.5, 'D': 3, 'U': 3, 'H': 2.5, 'C': 2.5, 'B': 2, 'G': 2, 'V': 2,
	'P': 1.8, 'J': 1.5, 'Z': 1.2, 'Y': 1, 'F': 0.9, 'W': 0.8, 'X': 0.2, 'Q': 0.1,
	'<': 11,
}

// namePrior weighs the log letter frequency against template correlation.
const namePrior = 0.01

// bestName picks a letter or filler of a name by correlation plus a small
// log-frequency prior.
func bestName(sc classScores) byte {
	const allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
	bc, bs := byte('<'), -1e9
	for i := 0; i < len(allowed); i++ {
		c := allowed[i]
		s := float64(sc[classIndex(c)]) + namePrior*math.Log(letterFreq[c]/11)
		if s > bs {
			bc, bs = c, s
		}
	}
	return bc
}

// prior is the bonus a reading gets before correlation decides: digits in
// document numbers and optional data.
func prior(k kind, c byte) float32 {
	if k == kAlnum && c >= '0' && c <= '9' {
		return digitBias
	}
	return 0
}
