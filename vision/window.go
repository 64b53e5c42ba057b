package vision

import (
	"image"
	"math"

	"github.com/disintegration/imaging"
)

// window is a part of an image's red, green and blue planes, addressed in
// the whole image's pixel coordinates: the refinement only looks within a
// few pixels of each side, and converting the whole photo for it cost more
// than the rest of the refinement.
type window struct {
	rgb    [3]*plane
	x0, y0 int // where rgb's first pixel lies in the image
}

// fullWindow is the window over planes of a whole image.
func fullWindow(rgb [3]*plane) window {
	return window{rgb: rgb}
}

// in tells whether (x, y) lies in the window (which lies in the image).
func (v window) in(x, y int) bool {
	x, y = x-v.x0, y-v.y0
	return x >= 0 && y >= 0 && x < v.rgb[0].w && y < v.rgb[0].h
}

// interior tells whether (x, y) and its eight neighbours lie in the
// window, so that a gradient can be taken there.
func (v window) interior(x, y int) bool {
	x, y = x-v.x0, y-v.y0
	return x >= 1 && y >= 1 && x < v.rgb[0].w-1 && y < v.rgb[0].h-1
}

// at is the value of plane c at (x, y), which must be in the window.
func (v window) at(c, x, y int) float32 {
	p := v.rgb[c]
	return p.p[(y-v.y0)*p.w+x-v.x0]
}

// sobel is the gradient of plane c at (x, y), which must be interior.
func (v window) sobel(c, x, y int) (float32, float32) {
	return v.rgb[c].sobelAt(x-v.x0, y-v.y0)
}

// stripWindow holds the pixels of img within margin of the segment a-b
// (image coordinates relative to img's bounds), clipped to the image. The
// values are those imaging.Clone gives, so nothing read through the window
// differs from reading planes of the whole image.
func stripWindow(img image.Image, a, b Point, margin float64) window {
	bd := img.Bounds()
	r := image.Rect(
		int(math.Floor(math.Min(a.X, b.X)-margin)), int(math.Floor(math.Min(a.Y, b.Y)-margin)),
		int(math.Ceil(math.Max(a.X, b.X)+margin))+1, int(math.Ceil(math.Max(a.Y, b.Y)+margin))+1,
	).Intersect(image.Rect(0, 0, bd.Dx(), bd.Dy()))
	return window{rgb: planesOf(img, r.Add(bd.Min)), x0: r.Min.X, y0: r.Min.Y}
}

// planesOf converts the rectangle r of img (in img's coordinates) to red,
// green and blue planes. A JPEG's YCbCr is converted directly, with the
// standard library's integer conversion (the one imaging uses).
func planesOf(img image.Image, r image.Rectangle) [3]*plane {
	m, ok := img.(*image.YCbCr)
	if !ok {
		return channels(imaging.Crop(img, r))
	}
	out := [3]*plane{newPlane(r.Dx(), r.Dy()), newPlane(r.Dx(), r.Dy()), newPlane(r.Dx(), r.Dy())}
	row := make([]uint8, 3*r.Dx())
	i := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		rgbRow(row, m, r.Min.X, r.Max.X, y)
		for x := 0; x < r.Dx(); x++ {
			out[0].p[i], out[1].p[i], out[2].p[i] = float32(row[3*x]), float32(row[3*x+1]), float32(row[3*x+2])
			i++
		}
	}
	return out
}
