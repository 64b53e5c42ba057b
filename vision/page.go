package vision

import (
	"image"
	"image/color"
	"math"

	"github.com/disintegration/imaging"
)

// PageAspect is the long side over the short side of A4 (and within 3 %
// of US letter, 1.294), the paper bills and statements are printed on.
const PageAspect = math.Sqrt2

// findSide is the long side a photo is reduced to before the page is found.
const findSide = 900

// RectifyPage finds a printed page in a photo (FindPage) and warps it
// upright to longSide pixels on its long side. found is false when no page
// outline was seen; the photo is then returned as it is (a scan or a tight
// crop).
func RectifyPage(img image.Image, longSide int) (page *image.NRGBA, found bool) {
	q, found := FindPage(img)
	if !found {
		return toNRGBA(img), false
	}
	wide := q.side(0) + q.side(2)
	tall := q.side(1) + q.side(3)
	w, h := longSide, int(float64(longSide)/PageAspect+0.5)
	if tall > wide {
		w, h = h, longSide
	}
	out, ok := warp(img, q, w, h)
	if !ok {
		return toNRGBA(img), false
	}
	return out, true
}

// FindPage finds the outline of a printed page in a photo and returns its
// corners in the photo's pixels, in the order top-left, top-right,
// bottom-right, bottom-left of the page as it is read. Phone photos of a
// page are taken holding the page as it is read, so the page keeps the
// orientation it has in the photo: the corner nearest the photo's top-left
// comes first. found is false when no outline was seen or the photo is the
// page itself (a scan or a tight crop).
func FindPage(img image.Image) (q Quad, found bool) {
	// A page fills much of the photo and its edges are long: found on a
	// copy of findSide pixels its corners are within a few pixels of the
	// full-size ones, which OCR of a whole page does not notice, at a
	// third of the cost of finding it at full size (213 ms on a 1800 x
	// 2400 photo).
	b := img.Bounds()
	small, f := img, 1.0
	if long := max(b.Dx(), b.Dy()); long > findSide {
		if m, ok := img.(*image.YCbCr); ok {
			// A JPEG: reduced by a whole factor straight from its planes
			// (to between half and all of findSide), without the generic
			// per-pixel conversion that cost 75 ms of CPU on a 1800 x
			// 2400 photo. A copy at the finder's own 480 px cost 35 ms
			// less but its corners lost address lines of 3 of 40 tuning
			// photos.
			k := (long + findSide - 1) / findSide
			small, f = shrinkYCbCr(m, k), float64(k)
		} else {
			f = float64(long) / findSide
			small = imaging.Resize(img, int(float64(b.Dx())/f+0.5), int(float64(b.Dy())/f+0.5), imaging.Box)
		}
	}
	det := FindCard(small, PageAspect)
	if !det.Found || det.FillsFrame {
		return Quad{}, false
	}
	q = det.Quad
	for i := range q {
		q[i] = Point{q[i].X*f + float64(b.Min.X), q[i].Y*f + float64(b.Min.Y)}
	}
	// Order the corners by where they are in the photo.
	var tl, tr, br, bl Point
	minSum, maxSum, minDiff, maxDiff := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range q {
		if s := p.X + p.Y; s < minSum {
			minSum, tl = s, p
		}
		if s := p.X + p.Y; s > maxSum {
			maxSum, br = s, p
		}
		if d := p.X - p.Y; d > maxDiff {
			maxDiff, tr = d, p
		}
		if d := p.X - p.Y; d < minDiff {
			minDiff, bl = d, p
		}
	}
	return Quad{tl, tr, br, bl}, true
}

// shrinkYCbCr reduces a YCbCr image by the factor k: each output pixel
// has the mean luminance of its k x k block and the colour at the block's
// centre (colour varies slowly; JPEG stores it at half resolution anyway).
func shrinkYCbCr(m *image.YCbCr, k int) *image.NRGBA {
	w, h := m.Rect.Dx()/k, m.Rect.Dy()/k
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	sum := make([]int, w)
	for oy := 0; oy < h; oy++ {
		clear(sum)
		for y := m.Rect.Min.Y + oy*k; y < m.Rect.Min.Y+(oy+1)*k; y++ {
			row := m.Y[m.YOffset(m.Rect.Min.X, y):]
			for ox := range sum {
				for _, v := range row[ox*k : ox*k+k] {
					sum[ox] += int(v)
				}
			}
		}
		o := out.Pix[oy*out.Stride:]
		for ox, s := range sum {
			ci := m.COffset(m.Rect.Min.X+ox*k+k/2, m.Rect.Min.Y+oy*k+k/2)
			r, g, b := color.YCbCrToRGB(uint8((s+k*k/2)/(k*k)), m.Cb[ci], m.Cr[ci])
			o[4*ox], o[4*ox+1], o[4*ox+2], o[4*ox+3] = r, g, b, 255
		}
	}
	return out
}

func toNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok {
		return n
	}
	return imaging.Clone(img)
}
