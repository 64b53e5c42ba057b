package vision

import (
	"image"
	"math"

	"github.com/disintegration/imaging"
)

// PageAspect is the long side over the short side of A4 (and within 3 %
// of US letter, 1.294), the paper bills and statements are printed on.
const PageAspect = math.Sqrt2

// findSide is the long side a photo is reduced to before the page is found.
const findSide = 900

// RectifyPage finds a printed page in a photo and warps it upright to
// longSide pixels on its long side. Phone photos of a page are taken
// holding the page as it is read, so the page keeps the orientation it has
// in the photo: a page taller than wide in the photo comes out portrait,
// with the corner nearest the photo's top-left first. found is false when
// no page outline was seen; the photo is then returned as it is (a scan
// or a tight crop).
func RectifyPage(img image.Image, longSide int) (page *image.NRGBA, found bool) {
	// A page fills much of the photo and its edges are long: found on a
	// copy of findSide pixels its corners are within a few pixels of the
	// full-size ones, which OCR of a whole page does not notice, at a
	// third of the cost of finding it at full size (213 ms on a 1800 x
	// 2400 photo).
	b := img.Bounds()
	small, f := img, 1.0
	if long := max(b.Dx(), b.Dy()); long > findSide {
		f = float64(long) / findSide
		small = imaging.Resize(img, int(float64(b.Dx())/f+0.5), int(float64(b.Dy())/f+0.5), imaging.Box)
	}
	det := FindCard(small, PageAspect)
	if !det.Found || det.FillsFrame {
		return toNRGBA(img), false
	}
	q := det.Quad
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
	ordered := Quad{tl, tr, br, bl}
	wide := ordered.side(0) + ordered.side(2)
	tall := ordered.side(1) + ordered.side(3)
	w, h := longSide, int(float64(longSide)/PageAspect+0.5)
	if tall > wide {
		w, h = h, longSide
	}
	out, ok := warp(img, ordered, w, h)
	if !ok {
		return toNRGBA(img), false
	}
	return out, true
}

func toNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok {
		return n
	}
	return imaging.Clone(img)
}
