package vision

import (
	"image"
	"math"
	"slices"

	"github.com/disintegration/imaging"
)

// plane is a single-channel float image, the working type of the
// detectors: float keeps gradients exact and the code short.
type plane struct {
	w, h int
	p    []float32
}

func newPlane(w, h int) *plane { return &plane{w: w, h: h, p: make([]float32, w*h)} }

func (g *plane) at(x, y int) float32 {
	if x < 0 {
		x = 0
	} else if x >= g.w {
		x = g.w - 1
	}
	if y < 0 {
		y = 0
	} else if y >= g.h {
		y = g.h - 1
	}
	return g.p[y*g.w+x]
}

// luma converts any image to a luminance plane (0..255).
func luma(img image.Image) *plane {
	b := img.Bounds()
	g := newPlane(b.Dx(), b.Dy())
	switch m := img.(type) {
	case *image.YCbCr:
		for y := 0; y < g.h; y++ {
			row := m.Y[(y+b.Min.Y-m.Rect.Min.Y)*m.YStride+(b.Min.X-m.Rect.Min.X):]
			for x := 0; x < g.w; x++ {
				g.p[y*g.w+x] = float32(row[x])
			}
		}
	case *image.Gray:
		for y := 0; y < g.h; y++ {
			row := m.Pix[(y+b.Min.Y-m.Rect.Min.Y)*m.Stride+(b.Min.X-m.Rect.Min.X):]
			for x := 0; x < g.w; x++ {
				g.p[y*g.w+x] = float32(row[x])
			}
		}
	default:
		n := imaging.Clone(img)
		for y := 0; y < g.h; y++ {
			row := n.Pix[y*n.Stride:]
			for x := 0; x < g.w; x++ {
				r, gg, bb := row[4*x], row[4*x+1], row[4*x+2]
				g.p[y*g.w+x] = 0.299*float32(r) + 0.587*float32(gg) + 0.114*float32(bb)
			}
		}
	}
	return g
}

// toGray returns the plane as an 8-bit image.
func (g *plane) toGray() *image.Gray {
	out := image.NewGray(image.Rect(0, 0, g.w, g.h))
	for i, v := range g.p {
		out.Pix[i] = clamp8(v)
	}
	return out
}

func clamp8(v float32) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

// blur applies a separable Gaussian of the given sigma (edges clamped).
func (g *plane) blur(sigma float64) *plane {
	r := int(math.Ceil(2.5 * sigma))
	if r < 1 || g.w <= 2*r || g.h <= 2*r {
		return g
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
	tmp := newPlane(g.w, g.h)
	for y := 0; y < g.h; y++ {
		row := g.p[y*g.w : (y+1)*g.w]
		out := tmp.p[y*g.w : (y+1)*g.w]
		for x := 0; x < g.w; x++ {
			var s float32
			if x >= r && x < g.w-r {
				win := row[x-r : x+r+1]
				for i, kv := range k {
					s += kv * win[i]
				}
			} else {
				for i := -r; i <= r; i++ {
					s += k[i+r] * g.at(x+i, y)
				}
			}
			out[x] = s
		}
	}
	out := newPlane(g.w, g.h)
	for y := 0; y < g.h; y++ {
		dst := out.p[y*g.w : (y+1)*g.w]
		for i := -r; i <= r; i++ {
			yy := y + i
			if yy < 0 {
				yy = 0
			} else if yy >= g.h {
				yy = g.h - 1
			}
			src := tmp.p[yy*g.w : (yy+1)*g.w]
			kv := k[i+r]
			for x := range dst {
				dst[x] += kv * src[x]
			}
		}
	}
	return out
}

// sobel returns the gradient components.
func (g *plane) sobel() (gx, gy *plane) {
	gx, gy = newPlane(g.w, g.h), newPlane(g.w, g.h)
	w := g.w
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			if x == 0 || y == 0 || x == g.w-1 || y == g.h-1 {
				a, b, c := g.at(x-1, y-1), g.at(x, y-1), g.at(x+1, y-1)
				d, f := g.at(x-1, y), g.at(x+1, y)
				h, i, j := g.at(x-1, y+1), g.at(x, y+1), g.at(x+1, y+1)
				gx.p[y*w+x] = (c + 2*f + j) - (a + 2*d + h)
				gy.p[y*w+x] = (h + 2*i + j) - (a + 2*b + c)
				continue
			}
			o := y*w + x
			a, b, c := g.p[o-w-1], g.p[o-w], g.p[o-w+1]
			d, f := g.p[o-1], g.p[o+1]
			h, i, j := g.p[o+w-1], g.p[o+w], g.p[o+w+1]
			gx.p[o] = (c + 2*f + j) - (a + 2*d + h)
			gy.p[o] = (h + 2*i + j) - (a + 2*b + c)
		}
	}
	return gx, gy
}

// sobelAt is the gradient at one interior pixel.
func (g *plane) sobelAt(x, y int) (float32, float32) {
	w := g.w
	o := y*w + x
	a, b, c := g.p[o-w-1], g.p[o-w], g.p[o-w+1]
	d, f := g.p[o-1], g.p[o+1]
	h, i, j := g.p[o+w-1], g.p[o+w], g.p[o+w+1]
	return (c + 2*f + j) - (a + 2*d + h), (h + 2*i + j) - (a + 2*b + c)
}

// percentile of a sample of values (p in 0..1).
func percentile(vals []float32, p float64) float32 {
	if len(vals) == 0 {
		return 0
	}
	s := append([]float32(nil), vals...)
	slices.Sort(s)
	i := int(p * float64(len(s)-1))
	return s[i]
}

// resizePlane scales a plane by area averaging (downscale) or bilinear
// sampling (upscale) through imaging.
func resizeGray(img image.Image, w, h int) *plane {
	if w < 1 {
		w = 1
	}
	if h < 1 {
		h = 1
	}
	return luma(imaging.Resize(img, w, h, imaging.Box))
}
