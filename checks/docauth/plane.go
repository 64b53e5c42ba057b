package docauth

import (
	"image"
	"math"

	"github.com/disintegration/imaging"
)

// plane is one channel of a picture as floats, for the measurements of
// the tampering cues.
type plane struct {
	w, h int
	p    []float32
}

func newPlane(w, h int) *plane { return &plane{w: w, h: h, p: make([]float32, w*h)} }

// lumaOf is the luminance (Rec. 601 weights) of img.
func lumaOf(img image.Image) *plane {
	n := imaging.Clone(img)
	b := n.Bounds()
	pl := newPlane(b.Dx(), b.Dy())
	for y := 0; y < pl.h; y++ {
		row := n.Pix[y*n.Stride:]
		for x := 0; x < pl.w; x++ {
			q := row[4*x:]
			pl.p[y*pl.w+x] = 0.299*float32(q[0]) + 0.587*float32(q[1]) + 0.114*float32(q[2])
		}
	}
	return pl
}

// resized is pl resampled to w x h by area averaging when shrinking and
// bilinearly when enlarging.
func (pl *plane) resized(w, h int) *plane {
	if w < 1 || h < 1 {
		return newPlane(max(w, 1), max(h, 1))
	}
	out := newPlane(w, h)
	sx, sy := float64(pl.w)/float64(w), float64(pl.h)/float64(h)
	for y := 0; y < h; y++ {
		y0, y1 := float64(y)*sy, float64(y+1)*sy
		for x := 0; x < w; x++ {
			x0, x1 := float64(x)*sx, float64(x+1)*sx
			if sx <= 1 && sy <= 1 {
				out.p[y*w+x] = pl.bilinear((x0+x1)/2-0.5, (y0+y1)/2-0.5)
				continue
			}
			var s, n float64
			for yy := int(y0); yy < int(math.Ceil(y1)) && yy < pl.h; yy++ {
				for xx := int(x0); xx < int(math.Ceil(x1)) && xx < pl.w; xx++ {
					s += float64(pl.p[yy*pl.w+xx])
					n++
				}
			}
			if n > 0 {
				out.p[y*w+x] = float32(s / n)
			}
		}
	}
	return out
}

// bilinear samples pl at (x, y), clamped to its edges.
func (pl *plane) bilinear(x, y float64) float32 {
	x = math.Max(0, math.Min(x, float64(pl.w-1)))
	y = math.Max(0, math.Min(y, float64(pl.h-1)))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, pl.w-1), min(y0+1, pl.h-1)
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	a := pl.p[y0*pl.w+x0] + (pl.p[y0*pl.w+x1]-pl.p[y0*pl.w+x0])*fx
	b := pl.p[y1*pl.w+x0] + (pl.p[y1*pl.w+x1]-pl.p[y1*pl.w+x0])*fx
	return a + (b-a)*fy
}

// blurred is pl under a Gaussian of standard deviation sigma (separable,
// edges clamped).
func (pl *plane) blurred(sigma float64) *plane {
	r := int(math.Ceil(3 * sigma))
	if r < 1 {
		out := newPlane(pl.w, pl.h)
		copy(out.p, pl.p)
		return out
	}
	k := make([]float32, 2*r+1)
	var sum float32
	for i := -r; i <= r; i++ {
		k[i+r] = float32(math.Exp(-float64(i*i) / (2 * sigma * sigma)))
		sum += k[i+r]
	}
	for i := range k {
		k[i] /= sum
	}
	tmp := newPlane(pl.w, pl.h)
	for y := 0; y < pl.h; y++ {
		row := pl.p[y*pl.w : (y+1)*pl.w]
		for x := 0; x < pl.w; x++ {
			var a float32
			for i := -r; i <= r; i++ {
				a += k[i+r] * row[min(max(x+i, 0), pl.w-1)]
			}
			tmp.p[y*pl.w+x] = a
		}
	}
	out := newPlane(pl.w, pl.h)
	for y := 0; y < pl.h; y++ {
		for x := 0; x < pl.w; x++ {
			var a float32
			for i := -r; i <= r; i++ {
				a += k[i+r] * tmp.p[min(max(y+i, 0), pl.h-1)*pl.w+x]
			}
			out.p[y*pl.w+x] = a
		}
	}
	return out
}

// bandPass is the difference of two Gaussians: detail between the scales
// s1 and s2 (s1 < s2), without the flat tint or slow shading.
func (pl *plane) bandPass(s1, s2 float64) *plane {
	a, b := pl.blurred(s1), pl.blurred(s2)
	for i := range a.p {
		a.p[i] -= b.p[i]
	}
	return a
}

// sub is the rectangle r of pl (clipped).
func (pl *plane) sub(r image.Rectangle) *plane {
	r = r.Intersect(image.Rect(0, 0, pl.w, pl.h))
	out := newPlane(r.Dx(), r.Dy())
	for y := 0; y < out.h; y++ {
		copy(out.p[y*out.w:(y+1)*out.w], pl.p[(r.Min.Y+y)*pl.w+r.Min.X:(r.Min.Y+y)*pl.w+r.Max.X])
	}
	return out
}
