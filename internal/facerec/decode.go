package facerec

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // captures arrive as JPEG or PNG
	_ "image/png"

	"github.com/disintegration/imaging"
)

// MaxPixels bounds the decoded size of a capture so that a hostile header
// cannot make the decoder allocate gigabytes.
const MaxPixels = 40 << 20

// ErrFormat is returned for bytes that are not a JPEG or PNG image.
var ErrFormat = errors.New("facerec: not a JPEG or PNG image")

// Decode decodes a JPEG or PNG capture into an RGBA image, turned as its
// EXIF orientation says: phones store a selfie sideways and tag it, and
// dlib's frontal detector finds no face in a sideways picture.
func Decode(data []byte) (*image.NRGBA, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, fmt.Errorf("%w: %dx%d pixels is outside the accepted size", ErrFormat, cfg.Width, cfg.Height)
	}
	img, err := imaging.Decode(bytes.NewReader(data), imaging.AutoOrientation(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return ToNRGBA(img), nil
}

// ToNRGBA returns img as an *image.NRGBA with bounds starting at (0,0).
func ToNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n
	}
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}
