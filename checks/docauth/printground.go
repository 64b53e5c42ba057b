package docauth

import (
	"image"
	"math"
)

// ground is the card's surface around one printed value: just around its
// letters (within 0.15 of their height of the reader's box) and a little
// farther out (0.55 to 1.1 heights), ink left out. An issuer prints the
// values over the card's background as it is; a forger who scrapes a value
// off, covers it with correction, a sticker or a printed patch, or paints
// the old value over in an editor leaves the surface right around the new
// value unlike the card beyond it, and it is usually lighter (the patch
// is paper or a light tint over the card's artwork).
type ground struct {
	// In and Out are the surface's median luminance just around the
	// value and farther out.
	In, Out float64
	// TexIn and TexOut are the surface's fine texture in the same rings:
	// the median absolute difference of a pixel from its four
	// neighbours' mean (grey levels), where all five are surface.
	TexIn, TexOut float64
	// Tex2In and Tex2Out: the same on the surface smoothed over 3 x 3
	// pixels, against its neighbours two pixels away (a camera's noise
	// averaged down, the artwork's fine lines kept).
	Tex2In, Tex2Out float64
	ok, texOK       bool
}

// flatness is how much finer the texture farther out is than just around
// the value (log ratio; a floor of 0.3 grey levels keeps a surface without
// any texture, a rendering without noise, from dividing by nothing), the
// larger of the pixel and the smoothed measure: the first sees a patch on
// a sharp capture, the second through a noisy one. ok is false when
// either ring had too little surface.
func (g ground) flatness() (float64, bool) {
	if !g.texOK {
		return 0, false
	}
	const floor = 0.3
	a := math.Log((g.TexOut + floor) / (g.TexIn + floor))
	b := math.Log((g.Tex2Out + floor) / (g.Tex2In + floor))
	return math.Max(a, b), true
}

// lift is how much lighter the surface just around the value is than
// farther out.
func (g ground) lift() float64 { return g.In - g.Out }

// measureGround measures the surface around the value printed in box
// (card px) of a rectified side whose luminance is l; height is the
// value's glyph height (measureValue's). Ink is what is darker than Otsu's
// threshold of the value's own box, grown by a fifth of the glyph height
// (the letters' blurred edges); what lies farther out and is as dark (a
// caption, another value) is left out the same way.
func measureGround(l *plane, box image.Rectangle, height float64) ground {
	var g ground
	if height < 5 {
		return g
	}
	R := box.Inset(-int(math.Ceil(1.1 * height))).Intersect(image.Rect(0, 0, l.w, l.h))
	if R.Dx() < 8 || R.Dy() < 8 {
		return g
	}
	th, n := l.inkLevel(box)
	if n == 0 {
		return g
	}
	w, h := R.Dx(), R.Dy()
	ink := make([]bool, w*h)
	for y := 0; y < h; y++ {
		row := l.p[(R.Min.Y+y)*l.w+R.Min.X:]
		for x := 0; x < w; x++ {
			ink[y*w+x] = row[x] < th
		}
	}
	near := dilate(ink, w, h, max(2, int(height/5)))
	inB := box.Inset(-int(math.Ceil(0.15 * height)))
	outB := box.Inset(-int(math.Ceil(0.55 * height)))
	// medians, not means: print lighter than the ink's threshold (a
	// caption in a light colour just above a value, held-out
	// tanzania_national_id) is a small part of either ring
	var in, out ring
	// the surface smoothed over 3 x 3, over R (separable: rows of three,
	// then three rows)
	row3 := make([]float32, w*h)
	for y := 0; y < h; y++ {
		src := l.p[(R.Min.Y+y)*l.w+R.Min.X:]
		dst := row3[y*w:]
		for x := 1; x < w-1; x++ {
			dst[x] = src[x-1] + src[x] + src[x+1]
		}
	}
	box3 := make([]float32, w*h)
	for y := 1; y < h-1; y++ {
		a, b, c, dst := row3[(y-1)*w:], row3[y*w:], row3[(y+1)*w:], box3[y*w:]
		for x := 1; x < w-1; x++ {
			dst[x] = (a[x] + b[x] + c[x]) / 9
		}
	}
	clear3 := func(x, y int) bool { // no ink within 3 px of (x, y) along the cross
		return x >= 3 && y >= 3 && x < w-3 && y < h-3 && !near[y*w+x-2] && !near[y*w+x+2] && !near[(y-2)*w+x] && !near[(y+2)*w+x]
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if near[y*w+x] {
				continue
			}
			pt := image.Pt(R.Min.X+x, R.Min.Y+y)
			i := pt.Y*l.w + pt.X
			v := clampByte(l.p[i])
			t := -1
			if x > 0 && y > 0 && x < w-1 && y < h-1 && !near[y*w+x-1] && !near[y*w+x+1] && !near[(y-1)*w+x] && !near[(y+1)*w+x] {
				d := l.p[i] - (l.p[i-1]+l.p[i+1]+l.p[i-l.w]+l.p[i+l.w])/4
				t = min(255, int(math.Abs(float64(d))*8))
			}
			u := -1
			if clear3(x, y) {
				j := y*w + x
				d := box3[j] - (box3[j-2]+box3[j+2]+box3[j-2*w]+box3[j+2*w])/4
				u = min(255, int(math.Abs(float64(d))*8))
			}
			switch {
			case pt.In(inB):
				in.add(v, t, u)
			case !pt.In(outB):
				out.add(v, t, u)
			}
		}
	}
	// too little surface to compare (a value whose letters fill its box,
	// or one at the card's edge)
	if in.nLum < 20 || out.nLum < 20 {
		return g
	}
	g.In, g.Out, g.ok = histMedian(in.lum[:], in.nLum), histMedian(out.lum[:], out.nLum), true
	if in.nFine >= 20 && out.nFine >= 20 && in.nCoarse >= 20 && out.nCoarse >= 20 {
		g.TexIn, g.TexOut = histMedian(in.fine[:], in.nFine)/8, histMedian(out.fine[:], out.nFine)/8
		g.Tex2In, g.Tex2Out = histMedian(in.coarse[:], in.nCoarse)/8, histMedian(out.coarse[:], out.nCoarse)/8
		g.texOK = true
	}
	return g
}

// ring counts one ring of surface around a value: its luminance, and its
// fine and coarse texture where they could be measured (-1 where ink was
// too near), each a histogram with its count.
type ring struct {
	lum, fine, coarse    [256]int
	nLum, nFine, nCoarse int
}

func (r *ring) add(v, fine, coarse int) {
	r.lum[v]++
	r.nLum++
	if fine >= 0 {
		r.fine[fine]++
		r.nFine++
	}
	if coarse >= 0 {
		r.coarse[coarse]++
		r.nCoarse++
	}
}

// histMedian is the median of n values counted in hist (one bin per
// grey level), interpolated within its bin.
func histMedian(hist []int, n int) float64 {
	half := float64(n) / 2
	acc := 0.0
	for i, c := range hist {
		if c > 0 && acc+float64(c) >= half {
			return float64(i) + (half-acc)/float64(c)
		}
		acc += float64(c)
	}
	return float64(len(hist) - 1)
}

// dilate grows mask (w x h) by r pixels each way (a square).
func dilate(mask []bool, w, h, r int) []bool {
	tmp := make([]bool, len(mask))
	for y := 0; y < h; y++ {
		row, out := mask[y*w:(y+1)*w], tmp[y*w:(y+1)*w]
		last := -r - 1
		for x := 0; x < w; x++ {
			if row[x] {
				last = x
			}
			out[x] = x-last <= r
		}
		last = w + r
		for x := w - 1; x >= 0; x-- {
			if row[x] {
				last = x
			}
			out[x] = out[x] || last-x <= r
		}
	}
	res := make([]bool, len(mask))
	for x := 0; x < w; x++ {
		last := -r - 1
		for y := 0; y < h; y++ {
			if tmp[y*w+x] {
				last = y
			}
			res[y*w+x] = y-last <= r
		}
		last = h + r
		for y := h - 1; y >= 0; y-- {
			if tmp[y*w+x] {
				last = y
			}
			res[y*w+x] = res[y*w+x] || last-y <= r
		}
	}
	return res
}
