// Package degrade damages images the way a phone capture does (tilt,
// rescaling, heavy JPEG), so that readers tuned on clean specimens can be
// measured on versions of them they were not tuned on.
package degrade

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"

	"golang.org/x/image/draw"
)

// Turn rotates img by deg degrees (counter-clockwise for positive) about
// its centre onto a canvas of the same size, bilinear; uncovered corners
// take the colour of the top-left pixel.
func Turn(img image.Image, deg float64) image.Image {
	b := img.Bounds()
	src := image.NewRGBA(b)
	draw.Draw(src, b, img, b.Min, draw.Src)
	out := image.NewRGBA(b)
	cx, cy := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
	s, c := math.Sincos(deg * math.Pi / 180)
	fill := src.RGBAAt(b.Min.X, b.Min.Y)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := cx+dx*c+dy*s, cy-dx*s+dy*c
			ix, iy := int(math.Floor(sx)), int(math.Floor(sy))
			if ix < b.Min.X || iy < b.Min.Y || ix+1 >= b.Max.X || iy+1 >= b.Max.Y {
				out.SetRGBA(x, y, fill)
				continue
			}
			fx, fy := sx-float64(ix), sy-float64(iy)
			o := out.PixOffset(x, y)
			for k := 0; k < 4; k++ {
				a := float64(src.Pix[src.PixOffset(ix, iy)+k])*(1-fx) + float64(src.Pix[src.PixOffset(ix+1, iy)+k])*fx
				d := float64(src.Pix[src.PixOffset(ix, iy+1)+k])*(1-fx) + float64(src.Pix[src.PixOffset(ix+1, iy+1)+k])*fx
				out.Pix[o+k] = uint8(a*(1-fy) + d*fy + 0.5)
			}
		}
	}
	return out
}

// Rescale resizes img by factor f (Catmull-Rom).
func Rescale(img image.Image, f float64) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, max(1, int(float64(b.Dx())*f)), max(1, int(float64(b.Dy())*f))))
	draw.CatmullRom.Scale(out, out.Bounds(), img, b, draw.Src, nil)
	return out
}

// Recompress encodes img as JPEG at quality q and decodes it again.
func Recompress(img image.Image, q int) (image.Image, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		return nil, err
	}
	return jpeg.Decode(&buf)
}

// Kind is one named damage.
type Kind struct {
	Name  string
	Apply func(image.Image) (image.Image, error)
}

// Standard are the damages the MRZ benchmark applies to each specimen.
var Standard = []Kind{
	{"tilt +4 degrees", func(i image.Image) (image.Image, error) { return Turn(i, 4), nil }},
	{"tilt -7 degrees", func(i image.Image) (image.Image, error) { return Turn(i, -7), nil }},
	{"scaled x1.6", func(i image.Image) (image.Image, error) { return Rescale(i, 1.6), nil }},
	{"scaled x0.8", func(i image.Image) (image.Image, error) { return Rescale(i, 0.8), nil }},
	{"JPEG quality 35", func(i image.Image) (image.Image, error) { return Recompress(i, 35) }},
}
