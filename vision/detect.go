package vision

import (
	"image"
	"math"
	"sort"

	"github.com/disintegration/imaging"
)

// Detection is the result of FindCard.
type Detection struct {
	// Quad is the card outline in the input image's pixels.
	Quad Quad
	// Found is false when no card outline was found; FillsFrame is set when
	// the image itself was taken as the card because its shape matches the
	// document (a scan or a tight crop).
	Found      bool
	FillsFrame bool
	// Score (0..1) is how well the outline is supported by edges all round
	// and how close its shape is to the document's.
	Score float64
}

// Working size of the detector: the long side of the reduced image. Card
// edges are long straight lines, so they survive reduction while texture
// and print are smoothed away.
const detectSide = 480

// edgeFloor is the weakest gradient kept as an edge (Sobel units, after
// the blur): about a 12-level step in 0..255. The border of a pale card on
// pale paper is often no more (a floor of 40 lost it on the synth sets).
const edgeFloor = 25

// lowEdgeFloor is the edge threshold of the second search, run when the
// first takes no outline: about a 5-level step after the blur. Chosen on
// synth medium/hard seeds 11-13 (families base, shift, flow, type, art):
// a pale card on light grey paper whose border the 80th percentile put
// under the threshold.
const lowEdgeFloor = 12

// An outline scoring under minScore (and not pale with full sides) is
// still taken from weakScore when every side, refined at the finer scale,
// has a consistency (fitSideScored) of at least weakConsistent. Chosen on
// synth seeds 11-13 medium/hard (base family): a pale card small in the
// photo whose right outline scored 0.068 with its least consistent side
// at 0.43 (seed 12 hard kenya_national_id#6 back), and a pale back at
// 0.168 / 0.72 (seed 13 medium ke_national_id#4 back).
const (
	weakScore      = 0.06
	weakConsistent = 0.4
)

// fallbackArea is the least share of the photo an outline found by either
// fallback (the low threshold, the weak outline) must cover: one this
// small is more likely a block on a card than the card (a specimen's
// portrait photo, testdata/ids Malta_BAD, covers 7 % of its photo and is
// what the first search takes there at the passport aspect), while the
// synth cards the fallbacks found cover 14 % (seed 12 hard
// kenya_national_id#6 back) and more.
const fallbackArea = 0.1

// minScore is the lowest outline score taken as a card. A pale card on
// pale paper, or one with a corner under a finger, has little region
// contrast or one weak side and scores 0.18 to 0.25 (on synth medium 0.25
// left 16 of 176 sides not found, 0.18 ten fewer; a photo with no card in
// it still finds none).
const minScore = 0.18

// A very pale card on pale paper (a cream back on off-white paper) has
// almost no region contrast and scores 0.15 to 0.18 with its four sides
// fully there: an outline scoring at least paleScore is taken when every
// side has lineSupport of at least paleSupport (a ridge of gradient along
// nine tenths of it), which texture does not give four times round a
// card-shaped outline.
const (
	paleScore   = 0.15
	paleSupport = 0.9
)

// shapeSlack is how much worse (in log aspect ratio) an outline may fit
// the document's shape after a side is moved out to a parallel line
// (outermost): perspective alone changes the ratio by a few per cent.
const shapeSlack = 0.01

// faintGate is the score under which the lines of faint ridges are tried
// as well (faintLines of them at most): correct outlines of the synth sets
// score 0.25 and up, and most above 0.4, so the extra search is rare.
const (
	faintGate  = 0.3
	faintLines = 12
)

// smallOutline: a best outline under this share of the photo also starts
// the faint search. A card photographed to be read fills far more of the
// frame; an outline this small is usually a block on a pale card (the
// portrait photo, in portrait a card's shape), and the card's own faint
// outline around it is only a candidate once the faint lines are.
const smallOutline = 0.2

// An outline around the best one, at least enclosedArea times its size and
// scoring at least enclosedScore of it, is the card's (see enclosing). A
// block may reach the card's edge (a barcode above the foot stripe), and
// an outline through the stripe's top then cuts it: its corners may lie
// outside by enclosedSlack of the card's short side.
//
// When the best outline is small in the photo (smallOutline) it is far
// more likely a block than the card, and an outline around it needs only
// enclosedSmallScore of its score: the outline of a pale card on pale
// paper around a crisp portrait photo scored 0.58 of the photo's (synth
// seed 2 generic_id_card#0).
const (
	enclosedArea       = 1.5
	enclosedScore      = 0.6
	enclosedSmallScore = 0.5
	enclosedSlack      = 0.04
)

type edgeMap struct {
	w, h   int
	mag    []float32
	gx, gy []float32
	edge   []bool
	thresh float32
	// ridge is the weakest gradient lineSupport counts: half the first
	// search's threshold, kept by the low-threshold search, where half of
	// lowEdgeFloor is about the noise of a phone photo and would make
	// any side "full" (fullSides).
	ridge float32
}

// edges finds the edges of the colour planes: at each pixel the plane with
// the steepest gradient gives it. A pale yellow card on white paper differs
// from it far more in blue than in luminance.
func edges(planes ...*plane) *edgeMap {
	g := planes[0]
	e := &edgeMap{w: g.w, h: g.h, mag: make([]float32, g.w*g.h)}
	for k, pl := range planes {
		gx, gy := pl.blur(1.4).sobel()
		if k == 0 {
			e.gx, e.gy = gx.p, gy.p
			for i := range e.mag {
				e.mag[i] = float32(math.Hypot(float64(gx.p[i]), float64(gy.p[i])))
			}
			continue
		}
		for i := range e.mag {
			m := float32(math.Hypot(float64(gx.p[i]), float64(gy.p[i])))
			if m > e.mag[i] {
				e.mag[i], e.gx[i], e.gy[i] = m, gx.p[i], gy.p[i]
			}
		}
	}
	sample := make([]float32, 0, len(e.mag)/7+1)
	for i := range e.mag {
		if i%7 == 0 {
			sample = append(sample, e.mag[i])
		}
	}
	// Keep the strongest fifth of gradients that are at least a visible step
	// (a Sobel response of 40 is a 10-level step in 0..255).
	e.thresh = percentile(sample, 0.80)
	if e.thresh < edgeFloor {
		e.thresh = edgeFloor
	}
	e.edge = e.ridges(e.thresh)
	e.ridge = e.thresh * 0.5
	return e
}

// ridges marks the pixels whose gradient is at least floor and a local
// maximum along its own direction (non-maximum suppression), so every edge
// is one pixel wide and votes once.
func (e *edgeMap) ridges(floor float32) []bool {
	out := make([]bool, e.w*e.h)
	for y := 1; y < e.h-1; y++ {
		for x := 1; x < e.w-1; x++ {
			i := y*e.w + x
			m := e.mag[i]
			if m < floor {
				continue
			}
			ax, ay := math.Abs(float64(e.gx[i])), math.Abs(float64(e.gy[i]))
			var dx, dy int
			switch {
			case ax > 2.4*ay:
				dx = 1
			case ay > 2.4*ax:
				dy = 1
			case (e.gx[i] > 0) == (e.gy[i] > 0):
				dx, dy = 1, 1
			default:
				dx, dy = 1, -1
			}
			if m >= e.mag[(y+dy)*e.w+x+dx] && m >= e.mag[(y-dy)*e.w+x-dx] {
				out[i] = true
			}
		}
	}
	return out
}

type hline struct {
	theta, rho float64
	votes      float32
}

const nTheta = 360

// hough finds the strongest straight lines through the marked pixels.
// Each pixel votes only for directions within spread bins (half degrees)
// of its own gradient, which removes most of the clutter texture would
// add. Weighted, a pixel's vote grows with its gradient (up to 4 times the
// edge threshold); otherwise every pixel counts once, so a faint but long
// line is as strong as a vivid one of its length.
func hough(e *edgeMap, mark []bool, weighted bool, spread, maxLines int) []hline {
	diag := int(math.Ceil(math.Hypot(float64(e.w), float64(e.h))))
	nRho := 2*diag + 1
	acc := make([]float32, nTheta*nRho)
	var cs, sn [nTheta]float64
	for t := 0; t < nTheta; t++ {
		th := float64(t) * math.Pi / nTheta
		cs[t], sn[t] = math.Cos(th), math.Sin(th)
	}
	for _, p := range markedGradients(e, mark) {
		t0 := int(math.Round(p.phi * nTheta / math.Pi))
		// Strong steps (a card against its background) outvote the
		// gentler gradients of wood grain or fabric.
		wt := float32(1)
		if weighted {
			wt = min(e.mag[p.i]/e.thresh, 4)
		}
		for dt := -spread; dt <= spread; dt++ {
			t := ((t0+dt)%nTheta + nTheta) % nTheta
			r := int(math.Round(float64(p.x)*cs[t]+float64(p.y)*sn[t])) + diag
			acc[t*nRho+r] += wt
		}
	}
	minVotes := float32(min(e.w, e.h)) * 0.12
	var peaks []hline
	for t := 0; t < nTheta; t++ {
		for r := 0; r < nRho; r++ {
			v := acc[t*nRho+r]
			if v < minVotes {
				continue
			}
			local := true
			for dt := -6; dt <= 6 && local; dt++ {
				tt := t + dt
				if tt < 0 || tt >= nTheta {
					continue
				}
				for dr := -4; dr <= 4; dr++ {
					rr := r + dr
					if rr < 0 || rr >= nRho || (dt == 0 && dr == 0) {
						continue
					}
					w := acc[tt*nRho+rr]
					if w > v || (w == v && (dt < 0 || (dt == 0 && dr < 0))) {
						local = false
						break
					}
				}
			}
			if local {
				peaks = append(peaks, hline{theta: float64(t) * math.Pi / nTheta, rho: float64(r - diag), votes: v})
			}
		}
	}
	sort.Slice(peaks, func(i, j int) bool { return peaks[i].votes > peaks[j].votes })
	if len(peaks) > maxLines {
		peaks = peaks[:maxLines]
	}
	return peaks
}

// gradPixel is a marked pixel (index i at x, y) and the direction of
// its gradient, in [0, pi).
type gradPixel struct {
	x, y, i int
	phi     float64
}

// markedGradients lists the marked pixels of e with their gradients'
// directions, for hough and parallelPeaks to vote from.
func markedGradients(e *edgeMap, mark []bool) []gradPixel {
	var out []gradPixel
	for y := 0; y < e.h; y++ {
		for x := 0; x < e.w; x++ {
			i := y*e.w + x
			if !mark[i] {
				continue
			}
			phi := math.Atan2(float64(e.gy[i]), float64(e.gx[i]))
			if phi < 0 {
				phi += math.Pi
			}
			out = append(out, gradPixel{x, y, i, phi})
		}
	}
	return out
}

func intersect(a, b hline) (Point, bool) {
	c1, s1 := math.Cos(a.theta), math.Sin(a.theta)
	c2, s2 := math.Cos(b.theta), math.Sin(b.theta)
	d := c1*s2 - s1*c2
	if math.Abs(d) < 1e-6 {
		return Point{}, false
	}
	return Point{(a.rho*s2 - b.rho*s1) / d, (c1*b.rho - c2*a.rho) / d}, true
}

func angleDiff(a, b float64) float64 {
	d := math.Abs(a - b)
	if d > math.Pi/2 {
		d = math.Pi - d
	}
	return d
}

// orderCorners sorts four points clockwise (in image coordinates) starting
// from the one nearest the top-left.
func orderCorners(p [4]Point) Quad {
	var cx, cy float64
	for _, v := range p {
		cx += v.X / 4
		cy += v.Y / 4
	}
	sort.Slice(p[:], func(i, j int) bool {
		return math.Atan2(p[i].Y-cy, p[i].X-cx) < math.Atan2(p[j].Y-cy, p[j].X-cx)
	})
	best := 0
	for i := 1; i < 4; i++ {
		if p[i].X+p[i].Y < p[best].X+p[best].Y {
			best = i
		}
	}
	var q Quad
	for i := 0; i < 4; i++ {
		q[i] = p[(best+i)%4]
	}
	return q
}

func convex(q Quad) bool {
	sign := 0
	for i := 0; i < 4; i++ {
		a, b, c := q[i], q[(i+1)%4], q[(i+2)%4]
		cr := (b.X-a.X)*(c.Y-b.Y) - (b.Y-a.Y)*(c.X-b.X)
		s := 1
		if cr < 0 {
			s = -1
		}
		if sign != 0 && s != sign {
			return false
		}
		sign = s
	}
	return true
}

// sideSupport is the share of points along the side a-b that lie on an edge
// whose gradient is across the side, counting only the dominant polarity:
// a card border is a consistent step (card lighter or darker than what is
// behind it), texture is not.
func sideSupport(e *edgeMap, a, b Point) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l < 8 {
		return 0
	}
	nx, ny := -dy/l, dx/l
	n := int(l / 2)
	pos, neg := 0, 0
	for k := 0; k < n; k++ {
		t := 0.06 + 0.88*float64(k)/float64(n-1)
		px, py := a.X+dx*t, a.Y+dy*t
		found := 0
		for off := -2.0; off <= 2.0 && found == 0; off++ {
			x, y := int(math.Round(px+nx*off)), int(math.Round(py+ny*off))
			if x < 0 || y < 0 || x >= e.w || y >= e.h {
				continue
			}
			i := y*e.w + x
			if e.mag[i] < e.thresh*0.5 {
				continue
			}
			gxn, gyn := float64(e.gx[i])/float64(e.mag[i]), float64(e.gy[i])/float64(e.mag[i])
			dot := gxn*nx + gyn*ny
			if dot > 0.9 {
				found = 1
			} else if dot < -0.9 {
				found = -1
			}
		}
		if found > 0 {
			pos++
		} else if found < 0 {
			neg++
		}
	}
	return float64(max(pos, neg)) / float64(n)
}

// FindCard looks for the outline of a card of the given aspect ratio
// (width over height of the landscape card) in a photo.
func FindCard(img image.Image, aspect float64) Detection {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	s := float64(detectSide) / float64(max(W, H))
	if s > 1 {
		s = 1
	}
	// No luminance plane: a luminance step is never larger than the
	// largest of the colour steps that make it.
	rgb := reduced(img, int(float64(W)*s+0.5), int(float64(H)*s+0.5))
	e := edges(rgb[:]...)
	best, taken := searchOutline(e, rgb, aspect)
	r := float64(W) / float64(H)
	if r < 1 {
		r = 1 / r
	}
	// A photo of the document's own shape (within 15 %) with no outline
	// in it is a scan or a tight crop: the frame is the card.
	framed := math.Abs(math.Log(r/aspect)) < 0.15
	if !taken && !framed && e.thresh > lowEdgeFloor {
		// Nothing taken: the card's border may be a step under the edge
		// threshold, which a busy background or the card's own print
		// raised (the 80th percentile). The search runs again on the
		// same gradients with the threshold at lowEdgeFloor; the outline
		// must still score minScore on them. Not on a photo of the
		// document's shape, whose frame is taken as before (a scan's
		// photo or barcode must not become the card).
		low := *e
		low.thresh = lowEdgeFloor
		low.edge = low.ridges(low.thresh)
		if d, ok := searchOutline(&low, rgb, aspect); ok && d.Quad.area() >= fallbackArea*float64(e.w*e.h) {
			best, taken, e = d, ok, &low
		}
	}
	if (taken || !framed && best.Found) && best.Quad.area() < smallOutline*float64(e.w*e.h) {
		// A small outline, taken or only the best, may be a block of the
		// card (its portrait photo) whose own sides were not among the
		// lines: a finger over the card's top edge leaves three, and
		// faint sides are lost among the lines of its print. They run
		// parallel to the block's, and are looked for in the block's two
		// directions alone, outside it: the card around it, when one is
		// found.
		if q, ok := alignedCard(img, e, rgb, best.Quad, best.Score, aspect, s); ok {
			best.Quad = landscape(q)
			return best
		}
	}
	if taken {
		q := refine(img, outermost(e, rgb, best.Quad, aspect), s)
		best.Quad = landscape(q)
		return best
	}
	if !framed && best.Found && best.Score >= weakScore && best.Quad.area() >= fallbackArea*float64(e.w*e.h) {
		// A pale card on pale paper, small in the photo, scores low
		// (little region contrast, its size factor small) although its
		// outline is right. It is taken when, at the finer scale, a step
		// runs consistently along each of its four sides: texture or
		// print does not give four straight consistent steps round a
		// card-shaped outline.
		q, least := refineScored(img, outermost(e, rgb, best.Quad, aspect), s)
		if least >= weakConsistent {
			best.Quad = landscape(q)
			return best
		}
	}
	// A scan or a tight crop: the frame is the card when its shape is the
	// document's.
	if framed {
		q := Quad{{0, 0}, {float64(W), 0}, {float64(W), float64(H)}, {0, float64(H)}}
		for i := range q {
			q[i].X += float64(b.Min.X)
			q[i].Y += float64(b.Min.Y)
		}
		return Detection{Quad: landscape(q), Found: true, FillsFrame: true, Score: 0}
	}
	return Detection{Score: best.Score}
}

// alignedCard looks for the card around block, an outline on it (the
// portrait photo), from the lines parallel to block's sides outside it:
// the ridges whose gradient is within 6 degrees of a side's normal vote
// along that normal (within 2 degrees of it), and the strongest peaks on
// either side of the block, three at most, make the outlines scored. The
// best that holds the block, covers at least fallbackArea of the photo
// and enclosedArea times the block, is taken when a step runs
// consistently along each of its sides at the finer scale (weakConsistent,
// the bar of the weak outline), and it scores at least alignedScore of
// the block.
func alignedCard(img image.Image, e *edgeMap, rgb [3]*plane, block Quad, blockScore, aspect, s float64) (Quad, bool) {
	frame := float64(e.w * e.h)
	px := markedGradients(e, e.ridges(e.thresh*0.5))
	var lines []hline
	for side := 0; side < 2; side++ {
		a, b := block[side], block[side+1]
		theta := math.Atan2(b.X-a.X, -(b.Y - a.Y))
		if theta < 0 {
			theta += math.Pi
		}
		lines = append(lines, parallelPeaks(e, px, block, theta)...)
	}
	// The block may be printed at the card's edge, or so near it that
	// its own side is the nearest line there (outermost moves it out).
	for i := range block {
		a, b := block[i], block[(i+1)%4]
		theta := math.Atan2(b.X-a.X, -(b.Y - a.Y))
		lines = append(lines, normLine(theta, a.X*math.Cos(theta)+a.Y*math.Sin(theta), 0))
	}
	var seen []Detection
	searchQuads(e, rgb, lines, 0, aspect, Detection{}, &seen)
	best, score := Quad{}, 0.0
	for _, d := range seen {
		if d.Score > score && d.Score >= alignedScore*blockScore && d.Quad.area() >= fallbackArea*frame && d.Quad.area() >= enclosedArea*block.area() &&
			d.Quad.contains(block, enclosedSlack*shortSide(d.Quad)) {
			best, score = d.Quad, d.Score
		}
	}
	if score == 0 {
		return Quad{}, false
	}
	q, least := refineScored(img, outermost(e, rgb, best, aspect), s)
	return q, least >= weakConsistent
}

// parallelPeaks returns the strongest lines at angle theta (within two
// degrees, in half degrees) on either side of block, three a side.
func parallelPeaks(e *edgeMap, px []gradPixel, block Quad, theta float64) []hline {
	diag := int(math.Ceil(math.Hypot(float64(e.w), float64(e.h))))
	const spread = 4 // half degrees either side
	var out []hline
	for _, before := range []bool{true, false} {
		var peaks []hline
		for dt := -spread; dt <= spread; dt++ {
			th := theta + float64(dt)*math.Pi/nTheta
			c, sn := math.Cos(th), math.Sin(th)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, p := range block {
				r := p.X*c + p.Y*sn
				lo, hi = math.Min(lo, r), math.Max(hi, r)
			}
			acc := make([]float32, 2*diag+1)
			for _, p := range px {
				if d := math.Abs(math.Remainder(p.phi-th, math.Pi)); d > 6*math.Pi/180 {
					continue
				}
				r := int(math.Round(float64(p.x)*c + float64(p.y)*sn))
				if before && float64(r) < lo-2 || !before && float64(r) > hi+2 {
					acc[r+diag]++
				}
			}
			// A peak needs ridges along 4 % of the photo's short side: a
			// faint side is broken (the pale card of synth seed 12
			// type ke_national_id#5 front gave 15 to 58); the outline
			// made of the peaks must still pass refineScored's bar.
			for r := 1; r < len(acc)-1; r++ {
				if acc[r] >= float32(min(e.w, e.h))*0.04 && acc[r] >= acc[r-1] && acc[r] > acc[r+1] {
					peaks = append(peaks, normLine(th, float64(r-diag), acc[r]))
				}
			}
		}
		sort.Slice(peaks, func(i, j int) bool { return peaks[i].votes > peaks[j].votes })
		var kept []hline
		for _, p := range peaks {
			if len(kept) == 3 {
				break
			}
			if !nearLine(kept, p) {
				kept = append(kept, p)
			}
		}
		out = append(out, kept...)
	}
	return out
}

// alignedScore is the least share of the block's score the card around
// it must score. Chosen on synth seeds 12 and 13: the cards found around
// a portrait scored 0.42 (under a finger, the portrait taken for the
// card) and 0.78 (a pale card on grey paper) of it; a card taken rightly,
// small in a photo of speckled stone, had an outline round it of the
// photo's texture at 0.13 of the card's.
const alignedScore = 1.0 / 3

// normLine is the line x cos(theta) + y sin(theta) = rho with theta
// brought into [0, pi), as hough gives them.
func normLine(theta, rho float64, votes float32) hline {
	switch {
	case theta < 0:
		theta, rho = theta+math.Pi, -rho
	case theta >= math.Pi:
		theta, rho = theta-math.Pi, -rho
	}
	return hline{theta: theta, rho: rho, votes: votes}
}

// searchOutline finds the best outline on the edges e and tells whether
// it is taken as the card (scores minScore, or paleScore with four full
// sides); a taken outline is already widened to any outline enclosing it.
func searchOutline(e *edgeMap, rgb [3]*plane, aspect float64) (Detection, bool) {
	lines := hough(e, e.edge, true, 6, 28)
	frame := float64(e.w * e.h)
	var seen []Detection
	best := searchQuads(e, rgb, lines, 0, aspect, Detection{}, &seen)
	if best.Score < faintGate || best.Quad.area() < smallOutline*frame {
		// A side of a pale card on pale paper (or of a white card whose
		// barcode raises the edge threshold) may be a step too faint to
		// be an edge at all, and then no line forms there. Lines of the
		// faint ridges, each pixel counted once, are tried with the
		// others; the outline is still scored on the same edges. Noise
		// turns the gradient of a faint step by up to about 12 degrees,
		// so these pixels vote over 6 degrees either side.
		n := len(lines)
		for _, w := range hough(e, e.ridges(e.thresh*0.5), false, 12, 24) {
			if len(lines) >= n+faintLines {
				break
			}
			if !nearLine(lines[:n], w) {
				lines = append(lines, w)
			}
		}
		best = searchQuads(e, rgb, lines, n, aspect, best, &seen)
	}
	taken := best.Found && (best.Score >= minScore || best.Score >= paleScore && fullSides(e, best.Quad))
	if taken {
		best.Quad = enclosing(seen, best, frame)
	}
	return best, taken
}

// fullSides tells whether every side of q has a ridge along at least
// paleSupport of it.
func fullSides(e *edgeMap, q Quad) bool {
	for i := range q {
		if lineSupport(e, q[i], q[(i+1)%4]) < paleSupport {
			return false
		}
	}
	return true
}

// searchQuads scores the outlines made of two pairs of near-parallel lines
// crossing at more than 50 degrees and returns the best of them and prior.
// Only outlines with at least one of lines[from:] are scored: the others
// were scored before. Every outline scoring within half of the best so far
// is added to seen.
func searchQuads(e *edgeMap, rgb [3]*plane, lines []hline, from int, aspect float64, best Detection, seen *[]Detection) Detection {
	area := float64(e.w * e.h)
	type pair struct {
		a, b  hline
		dir   float64
		fresh bool
	}
	var pairs []pair
	minSep := 0.10 * float64(min(e.w, e.h))
	cx, cy := float64(e.w)/2, float64(e.h)/2
	for i := range lines {
		for j := i + 1; j < len(lines); j++ {
			a, c := lines[i], lines[j]
			if angleDiff(a.theta, c.theta) > 20*math.Pi/180 {
				continue
			}
			// Distance between the lines through the image centre.
			da := a.rho - (cx*math.Cos(a.theta) + cy*math.Sin(a.theta))
			dc := c.rho - (cx*math.Cos(c.theta) + cy*math.Sin(c.theta))
			if math.Abs(a.theta-c.theta) > math.Pi/2 {
				dc = -dc
			}
			if math.Abs(da-dc) < minSep {
				continue
			}
			pairs = append(pairs, pair{a, c, a.theta, j >= from})
		}
	}
	for i := range pairs {
		for j := i + 1; j < len(pairs); j++ {
			p, r := pairs[i], pairs[j]
			if !p.fresh && !r.fresh {
				continue
			}
			if angleDiff(p.dir, r.dir) < 50*math.Pi/180 {
				continue
			}
			var pts [4]Point
			ok := true
			for k, ln := range [4][2]hline{{p.a, r.a}, {p.a, r.b}, {p.b, r.a}, {p.b, r.b}} {
				pt, good := intersect(ln[0], ln[1])
				if !good || pt.X < -0.08*float64(e.w) || pt.Y < -0.08*float64(e.h) ||
					pt.X > 1.08*float64(e.w) || pt.Y > 1.08*float64(e.h) {
					ok = false
					break
				}
				pts[k] = pt
			}
			if !ok {
				continue
			}
			q := orderCorners(pts)
			if !convex(q) || q.area() < 0.04*area {
				continue
			}
			sc := scoreQuad(e, q, aspect, area)
			if sc <= best.Score*0.5 {
				continue
			}
			sc *= regionContrast(rgb, q)
			if sc > best.Score*0.5 {
				*seen = append(*seen, Detection{Quad: q, Found: true, Score: sc})
			}
			if sc > best.Score {
				best = Detection{Quad: q, Found: true, Score: sc}
			}
		}
	}
	return best
}

// enclosing returns the outline of the card around best: the best scoring
// of the seen outlines that contains best's, is at least enclosedArea
// times its area and scores at least enclosedScore of it
// (enclosedSmallScore when best covers less than smallOutline of frame,
// the photo's area). A block on the card of about the card's shape (a
// portrait photo, a barcode) has four crisp sides and strong contrast, and
// can outscore a pale card's own faint outline; the card is the outline
// around it.
func enclosing(seen []Detection, best Detection, frame float64) Quad {
	need := enclosedScore * best.Score
	if best.Quad.area() < smallOutline*frame {
		need = enclosedSmallScore * best.Score
	}
	out := best.Quad
	for {
		next, sc := out, 0.0
		for _, d := range seen {
			if d.Score >= need && d.Score > sc &&
				d.Quad.area() >= enclosedArea*out.area() && d.Quad.contains(out, enclosedSlack*shortSide(d.Quad)) {
				next, sc = d.Quad, d.Score
			}
		}
		if sc == 0 {
			return out
		}
		out = next
	}
}

// shortSide is the mean length of q's shorter pair of opposite sides.
func shortSide(q Quad) float64 {
	return math.Min((q.side(0)+q.side(2))/2, (q.side(1)+q.side(3))/2)
}

// nearLine tells whether w is (nearly) one of lines: within the
// neighbourhood the Hough peaks are kept apart by.
func nearLine(lines []hline, w hline) bool {
	for _, l := range lines {
		d := math.Abs(l.theta - w.theta)
		r := math.Abs(l.rho - w.rho)
		if d > math.Pi/2 {
			d, r = math.Pi-d, math.Abs(l.rho+w.rho)
		}
		if d <= 3*math.Pi/180 && r <= 4 {
			return true
		}
	}
	return false
}

func scoreQuad(e *edgeMap, q Quad, aspect, area float64) float64 {
	var sup [4]float64
	minSup, sum := 1.0, 0.0
	for i := 0; i < 4; i++ {
		sup[i] = sideSupport(e, q[i], q[(i+1)%4])
		sum += sup[i]
		minSup = math.Min(minSup, sup[i])
	}
	long := (q.side(0) + q.side(2)) / 2
	short := (q.side(1) + q.side(3)) / 2
	if short > long {
		long, short = short, long
	}
	if short < 1 {
		return 0
	}
	ar := math.Abs(math.Log(long / short / aspect))
	// Perspective of a hand-held photo changes the apparent ratio by up to
	// about a quarter; beyond that the shape is another rectangle.
	if ar > 0.30 {
		return 0
	}
	shape := math.Exp(-(ar / 0.18) * (ar / 0.18))
	size := math.Pow(q.area()/area, 0.3)
	return (sum / 4) * math.Sqrt(minSup) * shape * size
}

// landscape rotates the corner order so that the first side is a long side.
func landscape(q Quad) Quad {
	if q.side(0)+q.side(2) >= q.side(1)+q.side(3) {
		return q
	}
	return Quad{q[1], q[2], q[3], q[0]}
}

// refine fits each side again at a finer scale: the coarse lines come from
// a reduced image and may be a few pixels off in the original.
func refine(img image.Image, q Quad, s float64) Quad {
	out, _ := refineScored(img, q, s)
	return out
}

// refineScored is refine, and tells the least consistency (fitSide) of
// the four sides at the finer scale, 0 when a side could not be fitted
// or the image is not larger than the detector's.
func refineScored(img image.Image, q Quad, s float64) (Quad, float64) {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	fs := 1400.0 / float64(max(W, H))
	if fs > 1 {
		fs = 1
	}
	if fs <= s*1.2 {
		return scaleQuad(q, 1/s, b.Min), 0
	}
	src := img
	if fs > 0.75 {
		// Close enough to full size: the image as it is.
		fs = 1
	} else {
		src = imaging.Resize(img, int(float64(W)*fs+0.5), int(float64(H)*fs+0.5), imaging.Box)
	}
	k := fs / s
	var fine Quad
	var cx, cy float64
	for i := range q {
		fine[i] = Point{q[i].X * k, q[i].Y * k}
		cx += fine[i].X / 4
		cy += fine[i].Y / 4
	}
	var lines [4]hline
	least := 1.0
	for i := 0; i < 4; i++ {
		a, c := fine[i], fine[(i+1)%4]
		reach := 4*k + 3
		// fitSide and shadowBand read up to reach (rounded up to a half
		// pixel) and 5 pixels more across the side, and one pixel more
		// for a gradient.
		ln, cons, ok := fitSideScored(stripWindow(src, a, c, reach+8), a, c, Point{cx, cy}, reach, reach)
		if !ok {
			return scaleQuad(q, 1/s, b.Min), 0
		}
		lines[i] = ln
		least = math.Min(least, cons)
	}
	var out Quad
	for i := 0; i < 4; i++ {
		p, ok := intersect(lines[(i+3)%4], lines[i])
		if !ok || math.Hypot(p.X-fine[i].X, p.Y-fine[i].Y) > 8*k+6 {
			return scaleQuad(q, 1/s, b.Min), 0
		}
		out[i] = p
	}
	return scaleQuad(out, 1/fs, b.Min), least
}

func scaleQuad(q Quad, f float64, min image.Point) Quad {
	for i := range q {
		q[i] = Point{q[i].X*f + float64(min.X), q[i].Y*f + float64(min.Y)}
	}
	return q
}

// Refinement constants (1400 px scale, Sobel units of one colour plane):
// refineFloor is the weakest step taken as a point of the side (about an
// 8-level step); refineSat is where a sample counts fully towards a line's
// consistency; refineConsistent is the consistency a line needs to be a
// candidate side at all; a candidate within refineTie of the most
// consistent one ties with it; refineNear is how far (pixels) from the
// chosen line a sample's own step may lie.
const (
	refineFloor      = 30
	refineSat        = 40
	refineConsistent = 0.5
	refineTie        = 0.05
	refineNear       = 3
)

// fitSide fits the side a-b again (centre is inside the card). The step
// across the side is taken per colour plane, the largest of the three: a
// cream card on white paper differs by a few levels of luminance but tens
// of blue. First one line is chosen for the whole side: every offset
// within reach and every tilt (the side's ends moving up to about tilt
// pixels apart) is scored by how consistently a step lies along it, each
// sample counting up to refineSat, so a faint border that runs the whole
// side scores as well as a strong inner frame line or block of print.
// Of the lines that tie with the most consistent one, the outermost is
// taken (a card's border lies outside its print), unless the band between
// it and the next line in is a shadow cast beside the card (shadowBand).
// Then each sample's strongest step within refineNear of that line is a
// point, and a line is fitted through the points by least squares
// (twice, dropping the fifth furthest from the first fit). The strongest
// step at each sample within reach, as before, was often the print or an
// inner frame line a few pixels inside a faint border, and a frame line
// near one corner tilted the side.
func fitSide(rgb window, a, b, centre Point, reach, tilt float64) (hline, bool) {
	ln, _, ok := fitSideScored(rgb, a, b, centre, reach, tilt)
	return ln, ok
}

// fitSideScored is fitSide, and tells the consistency of the line chosen
// (the share of the side along which a step lies, each sample counting up
// to refineSat).
func fitSideScored(rgb window, a, b, centre Point, reach, tilt float64) (hline, float64, bool) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l < 10 {
		return hline{}, 0, false
	}
	nx, ny := -dy/l, dx/l
	if (a.X-centre.X)*nx+(a.Y-centre.Y)*ny < 0 {
		nx, ny = -nx, -ny
	}
	n := int(l / 3)
	steps := int(math.Ceil(reach * 2))
	m := 2*steps + 1
	// grad[k*m+j] is the step across the side at sample k, offset
	// (j-steps)/2 outward.
	grad := make([]float32, n*m)
	ts := make([]float64, n)
	for k := 0; k < n; k++ {
		t := 0.08 + 0.84*float64(k)/float64(n-1)
		ts[k] = t
		px, py := a.X+dx*t, a.Y+dy*t
		for j := 0; j < m; j++ {
			off := float64(j-steps) / 2
			x, y := int(math.Round(px+nx*off)), int(math.Round(py+ny*off))
			if !rgb.interior(x, y) {
				continue
			}
			v := float32(0)
			for c := range rgb.rgb {
				gx, gy := rgb.sobel(c, x, y)
				v = max(v, float32(math.Abs(float64(gx)*nx+float64(gy)*ny)))
			}
			grad[k*m+j] = v
		}
	}
	// score[j] is the best consistency of a line through offset j (at the
	// side's middle) over the tilts, bestT its tilt in half pixels.
	tsteps := int(math.Ceil(2 * tilt))
	sat := make([]float32, len(grad))
	for i, v := range grad {
		sat[i] = min(v, refineSat) / refineSat
	}
	score := make([]float64, m)
	bestT := make([]int, m)
	for j := range score {
		score[j] = -1
	}
	acc := make([]float32, m)
	cnt := make([]int32, m)
	for d := -tsteps; d <= tsteps; d++ {
		clear(acc)
		clear(cnt)
		for k := 0; k < n; k++ {
			sh := int(math.Round(float64(d) * (ts[k] - 0.5)))
			row := sat[k*m : (k+1)*m]
			// acc[j] += row[j+sh] where j+sh is within the row.
			lo, hi := max(0, -sh), min(m, m-sh)
			for j := lo; j < hi; j++ {
				acc[j] += row[j+sh]
				cnt[j]++
			}
		}
		for j := 0; j < m; j++ {
			if int(cnt[j]) < n/2 {
				continue
			}
			if v := float64(acc[j]) / float64(n); v > score[j] {
				score[j], bestT[j] = v, d
			}
		}
	}
	top := steps
	var cands []int
	for j := 0; j < m; j++ {
		if score[j] > score[top] {
			top = j
		}
		if score[j] < refineConsistent {
			continue
		}
		peak := true
		for jj := max(0, j-3); jj <= min(m-1, j+3); jj++ {
			if score[jj] > score[j] || (score[jj] == score[j] && jj < j) {
				peak = false
			}
		}
		if peak {
			cands = append(cands, j)
		}
	}
	// Of the lines about as consistent as the best one, the outermost
	// that is not the edge of a shadow cast beside the card.
	pick := top
	var strong []int
	for _, j := range cands {
		if score[j] >= score[top]-refineTie {
			strong = append(strong, j)
		}
	}
	for c := len(strong) - 1; c >= 0; c-- {
		if c == 0 {
			pick = strong[0]
			break
		}
		in := float64(strong[c-1]-steps) / 2
		p0 := Point{a.X + nx*in, a.Y + ny*in}
		p1 := Point{b.X + nx*in, b.Y + ny*in}
		if !shadowBand(rgb, p0, p1, Point{nx, ny}, float64(strong[c]-strong[c-1])/2) {
			pick = strong[c]
			break
		}
	}
	var pts []Point
	for k := 0; k < n; k++ {
		c := float64(pick) + float64(bestT[pick])*(ts[k]-0.5)
		bestV, bestJ := float32(0), 0
		for j := max(0, int(math.Ceil(c-2*refineNear))); j <= min(m-1, int(math.Floor(c+2*refineNear))); j++ {
			if v := grad[k*m+j]; v > bestV {
				bestV, bestJ = v, j
			}
		}
		if bestV > refineFloor {
			off := float64(bestJ-steps) / 2
			pts = append(pts, Point{a.X + dx*ts[k] + nx*off, a.Y + dy*ts[k] + ny*off})
		}
	}
	if len(pts) < n/3 || len(pts) < 4 {
		return hline{}, 0, false
	}
	ln := fitLine(pts)
	// Drop the worst fifth and fit again.
	type dp struct {
		d float64
		p Point
	}
	ds := make([]dp, len(pts))
	for i, p := range pts {
		ds[i] = dp{math.Abs(p.X*math.Cos(ln.theta) + p.Y*math.Sin(ln.theta) - ln.rho), p}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].d < ds[j].d })
	keep := ds[:len(ds)*4/5]
	pts = pts[:0]
	for _, d := range keep {
		pts = append(pts, d.p)
	}
	return fitLine(pts), score[pick], true
}

// fitLine is the total least squares line through pts.
func fitLine(pts []Point) hline {
	var mx, my float64
	for _, p := range pts {
		mx += p.X
		my += p.Y
	}
	mx /= float64(len(pts))
	my /= float64(len(pts))
	var sxx, sxy, syy float64
	for _, p := range pts {
		x, y := p.X-mx, p.Y-my
		sxx += x * x
		sxy += x * y
		syy += y * y
	}
	// Direction of the line is the principal axis; its normal is theta.
	dir := 0.5 * math.Atan2(2*sxy, sxx-syy)
	theta := dir + math.Pi/2
	return hline{theta: theta, rho: mx*math.Cos(theta) + my*math.Sin(theta)}
}

// regionContrast compares a band just inside each side with a band just
// outside: a card differs from what it lies on, while a quadrilateral drawn
// through a textured background has the same texture on both sides. The
// difference is measured over the colour planes (root mean square), so a
// tinted card on white paper stands out as much as its colour allows. It
// returns a factor in 0..1.
func regionContrast(planes [3]*plane, q Quad) float64 {
	var cx, cy float64
	for _, p := range q {
		cx += p.X / 4
		cy += p.Y / 4
	}
	g := planes[0]
	total := 0.0
	var in, out [3][]float32
	for i := 0; i < 4; i++ {
		a, b := q[i], q[(i+1)%4]
		for c := range in {
			in[c], out[c] = in[c][:0], out[c][:0]
		}
		for k := 1; k < 20; k++ {
			t := float64(k) / 20
			px, py := a.X+(b.X-a.X)*t, a.Y+(b.Y-a.Y)*t
			dx, dy := cx-px, cy-py
			l := math.Hypot(dx, dy)
			if l == 0 {
				continue
			}
			dx, dy = dx/l, dy/l
			for _, d := range []float64{3, 5, 7} {
				xi, yi := int(px+dx*d), int(py+dy*d)
				xo, yo := int(px-dx*d), int(py-dy*d)
				for c, pl := range planes {
					if xi >= 0 && yi >= 0 && xi < g.w && yi < g.h {
						in[c] = append(in[c], pl.p[yi*g.w+xi])
					}
					if xo >= 0 && yo >= 0 && xo < g.w && yo < g.h {
						out[c] = append(out[c], pl.p[yo*g.w+xo])
					}
				}
			}
		}
		if len(in[0]) < 10 {
			continue
		}
		if len(out[0]) < 10 {
			// The side runs along the frame: nothing outside to compare.
			total += 0.5
			continue
		}
		var dist, sin, sout float64
		for c := range planes {
			mi, si := meanStd(in[c])
			mo, so := meanStd(out[c])
			dist += (mi - mo) * (mi - mo) / 3
			sin += si * si / 3
			sout += so * so / 3
		}
		// The constant is a noise floor: at 8 a pale card on pale paper
		// (a difference of a few levels, both bands flat) scored half
		// what its colour step deserves and fell under minScore; texture
		// has a large spread both sides and hardly gains from 4.
		c := math.Sqrt(dist) / (math.Sqrt(sin) + math.Sqrt(sout) + 4)
		total += math.Min(1, c/1.2)
	}
	return total / 4
}

// channels splits an image into its red, green and blue planes.
func channels(n *image.NRGBA) [3]*plane {
	b := n.Bounds()
	var out [3]*plane
	for c := range out {
		out[c] = newPlane(b.Dx(), b.Dy())
	}
	for y := 0; y < b.Dy(); y++ {
		row := n.Pix[y*n.Stride:]
		for x := 0; x < b.Dx(); x++ {
			for c := range out {
				out[c].p[y*b.Dx()+x] = float32(row[4*x+c])
			}
		}
	}
	return out
}

func meanStd(v []float32) (float64, float64) {
	var m float64
	for _, x := range v {
		m += float64(x)
	}
	m /= float64(len(v))
	var s float64
	for _, x := range v {
		s += (float64(x) - m) * (float64(x) - m)
	}
	return m, math.Sqrt(s / float64(len(v)))
}

// outermost moves a side of q out to a separate parallel line, within a
// few per cent of the card, that is supported about as well as the side
// itself, is not the edge of a shadow, and keeps the outline's shape (seen
// through the camera's perspective, rectAspect) as close to the
// document's as any choice of lines (pickShifts): a strong line inside the
// card (a header band, an inner frame, the top of a coloured stripe) can
// outvote the card's own edge in the Hough vote, and the outline it gives
// is then too narrow or too short for the card.
func outermost(e *edgeMap, rgb [3]*plane, q Quad, aspect float64) Quad {
	var cx, cy float64
	for _, p := range q {
		cx += p.X / 4
		cy += p.Y / 4
	}
	var normals [4]Point
	var cands [4][]float64
	for i := 0; i < 4; i++ {
		a, b := q[i], q[(i+1)%4]
		// 8 % of the card's extent across the side: a short side moves
		// along the long side (an inner line 5 to 6 % of the long side in,
		// the edge of a photo column, was out of reach at 8 % of the short
		// side).
		maxD := int(math.Ceil(0.08 * (q.side((i+1)%4) + q.side((i+3)%4)) / 2))
		dx, dy := b.X-a.X, b.Y-a.Y
		l := math.Hypot(dx, dy)
		nx, ny := -dy/l, dx/l
		// Outward: away from the centre.
		if (a.X-cx)*nx+(a.Y-cy)*ny < 0 {
			nx, ny = -nx, -ny
		}
		normals[i] = Point{nx, ny}
		at := func(off float64) (Point, Point) {
			return Point{a.X + nx*off, a.Y + ny*off}, Point{b.X + nx*off, b.Y + ny*off}
		}
		base := 0.0
		for d := -2.0; d <= 2; d++ {
			p0, p1 := at(d)
			base = math.Max(base, lineSupport(e, p0, p1))
		}
		need := math.Max(0.45, 0.7*base)
		// The coarse line may sit a pixel or two beside its edge: a new
		// line is one that comes after the support has fallen away.
		last, dipped, peak, peakAt := 0.0, false, 0.0, 0.0
		for d := 1; d <= maxD+2; d++ {
			p0, p1 := at(float64(d))
			sup := lineSupport(e, p0, p1)
			switch {
			case sup < 0.4*need:
				if peak > 0 {
					s0, s1 := at(last)
					if !shadowBand(fullWindow(rgb), s0, s1, normals[i], peakAt-last) {
						cands[i] = append(cands[i], peakAt)
						last = peakAt
					}
				}
				dipped, peak = true, 0
			case dipped && sup >= need && sup > peak && d <= maxD:
				peak, peakAt = sup, float64(d)
			}
		}
	}
	var shift [4]float64
	build := func(shift [4]float64) (Quad, bool) {
		var lines [4]hline
		for i := 0; i < 4; i++ {
			n := normals[i]
			a, b := q[i], q[(i+1)%4]
			lines[i] = fitLine([]Point{{a.X + n.X*shift[i], a.Y + n.Y*shift[i]}, {b.X + n.X*shift[i], b.Y + n.Y*shift[i]}})
		}
		var out Quad
		for i := 0; i < 4; i++ {
			p, ok := intersect(lines[(i+3)%4], lines[i])
			if !ok {
				return q, false
			}
			out[i] = p
		}
		return out, true
	}
	shift = pickShifts(cands, build, func(q Quad) float64 { return shapeError(q, aspect, e.w, e.h) })
	out, _ := build(shift)
	return out
}

// shadowBand tells whether the band between the side a-b and a parallel
// line d pixels outside it (direction n) is a shadow cast on the
// background: darker than what lies beyond the line but of the same hue.
func shadowBand(rgb window, a, b, n Point, d float64) bool {
	if d < 5 {
		// Too narrow to tell: a shadow's edge lies further out than this.
		return false
	}
	var between, beyond [3]float64
	var nb, no int
	for k := 1; k < 20; k++ {
		t := float64(k) / 20
		px, py := a.X+(b.X-a.X)*t, a.Y+(b.Y-a.Y)*t
		for off := 2.0; off <= d-2; off++ {
			x, y := int(px+n.X*off), int(py+n.Y*off)
			if rgb.in(x, y) {
				for c := range between {
					between[c] += float64(rgb.at(c, x, y))
				}
				nb++
			}
		}
		for off := d + 2; off <= d+5; off++ {
			x, y := int(px+n.X*off), int(py+n.Y*off)
			if rgb.in(x, y) {
				for c := range beyond {
					beyond[c] += float64(rgb.at(c, x, y))
				}
				no++
			}
		}
	}
	if nb == 0 || no == 0 {
		return false
	}
	var sb, so float64
	for c := range between {
		between[c] /= float64(nb)
		beyond[c] /= float64(no)
		sb += between[c]
		so += beyond[c]
	}
	if sb == 0 || so == 0 {
		return false
	}
	hue := 0.0
	for c := range between {
		hue = math.Max(hue, math.Abs(between[c]/sb-beyond[c]/so))
	}
	return sb < so*0.97 && hue < 0.015
}

// lineSupport is the share of points along a-b within a pixel of a ridge
// of gradient across the side (a local maximum along its normal, either
// polarity, at least half the edge threshold): unlike sideSupport it tells
// apart two lines a few pixels apart, and it sees the faint outer edge of
// a pale card that the edge threshold drops.
func lineSupport(e *edgeMap, a, b Point) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l < 8 {
		return 0
	}
	nx, ny := -dy/l, dx/l
	n := int(l / 2)
	floor := e.ridge
	across := func(x, y int) float32 {
		if x < 0 || y < 0 || x >= e.w || y >= e.h {
			return 0
		}
		i := y*e.w + x
		return float32(math.Abs(float64(e.gx[i])*nx + float64(e.gy[i])*ny))
	}
	hit := 0
	for k := 0; k < n; k++ {
		t := 0.06 + 0.88*float64(k)/float64(n-1)
		px, py := a.X+dx*t, a.Y+dy*t
		for off := -1.0; off <= 1.0; off++ {
			fx, fy := px+nx*off, py+ny*off
			x, y := int(math.Round(fx)), int(math.Round(fy))
			v := across(x, y)
			if v < floor {
				continue
			}
			if v >= across(int(math.Round(fx+nx)), int(math.Round(fy+ny))) &&
				v >= across(int(math.Round(fx-nx)), int(math.Round(fy-ny))) {
				hit++
				break
			}
		}
	}
	return float64(hit) / float64(n)
}
