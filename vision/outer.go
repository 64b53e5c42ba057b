package vision

import "math"

// focalShare is the focal length assumed for a photo, as a share of its
// long side: phone cameras are about 0.75 to 1.2. The card's true shape
// depends on it only through the tilt, and weakly.
const focalShare = 1.0

// rectAspect is the long/short side ratio of the rectangle that a camera
// of focal length focalShare x the photo's long side, looking from the
// photo's centre, sees as q. The mean of opposite sides, the plain
// measure, is off by several per cent on a tilted card: enough to prefer
// an outline through an inner line to the card's own edge.
func rectAspect(q Quad, w, h int) float64 {
	f := focalShare * float64(max(w, h))
	cx, cy := float64(w)/2, float64(h)/2
	var r [4][3]float64
	for i, p := range q {
		r[i] = [3]float64{(p.X - cx) / f, (p.Y - cy) / f, 1}
	}
	// A rectangle's corners P_i = l_i r_i satisfy P0 + P2 = P1 + P3, so
	// k1 r1 + k3 r3 - k2 r2 = r0 with k_i = l_i / l0 (Cramer's rule).
	det3 := func(a, b, c [3]float64) float64 {
		return a[0]*(b[1]*c[2]-b[2]*c[1]) - a[1]*(b[0]*c[2]-b[2]*c[0]) + a[2]*(b[0]*c[1]-b[1]*c[0])
	}
	neg := func(a [3]float64) [3]float64 { return [3]float64{-a[0], -a[1], -a[2]} }
	d := det3(r[1], r[3], neg(r[2]))
	plain := func() float64 {
		a, b := (q.side(0)+q.side(2))/2, (q.side(1)+q.side(3))/2
		if b <= 0 || a <= 0 {
			return 0
		}
		return math.Max(a/b, b/a)
	}
	if math.Abs(d) < 1e-12 {
		return plain()
	}
	k1 := det3(r[0], r[3], neg(r[2])) / d
	k3 := det3(r[1], r[0], neg(r[2])) / d
	if k1 <= 0 || k3 <= 0 {
		return plain()
	}
	var s0, s1 float64
	for c := 0; c < 3; c++ {
		s0 += (k1*r[1][c] - r[0][c]) * (k1*r[1][c] - r[0][c])
		s1 += (k3*r[3][c] - r[0][c]) * (k3*r[3][c] - r[0][c])
	}
	if s0 <= 0 || s1 <= 0 {
		return plain()
	}
	a := math.Sqrt(s0 / s1)
	return math.Max(a, 1/a)
}

// shapeError is how far (log ratio) the rectangle seen as q is from the
// document's shape.
func shapeError(q Quad, aspect float64, w, h int) float64 {
	a := rectAspect(q, w, h)
	if a <= 0 {
		return math.Inf(1)
	}
	return math.Abs(math.Log(a / aspect))
}

// pickShifts chooses, among the combinations of a candidate line (or
// none) for each side, the outline to keep: one no worse in shape than
// the current one (within shapeSlack), as close to the document's shape
// as the best of them (within shapeSlack), and of those the largest. The
// sides are chosen together: a card with inner lines along two adjacent
// sides keeps its shape when both sides move out and loses it when only
// one does.
func pickShifts(cands [4][]float64, build func([4]float64) (Quad, bool), shapeErr func(Quad) float64) [4]float64 {
	type option struct {
		shift [4]float64
		err   float64
		area  float64
	}
	var opts []option
	var rec func(i int, s [4]float64)
	rec = func(i int, s [4]float64) {
		if i == 4 {
			q, ok := build(s)
			if ok {
				opts = append(opts, option{s, shapeErr(q), q.area()})
			}
			return
		}
		rec(i+1, s)
		for _, c := range cands[i] {
			s[i] = c
			rec(i+1, s)
		}
	}
	rec(0, [4]float64{})
	if len(opts) == 0 {
		return [4]float64{}
	}
	cur := opts[0].err
	best := math.Inf(1)
	for _, o := range opts {
		if o.err < cur+shapeSlack {
			best = math.Min(best, o.err)
		}
	}
	pick := opts[0]
	for _, o := range opts {
		if o.err < cur+shapeSlack && o.err < best+shapeSlack && o.area > pick.area {
			pick = o
		}
	}
	return pick.shift
}
