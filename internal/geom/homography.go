// Package geom holds the plane geometry that both the capture pipeline
// (vision, which rectifies a photographed card) and the synthetic corpus
// (internal/testkit/synth, which photographs a flat card) need: one solver, so the
// two cannot drift apart.
package geom

import "math"

// Homography maps the plane projectively: (x, y) goes to
// ((h0 x + h1 y + h2) / w, (h3 x + h4 y + h5) / w) with w = h6 x + h7 y + h8.
type Homography [9]float64

// Apply maps the point (x, y).
func (h Homography) Apply(x, y float64) (float64, float64) {
	w := h[6]*x + h[7]*y + h[8]
	if w == 0 {
		w = 1e-12 // the line sent to infinity; keep the result finite
	}
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w
}

// HomographyFrom solves for the homography taking src[i] to dst[i]. It
// returns false when the corners are degenerate (three in a line).
func HomographyFrom(src, dst [4][2]float64) (Homography, bool) {
	var a [8][9]float64
	for i := 0; i < 4; i++ {
		x, y, u, v := src[i][0], src[i][1], dst[i][0], dst[i][1]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	// Gauss-Jordan elimination with partial pivoting on the 8 x 8 system.
	for c := 0; c < 8; c++ {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return Homography{}, false
		}
		a[c], a[p] = a[p], a[c]
		for r := 0; r < 8; r++ {
			if r == c {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var h Homography
	for i := 0; i < 8; i++ {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h, true
}

// Inverse returns the homography that undoes h.
func (h Homography) Inverse() Homography {
	a, b, c, d, e, f, g, k, i := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]
	det := a*(e*i-f*k) - b*(d*i-f*g) + c*(d*k-e*g)
	return Homography{
		(e*i - f*k) / det, (c*k - b*i) / det, (b*f - c*e) / det,
		(f*g - d*i) / det, (a*i - c*g) / det, (c*d - a*f) / det,
		(d*k - e*g) / det, (b*g - a*k) / det, (a*e - b*d) / det,
	}
}
