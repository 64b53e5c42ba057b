package docauth

import (
	"image"
	"math"
	"sort"
)

// faceChroma is how colourful the face in the portrait is against the
// rest of the portrait: the mean distance, in the opponent channels (R-G,
// (R+G)/2-B), of the face's pixels from the median colour of the portrait
// around it (backdrop, hair, clothes), over the face's mean luminance. A
// greyscale portrait has one tone throughout, whatever the light's cast;
// skin printed in colour stands apart from any backdrop. portrait is the
// photo zone, face the detector's box (both in card px).
func faceChroma(card *image.NRGBA, portrait, face image.Rectangle) float64 {
	b := card.Bounds()
	portrait = portrait.Intersect(b)
	// the cheeks, nose and mouth: the middle of the detector's box
	fr := image.Rect(face.Min.X+face.Dx()/5, face.Min.Y+face.Dy()/4, face.Max.X-face.Dx()/5, face.Max.Y-face.Dy()/10).Intersect(b)
	if fr.Dx() < 4 || fr.Dy() < 4 {
		return 0
	}
	opp := func(x, y int) (float64, float64, float64) {
		q := card.Pix[card.PixOffset(x, y):]
		r, g, bl := float64(q[0]), float64(q[1]), float64(q[2])
		return r - g, (r+g)/2 - bl, 0.299*r + 0.587*g + 0.114*bl
	}
	// the surround's tone, per unit of luminance (a cast scales with it)
	var rgs, ybs []float64
	for y := portrait.Min.Y; y < portrait.Max.Y; y += 2 {
		for x := portrait.Min.X; x < portrait.Max.X; x += 2 {
			if image.Pt(x, y).In(face) {
				continue
			}
			rg, yb, l := opp(x, y)
			if l < 24 {
				continue
			}
			rgs = append(rgs, rg/l)
			ybs = append(ybs, yb/l)
		}
	}
	if len(rgs) < 16 {
		return 0
	}
	sort.Float64s(rgs)
	sort.Float64s(ybs)
	nrg, nyb := rgs[len(rgs)/2], ybs[len(ybs)/2]
	var sc, n float64
	for y := fr.Min.Y; y < fr.Max.Y; y++ {
		for x := fr.Min.X; x < fr.Max.X; x++ {
			rg, yb, l := opp(x, y)
			l = math.Max(l, 24)
			sc += math.Hypot(rg/l-nrg, yb/l-nyb)
			n++
		}
	}
	return sc / n
}

// straightEdge is the strongest straight step in luminance found along
// one side of the portrait zone.
type straightEdge struct {
	// Rot is the edge's turn against the card's axes, in degrees, as the
	// turn of a rectangle whose side it is (clockwise positive, in image
	// coordinates): the four sides of a pasted photo turned by a degree
	// all read 1.
	Rot float64
	// Step is the mean step across it, grey levels per px, and Support
	// the share of its length where the step has that sign and at least
	// half that size: a photo's cut edge steps all along, a curve
	// (shoulders, a hairline) crossing the line only in places.
	Step, Support float64
	// Contrast is Step over the band's median step.
	Contrast float64
	// Off is the line's offset (px, along the normal, at the middle of
	// its length) from the zone's side; Sign is +1 when luminance rises
	// across it toward larger coordinates, -1 when it falls.
	Off, Sign float64
}

// Edge search: lines within edgeMaxTurn degrees of the card's axes, in
// steps of edgeTurnStep, in a band of a tenth of the zone's size either
// side of each of its sides, over the side's middle seven tenths.
const (
	edgeMaxTurn  = 3.0
	edgeTurnStep = 0.05
)

// sideEdges looks for the straight edge of the printed (or pasted)
// portrait along each side of the zone r (card px) of the luminance l.
// Order: left, top, right, bottom.
func sideEdges(l *plane, r image.Rectangle) [4]straightEdge {
	var out [4]straightEdge
	for side := 0; side < 4; side++ {
		vertical, pos, from, to, band := sideBand(r, side)
		e := lineSearch(l, vertical, pos, band, from, to)
		if vertical {
			e.Rot = -e.Rot
		}
		out[side] = e
	}
	return out
}

// sideBand is where sideEdges searches side (left, top, right, bottom)
// of the zone r: lines across (vertical) or along the card at pos, over
// from to to along them, within band px either side.
func sideBand(r image.Rectangle, side int) (vertical bool, pos, from, to, band int) {
	vertical = side%2 == 0
	switch side {
	case 0:
		pos = r.Min.X
	case 1:
		pos = r.Min.Y
	case 2:
		pos = r.Max.X
	case 3:
		pos = r.Max.Y
	}
	if vertical {
		return vertical, pos, r.Min.Y + r.Dy()*15/100, r.Max.Y - r.Dy()*15/100, max(r.Dx()/10, 4)
	}
	return vertical, pos, r.Min.X + r.Dx()*15/100, r.Max.X - r.Dx()*15/100, max(r.Dy()/10, 4)
}

// refinedEdges is es (sideEdges of the zone r) with each side's turn
// measured to a fraction of the search's step (refinedTurn) where it
// could be.
func refinedEdges(l *plane, r image.Rectangle, es [4]straightEdge) [4]straightEdge {
	for side := range es {
		vertical, pos, from, to, _ := sideBand(r, side)
		raw := es[side].Rot
		if vertical {
			raw = -raw
		}
		if t, ok := refinedTurn(l, vertical, pos, from, to, es[side], raw); ok {
			if vertical {
				t = -t
			}
			es[side].Rot = t
		}
	}
	return es
}

// lineSearch finds the straight line of strongest, best supported step in
// l across it near pos: vertical lines x = pos+d+(t-mid)*tan(a) for t in
// [from, to), or horizontal ones likewise. Rot is a (degrees).
func lineSearch(l *plane, vertical bool, pos, band, from, to int) straightEdge {
	// the step across the line at (u along the normal, t along the line)
	step := func(u, t int) float32 {
		if vertical {
			if u < 1 || u >= l.w-1 || t < 0 || t >= l.h {
				return 0
			}
			i := t*l.w + u
			return (l.p[i+1] - l.p[i-1]) / 2
		}
		if u < 1 || u >= l.h-1 || t < 0 || t >= l.w {
			return 0
		}
		i := u*l.w + t
		return (l.p[i+l.w] - l.p[i-l.w]) / 2
	}
	n := to - from
	if n < 8 {
		return straightEdge{}
	}
	// the steps of the band, once
	wdt := 2*band + 3
	g := make([]float32, wdt*n)
	var mags []float64
	for t := from; t < to; t++ {
		for k := 0; k < wdt; k++ {
			v := step(pos-band-1+k, t)
			g[(t-from)*wdt+k] = v
			if t%2 == 0 {
				mags = append(mags, math.Abs(float64(v)))
			}
		}
	}
	sort.Float64s(mags)
	typical := math.Max(mags[len(mags)/2], 0.5)
	mid := float64(n) / 2
	best := straightEdge{}
	bestScore := 0.0
	line := make([]float32, n)
	try := func(a float64) {
		ta := math.Tan(a * math.Pi / 180)
		for d := -band; d <= band; d++ {
			var s float64
			ok := true
			for t := 0; t < n; t++ {
				u := float64(d+band+1) + (float64(t)-mid)*ta
				u0 := int(math.Floor(u))
				if u0 < 0 || u0+1 >= wdt {
					ok = false
					break
				}
				f := float32(u - float64(u0))
				v := g[t*wdt+u0]*(1-f) + g[t*wdt+u0+1]*f
				line[t] = v
				s += float64(v)
			}
			if !ok {
				continue
			}
			mean := s / float64(n)
			if math.Abs(mean) <= bestScore {
				continue
			}
			half := float32(mean / 2)
			var sup int
			for _, v := range line {
				if (half > 0 && v >= half) || (half < 0 && v <= half) {
					sup++
				}
			}
			support := float64(sup) / float64(n)
			if sc := math.Abs(mean) * support; sc > bestScore {
				bestScore = sc
				best = straightEdge{Rot: math.Round(a*100) / 100, Step: math.Abs(mean), Support: support, Off: float64(d), Sign: math.Copysign(1, mean)}
			}
		}
	}
	// coarse turns first, then the neighbourhood of the best one finely
	coarse := 4 * edgeTurnStep
	for a := -edgeMaxTurn; a <= edgeMaxTurn+1e-9; a += coarse {
		try(a)
	}
	centre := best.Rot
	for a := centre - coarse + edgeTurnStep; a < centre+coarse-1e-9; a += edgeTurnStep {
		if math.Abs(a) <= edgeMaxTurn+1e-9 && math.Abs(a-centre) > 1e-9 {
			try(a)
		}
	}
	best.Contrast = best.Step / typical
	return best
}

// holoMeasure compares a hologram's colour detail where it lies over the
// portrait with where it lies over the card.
type holoMeasure struct {
	// visible is the colour texture of the hologram's part off the
	// portrait over that of the card beyond it (the same strip moved
	// out by its width): how well this photo shows the hologram.
	visible float64
	// cover is the colour texture of its part over the portrait over
	// that of its part off it.
	cover float64
}

// hologramCover measures the hologram zone h against the photo zone p
// (card px) on the card picture. A hologram diffracts light into colours
// that change across it: in a photo it is fine colour detail over
// whatever lies under it. A portrait laid over it, or put in its place
// in the picture, has only its own. ok is false when the hologram has no
// part over the portrait or none off it wide enough to measure.
func hologramCover(card image.Image, p, h image.Rectangle) (holoMeasure, bool) {
	b := card.Bounds()
	over := h.Intersect(p).Intersect(b)
	if over.Dx() < 8 || over.Dy() < 8 {
		return holoMeasure{}, false
	}
	// the widest strip of the hologram off the portrait, and the card
	// beyond it
	var strips [][2]image.Rectangle
	if h.Max.X > p.Max.X { // right
		s := image.Rect(p.Max.X, h.Min.Y, h.Max.X, h.Max.Y)
		strips = append(strips, [2]image.Rectangle{s, s.Add(image.Pt(s.Dx(), 0))})
	}
	if h.Min.X < p.Min.X { // left
		s := image.Rect(h.Min.X, h.Min.Y, p.Min.X, h.Max.Y)
		strips = append(strips, [2]image.Rectangle{s, s.Sub(image.Pt(s.Dx(), 0))})
	}
	if h.Max.Y > p.Max.Y { // below
		s := image.Rect(h.Min.X, p.Max.Y, h.Max.X, h.Max.Y)
		strips = append(strips, [2]image.Rectangle{s, s.Add(image.Pt(0, s.Dy()))})
	}
	if h.Min.Y < p.Min.Y { // above
		s := image.Rect(h.Min.X, h.Min.Y, h.Max.X, p.Min.Y)
		strips = append(strips, [2]image.Rectangle{s, s.Sub(image.Pt(0, s.Dy()))})
	}
	best := -1
	for i, s := range strips {
		s[0], s[1] = s[0].Intersect(b), s[1].Intersect(b)
		if s[0].Dx() < 6 || s[0].Dy() < 6 || s[1].Dx() < 6 || s[1].Dy() < 6 {
			continue
		}
		if best < 0 || min(s[0].Dx(), s[0].Dy()) > min(strips[best][0].Dx(), strips[best][0].Dy()) {
			best = i
		}
	}
	if best < 0 {
		return holoMeasure{}, false
	}
	off, beyond := strips[best][0].Intersect(b), strips[best][1].Intersect(b)
	co, cf, cb := colourDetail(card, over), colourDetail(card, off), colourDetail(card, beyond)
	if cf <= 0 || cb <= 0 {
		return holoMeasure{}, false
	}
	return holoMeasure{visible: cf / cb, cover: co / cf}, true
}

// colourDetail is the fine colour detail of the rectangle r of img: the
// opponent channels R-G and (R+G)/2-B band-passed between Gaussians of 1
// and 4 px, mean absolute value (grey levels).
func colourDetail(img image.Image, r image.Rectangle) float64 {
	g := r.Inset(-8).Intersect(img.Bounds())
	if r.Dx() < 4 || r.Dy() < 4 || g.Empty() {
		return 0
	}
	rg, yb := newPlane(g.Dx(), g.Dy()), newPlane(g.Dx(), g.Dy())
	for y := g.Min.Y; y < g.Max.Y; y++ {
		for x := g.Min.X; x < g.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			fr, fg, fb := float32(cr>>8), float32(cg>>8), float32(cb>>8)
			i := (y-g.Min.Y)*g.Dx() + x - g.Min.X
			rg.p[i], yb.p[i] = fr-fg, (fr+fg)/2-fb
		}
	}
	in := r.Sub(g.Min).Intersect(image.Rect(0, 0, g.Dx(), g.Dy()))
	var s float64
	for _, pl := range []*plane{rg.bandPass(1, 4), yb.bandPass(1, 4)} {
		for y := in.Min.Y; y < in.Max.Y; y++ {
			for x := in.Min.X; x < in.Max.X; x++ {
				s += math.Abs(float64(pl.p[y*pl.w+x]))
			}
		}
	}
	return s / float64(in.Dx()*in.Dy())
}

// refinedTurn measures the turn of the straight edge e, found by
// lineSearch (same vertical, pos, from and to; rot its turn in the
// search's terms), to a fraction of the search's step: along the line,
// every edgeRefineStep px, the edge's place across it is the peak of the
// step (e's sign) within edgeRefineReach px of the line, to a fraction of
// a pixel, and the turn is Theil and Sen's median slope of those places.
// lineSearch scores whole-pixel lines, and a photo laid turned by a
// quarter of a degree drifts by about a pixel over a side: the line at
// 0 degrees catches its step about as well as the true one. ok is false
// when too few places were found.
func refinedTurn(l *plane, vertical bool, pos, from, to int, e straightEdge, rot float64) (float64, bool) {
	n := to - from
	if n < 16 || e.Sign == 0 {
		return 0, false
	}
	ta := math.Tan(rot * math.Pi / 180)
	mid := float64(n) / 2
	step := func(u, t int) float64 {
		if vertical {
			if u < 1 || u >= l.w-1 || t < 0 || t >= l.h {
				return 0
			}
			i := t*l.w + u
			return float64(l.p[i+1]-l.p[i-1]) / 2
		}
		if u < 1 || u >= l.h-1 || t < 0 || t >= l.w {
			return 0
		}
		i := u*l.w + t
		return float64(l.p[i+l.w]-l.p[i-l.w]) / 2
	}
	var ts, us []float64
	for t := from; t < to; t += edgeRefineStep {
		c := float64(pos) + e.Off + (float64(t-from)-mid)*ta
		c0 := int(math.Round(c))
		// the step across, rows of edgeRefineStep px averaged (less
		// noise, the same line), in e's sign
		var g [2*edgeRefineReach + 3]float64
		for i := range g {
			u := c0 - edgeRefineReach - 1 + i
			for k := 0; k < edgeRefineStep && t+k < to; k++ {
				g[i] += step(u, t+k)
			}
			g[i] *= e.Sign / edgeRefineStep
		}
		// its peak, to a fraction of a pixel (a parabola through the
		// peak and its neighbours)
		pk := 1
		for i := 1; i < len(g)-1; i++ {
			if g[i] > g[pk] {
				pk = i
			}
		}
		if g[pk] < e.Step/2 || g[pk] < g[pk-1] || g[pk] < g[pk+1] {
			continue // the edge fades here (a shadow, a strand of hair)
		}
		frac := 0.0
		if d := g[pk-1] - 2*g[pk] + g[pk+1]; d < 0 {
			frac = 0.5 * (g[pk-1] - g[pk+1]) / d
		}
		ts = append(ts, float64(t)+float64(edgeRefineStep-1)/2)
		us = append(us, float64(c0-edgeRefineReach-1+pk)+frac)
	}
	if len(ts) < 8 {
		return 0, false
	}
	var slopes []float64
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			slopes = append(slopes, (us[j]-us[i])/(ts[j]-ts[i]))
		}
	}
	sort.Float64s(slopes)
	return math.Atan(slopes[len(slopes)/2]) * 180 / math.Pi, true
}

// Edge refinement: places every edgeRefineStep px along the side, the
// step's peak within edgeRefineReach px of the line.
const (
	edgeRefineStep  = 4
	edgeRefineReach = 3
)
