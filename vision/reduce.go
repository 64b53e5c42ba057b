package vision

import (
	"image"
	"math"

	"github.com/disintegration/imaging"
)

// reduced returns img resized to w x h as red, green and blue planes, with
// the values channels(imaging.Resize(img, w, h, imaging.Box)) gives. A
// JPEG's YCbCr is converted and reduced in one pass without imaging's
// intermediate images and goroutines: for the detector's 480 px image of a
// phone photo that took 20 ms a side, as much as the outline search.
func reduced(img image.Image, w, h int) [3]*plane {
	m, ok := img.(*image.YCbCr)
	if !ok || w > m.Rect.Dx() || h > m.Rect.Dy() {
		return channels(imaging.Resize(img, w, h, imaging.Box))
	}
	sw, sh := m.Rect.Dx(), m.Rect.Dy()
	across, down := boxTaps(w, sw), boxTaps(h, sh)
	// First across each row (8-bit, as imaging keeps its intermediate),
	// then down each column.
	tmp := make([]uint8, 3*w*sh)
	line := make([]uint8, 3*sw)
	for y := 0; y < sh; y++ {
		rgbRow(line, m, m.Rect.Min.X, m.Rect.Max.X, y+m.Rect.Min.Y)
		boxPass(tmp[3*w*y:3*w*(y+1)], 3, line, 3, across)
	}
	out := [3]*plane{newPlane(w, h), newPlane(w, h), newPlane(w, h)}
	dst := make([]uint8, 3*h)
	for x := 0; x < w; x++ {
		boxPass(dst, 3, tmp[3*x:], 3*w, down)
		for y := 0; y < h; y++ {
			for c := range out {
				out[c].p[y*w+x] = float32(dst[3*y+c])
			}
		}
	}
	return out
}

// tap is the run of source pixels [from, to] averaged into one output
// pixel, each with weight wt.
type tap struct {
	from, to int
	wt       float64
}

// boxTaps are the taps of imaging's Box filter from n source pixels to
// size: the source pixels whose centres lie within half an output pixel
// of the output pixel's centre, equally weighted.
func boxTaps(size, n int) []tap {
	du := float64(n) / float64(size)
	scale := math.Max(du, 1)
	reach := math.Ceil(scale * 0.5)
	out := make([]tap, size)
	for v := range out {
		fu := (float64(v)+0.5)*du - 0.5
		t := tap{from: -1}
		for u := max(0, int(math.Ceil(fu-reach))); u <= min(n-1, int(math.Floor(fu+reach))); u++ {
			if math.Abs((float64(u)-fu)/scale) <= 0.5 {
				if t.from < 0 {
					t.from = u
				}
				t.to = u
			}
		}
		t.wt = 1 / float64(t.to-t.from+1)
		out[v] = t
	}
	return out
}

// boxPass averages src (pixels of 3 channels, stride sstride bytes apart)
// into dst by taps. The arithmetic is imaging's for an opaque image, to
// the bit: each sample weighted by 255 times its weight, the sum divided
// by the sum of those, rounded half up.
func boxPass(dst []uint8, dstride int, src []uint8, sstride int, taps []tap) {
	for v, t := range taps {
		aw := 255 * t.wt
		var r, g, b, a float64
		for u := t.from; u <= t.to; u++ {
			s := src[u*sstride : u*sstride+3 : u*sstride+3]
			r += float64(s[0]) * aw
			g += float64(s[1]) * aw
			b += float64(s[2]) * aw
			a += aw
		}
		inv := 1 / a
		d := dst[v*dstride : v*dstride+3 : v*dstride+3]
		d[0], d[1], d[2] = round8(r*inv), round8(g*inv), round8(b*inv)
	}
}

// round8 rounds half up into 0..255.
func round8(x float64) uint8 {
	v := int64(x + 0.5)
	if v > 255 {
		return 255
	}
	if v > 0 {
		return uint8(v)
	}
	return 0
}

// rgbRow converts pixels x0..x1-1 of row y of m to 8-bit RGB in dst, with
// the standard library's integer YCbCr conversion (color.YCbCrToRGB), the
// chroma terms worked out once per chroma sample rather than per pixel.
func rgbRow(dst []uint8, m *image.YCbCr, x0, x1, y int) {
	yi := m.YOffset(x0, y)
	ys := m.Y[yi : yi+x1-x0]
	// Horizontal chroma subsampling: one chroma sample per pixel or per
	// pair of pixels (counted from the image's origin).
	half := m.SubsampleRatio == image.YCbCrSubsampleRatio422 || m.SubsampleRatio == image.YCbCrSubsampleRatio420
	if !half && m.SubsampleRatio != image.YCbCrSubsampleRatio444 && m.SubsampleRatio != image.YCbCrSubsampleRatio440 {
		// 4:1:1 and 4:1:0 are rare in cameras: per pixel.
		for i := range ys {
			ci := m.COffset(x0+i, y)
			cr, cg, cb := chroma(m.Cb[ci], m.Cr[ci])
			dst[3*i], dst[3*i+1], dst[3*i+2] = ycc(int32(ys[i])*0x10101, cr, cg, cb)
		}
		return
	}
	ci, prev := m.COffset(x0, y), x0/2
	cr, cg, cb := chroma(m.Cb[ci], m.Cr[ci])
	for i := range ys {
		if x := x0 + i; i > 0 {
			next := ci + 1
			if half {
				next = ci + x/2 - prev
				prev = x / 2
			}
			if next != ci {
				ci = next
				cr, cg, cb = chroma(m.Cb[ci], m.Cr[ci])
			}
		}
		d := dst[3*i : 3*i+3 : 3*i+3]
		d[0], d[1], d[2] = ycc(int32(ys[i])*0x10101, cr, cg, cb)
	}
}

// chroma is the chroma's share of red, green and blue (16.16 fixed point).
func chroma(cb, cr uint8) (int32, int32, int32) {
	cb1, cr1 := int32(cb)-128, int32(cr)-128
	return 91881 * cr1, -22554*cb1 - 46802*cr1, 116130 * cb1
}

// ycc adds luma (16.16, scaled by 0x10101) to the chroma terms and clamps.
func ycc(yy, cr, cg, cb int32) (uint8, uint8, uint8) {
	return clampFixed(yy + cr), clampFixed(yy + cg), clampFixed(yy + cb)
}

func clampFixed(v int32) uint8 {
	if uint32(v)&0xff000000 == 0 {
		return uint8(v >> 16)
	}
	return uint8(^(v >> 31))
}
