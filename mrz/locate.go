package mrz

import (
	"image"
	"image/color"
	"math"
	"sort"
)

// Finding the MRZ: grey levels, ink, components, text lines, the band and
// the character grid of each line.

// gray is an 8-bit grey image (the brightest channel of the original).
type gray struct {
	w, h int
	p    []uint8
}

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

func (c comp) w() int      { return c.x1 - c.x0 + 1 }
func (c comp) h() int      { return c.y1 - c.y0 + 1 }
func (c comp) cx() float64 { return float64(c.x0+c.x1) / 2 }
func (c comp) cy() float64 { return float64(c.y0+c.y1) / 2 }

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
