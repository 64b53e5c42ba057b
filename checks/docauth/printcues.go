package docauth

import (
	"image"
	"math"
	"sort"
)

// valuePrint is how one printed value stands on the rectified card.
type valuePrint struct {
	// Height is the glyphs' height (the 80th percentile of the ink
	// components' heights: capitals and digits, not dots), px.
	Height float64
	// Tilt is the slope of the glyphs' feet and heads, degrees.
	Tilt float64
	// Glyphs is how many ink components the tilt rests on.
	Glyphs int
}

// measureValue measures the value printed in box (card px) of a
// rectified side whose luminance is l. ok is false when too little ink
// was found to measure.
func measureValue(l *plane, box image.Rectangle) (valuePrint, bool) {
	var vp valuePrint
	h := box.Dy()
	if h < 6 || box.Dx() < 6 {
		return vp, false
	}
	// the box a little larger: OCR's boxes hug the ink
	pad := max(h/6, 2)
	r := image.Rect(box.Min.X-pad, box.Min.Y-pad, box.Max.X+pad, box.Max.Y+pad).Intersect(image.Rect(0, 0, l.w, l.h))
	w, hh := r.Dx(), r.Dy()
	// Otsu's threshold on the box's luminance: the ink is the dark class
	th, _ := l.inkLevel(r)
	ink := make([]bool, w*hh)
	for y := 0; y < hh; y++ {
		for x := 0; x < w; x++ {
			ink[y*w+x] = l.p[(r.Min.Y+y)*l.w+r.Min.X+x] < th
		}
	}
	comps := components(ink, w, hh)
	// glyphs: components of some size, not the box's frame or a speck
	var hs []float64
	for _, c := range comps {
		if c.n >= 4 && c.h() >= 3 && c.h() <= hh-1 {
			hs = append(hs, float64(c.h()))
		}
	}
	if len(hs) < 3 {
		return vp, false
	}
	sort.Float64s(hs)
	vp.Height = hs[len(hs)*8/10]
	var glyphs []comp
	for _, c := range comps {
		if float64(c.h()) >= 0.6*vp.Height && float64(c.h()) <= 1.4*vp.Height && c.n >= 4 {
			glyphs = append(glyphs, c)
		}
	}
	vp.Glyphs = len(glyphs)
	if len(glyphs) < 3 {
		return vp, false
	}
	// feet and heads: lines through the glyphs' bottoms and tops, each
	// over the glyphs near its median (descenders, dots and short letters
	// left out); the tilt is their mean
	vp.Tilt = glyphTilt(l, r, ink, w, glyphs, vp.Height, th)
	return vp, true
}

// glyphTilt is the slope (degrees) of the glyphs' feet and heads: in
// each column of each glyph whose foot (head) lies near the median, the
// ink's lowest (highest) edge to a fraction of a pixel (where the
// luminance crosses the threshold th), and the median of the slopes
// between those points a glyph or more apart (Theil and Sen's estimator,
// which a dot or a round letter's foot does not pull). r is the box on the
// card, ink its mask (w wide).
func glyphTilt(l *plane, r image.Rectangle, ink []bool, w int, glyphs []comp, height float64, th float32) float64 {
	lum := func(x, y int) float32 { return l.p[(r.Min.Y+y)*l.w+r.Min.X+x] }
	var slopes []float64
	for _, foot := range []bool{true, false} {
		edge := func(c comp) int {
			if foot {
				return c.y1
			}
			return c.y0
		}
		ys := make([]float64, len(glyphs))
		for i, c := range glyphs {
			ys[i] = float64(edge(c))
		}
		sort.Float64s(ys)
		med := ys[len(ys)/2]
		type pt struct{ x, y float64 }
		var pts []pt
		for _, c := range glyphs {
			if math.Abs(float64(edge(c))-med) > 0.25*height {
				continue
			}
			for x := c.x0; x <= c.x1; x++ {
				// the column's outermost ink pixel of this glyph
				y := -1
				if foot {
					for yy := c.y1; yy >= c.y0; yy-- {
						if ink[yy*w+x] {
							y = yy
							break
						}
					}
				} else {
					for yy := c.y0; yy <= c.y1; yy++ {
						if ink[yy*w+x] {
							y = yy
							break
						}
					}
				}
				// only the flat part of the foot (head)
				if y < 0 || math.Abs(float64(y-edge(c))) > 0.08*height+1 {
					continue
				}
				next := y + 1
				if !foot {
					next = y - 1
				}
				fy := float64(y)
				if next >= 0 && next < r.Dy() {
					a, b := lum(x, y), lum(x, next)
					if b != a {
						f := float64((th - a) / (b - a))
						f = math.Max(0, math.Min(1, f))
						if foot {
							fy += f
						} else {
							fy -= f
						}
					}
				}
				pts = append(pts, pt{float64(x), fy})
			}
		}
		// slopes between points at least a glyph's width apart, a sample
		step := max(len(pts)/60, 1)
		for i := 0; i < len(pts); i += step {
			for j := i + step; j < len(pts); j += step {
				dx := pts[j].x - pts[i].x
				if dx < 0.6*height {
					continue
				}
				slopes = append(slopes, (pts[j].y-pts[i].y)/dx)
			}
		}
	}
	if len(slopes) < 5 {
		return 0
	}
	sort.Float64s(slopes)
	return math.Atan(slopes[len(slopes)/2]) * 180 / math.Pi
}

// comp is a connected component of ink (8-connected).
type comp struct {
	x0, y0, x1, y1 int // inclusive bounds
	n              int
	pix            []int
}

func (c comp) h() int { return c.y1 - c.y0 + 1 }

// components labels the 8-connected components of mask (w x h).
func components(mask []bool, w, h int) []comp {
	seen := make([]bool, len(mask))
	var out []comp
	var stack []int
	for i, m := range mask {
		if !m || seen[i] {
			continue
		}
		c := comp{x0: i % w, y0: i / w, x1: i % w, y1: i / w}
		stack = append(stack[:0], i)
		seen[i] = true
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := j%w, j/w
			c.pix = append(c.pix, j)
			c.n++
			c.x0, c.x1 = min(c.x0, x), max(c.x1, x)
			c.y0, c.y1 = min(c.y0, y), max(c.y1, y)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						continue
					}
					k := yy*w + xx
					if mask[k] && !seen[k] {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// inkLevel is Otsu's threshold of the luminance in r (clipped to the
// plane), the level under which its dark class, the ink, lies, and the
// number of pixels it was taken over.
func (l *plane) inkLevel(r image.Rectangle) (float32, int) {
	r = r.Intersect(image.Rect(0, 0, l.w, l.h))
	var hist [256]int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			hist[clampByte(l.p[y*l.w+x])]++
		}
	}
	n := r.Dx() * r.Dy()
	return otsu(hist[:], n), n
}

// otsu is the threshold that best splits a histogram of n values in two.
func otsu(hist []int, n int) float32 {
	var sum float64
	for i, c := range hist {
		sum += float64(i * c)
	}
	var sumB, wB float64
	best, th := -1.0, 128
	for i, c := range hist {
		wB += float64(c)
		if wB == 0 {
			continue
		}
		wF := float64(n) - wB
		if wF == 0 {
			break
		}
		sumB += float64(i * c)
		mB, mF := sumB/wB, (sum-sumB)/wF
		if v := wB * wF * (mB - mF) * (mB - mF); v > best {
			best, th = v, i
		}
	}
	return float32(th) + 0.5
}

func clampByte(v float32) int {
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return int(v)
}
