package vision

import (
	"image"
	"math"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/internal/geom"
)

// Point is a position in image pixels.
type Point struct{ X, Y float64 }

// Quad is a card outline: corners in the order top-left, top-right,
// bottom-right, bottom-left of the card as it will be rectified (so the
// first side is a long side of a landscape card).
type Quad [4]Point

func (q Quad) side(i int) float64 {
	a, b := q[i], q[(i+1)%4]
	return math.Hypot(b.X-a.X, b.Y-a.Y)
}

// area is the polygon area (shoelace), positive for either winding.
func (q Quad) area() float64 {
	var s float64
	for i := 0; i < 4; i++ {
		a, b := q[i], q[(i+1)%4]
		s += a.X*b.Y - b.X*a.Y
	}
	return math.Abs(s) / 2
}

// homographyFrom solves for the transform taking src[i] to dst[i]. It
// returns false for degenerate corner sets.
func homographyFrom(src, dst [4]Point) (geom.Homography, bool) {
	var s, d [4][2]float64
	for i := range src {
		s[i], d[i] = [2]float64{src[i].X, src[i].Y}, [2]float64{dst[i].X, dst[i].Y}
	}
	return geom.HomographyFrom(s, d)
}

// warp renders the quad of src onto a w x h rectangle. When the quad is much
// larger than the output the source is first reduced by area averaging, so
// that bilinear sampling does not alias fine print.
func warp(src image.Image, q Quad, w, h int) (*image.NRGBA, bool) {
	scale := math.Max((q.side(0)+q.side(2))/2/float64(w), (q.side(1)+q.side(3))/2/float64(h))
	// Only the outline's bounding box is converted (and reduced): the
	// rest of the photo is never sampled, and converting a whole phone
	// photo cost about as much as the warp itself.
	minX, minY, maxX, maxY := q[0].X, q[0].Y, q[0].X, q[0].Y
	for _, p := range q[1:] {
		minX, minY = math.Min(minX, p.X), math.Min(minY, p.Y)
		maxX, maxY = math.Max(maxX, p.X), math.Max(maxY, p.Y)
	}
	b := image.Rect(int(math.Floor(minX))-2, int(math.Floor(minY))-2, int(math.Ceil(maxX))+3, int(math.Ceil(maxY))+3).Intersect(src.Bounds())
	if b.Empty() {
		return nil, false
	}
	var n *image.NRGBA
	if scale > 1.6 {
		f := 1.25 / scale
		n = imaging.Resize(imaging.Crop(src, b), int(float64(b.Dx())*f+0.5), 0, imaging.Box)
		fx := float64(n.Bounds().Dx()) / float64(b.Dx())
		fy := float64(n.Bounds().Dy()) / float64(b.Dy())
		for i := range q {
			q[i] = Point{(q[i].X-float64(b.Min.X))*fx + 0.5*fx - 0.5, (q[i].Y-float64(b.Min.Y))*fy + 0.5*fy - 0.5}
		}
	} else {
		n = imaging.Crop(src, b)
		for i := range q {
			q[i] = Point{q[i].X - float64(b.Min.X), q[i].Y - float64(b.Min.Y)}
		}
	}
	dst := [4]Point{{0, 0}, {float64(w), 0}, {float64(w), float64(h)}, {0, float64(h)}}
	hm, ok := homographyFrom(dst, q)
	if !ok {
		return nil, false
	}
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	opaque := n.Opaque()
	sw, sh := n.Bounds().Dx(), n.Bounds().Dy()
	for y := 0; y < h; y++ {
		o := out.Pix[y*out.Stride:]
		for x := 0; x < w; x++ {
			sx, sy := hm.Apply(float64(x)+0.5, float64(y)+0.5)
			sx -= 0.5
			sy -= 0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := float32(sx-float64(x0)), float32(sy-float64(y0))
			x1, y1 := x0+1, y0+1
			if x0 < 0 || y0 < 0 || x1 >= sw || y1 >= sh {
				x0, x1 = clampInt(x0, sw), clampInt(x1, sw)
				y0, y1 = clampInt(y0, sh), clampInt(y1, sh)
			}
			i00, i10 := y0*n.Stride+4*x0, y0*n.Stride+4*x1
			i01, i11 := y1*n.Stride+4*x0, y1*n.Stride+4*x1
			p00, p10 := n.Pix[i00:i00+4:i00+4], n.Pix[i10:i10+4:i10+4]
			p01, p11 := n.Pix[i01:i01+4:i01+4], n.Pix[i11:i11+4:i11+4]
			w00, w10, w01, w11 := (1-fx)*(1-fy), fx*(1-fy), (1-fx)*fy, fx*fy
			px := o[4*x : 4*x+4 : 4*x+4]
			px[0] = clamp8(w00*float32(p00[0]) + w10*float32(p10[0]) + w01*float32(p01[0]) + w11*float32(p11[0]))
			px[1] = clamp8(w00*float32(p00[1]) + w10*float32(p10[1]) + w01*float32(p01[1]) + w11*float32(p11[1]))
			px[2] = clamp8(w00*float32(p00[2]) + w10*float32(p10[2]) + w01*float32(p01[2]) + w11*float32(p11[2]))
			if opaque {
				// The weights sum to 1 within float32's precision, so an
				// opaque source gives 255 here.
				px[3] = 255
			} else {
				px[3] = clamp8(w00*float32(p00[3]) + w10*float32(p10[3]) + w01*float32(p01[3]) + w11*float32(p11[3]))
			}
		}
	}
	return out, true
}

func clampInt(v, n int) int {
	if v < 0 {
		return 0
	}
	if v >= n {
		return n - 1
	}
	return v
}

// contains tells whether every corner of r lies inside the convex q, or
// outside it by at most tol pixels.
func (q Quad) contains(r Quad, tol float64) bool {
	// Orientation of q: the sign of its corners' turn.
	a, b, c := q[0], q[1], q[2]
	sign := 1.0
	if (b.X-a.X)*(c.Y-b.Y)-(b.Y-a.Y)*(c.X-b.X) < 0 {
		sign = -1
	}
	for _, p := range r {
		for i := 0; i < 4; i++ {
			a, b := q[i], q[(i+1)%4]
			l := math.Hypot(b.X-a.X, b.Y-a.Y)
			if l == 0 {
				return false
			}
			// Signed distance of p from the side, positive inside.
			if d := sign * ((b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)) / l; d < -tol {
				return false
			}
		}
	}
	return true
}
