package vision

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // register the decoders DecodeConfig consults
	_ "image/png"

	"github.com/disintegration/imaging"
)

// Limits on what Decode accepts. A phone photo is 12 to 50 megapixels; the
// pixel limit refuses decompression bombs (a few kilobytes declaring
// 30000 x 30000) before any pixel is allocated, and the side minimum refuses
// images too small to hold a readable card.
const (
	MaxPixels  = 50_000_000
	MinSide    = 64
	MaxDataLen = 40 << 20
)

// Sentinel errors of Decode; match them with errors.Is.
var (
	ErrNotImage  = errors.New("vision: not a JPEG or PNG image")
	ErrTooLarge  = errors.New("vision: image too large")
	ErrTooSmall  = errors.New("vision: image too small")
	ErrCorrupt   = errors.New("vision: image data corrupt or truncated")
	ErrNoCapture = errors.New("vision: no image data")
)

// Decode decodes a JPEG or PNG capture and applies its EXIF orientation, so
// that the returned image is the scene as the camera's user saw it. The
// declared size is checked before decoding.
func Decode(data []byte) (image.Image, error) {
	if len(data) == 0 {
		return nil, ErrNoCapture
	}
	if len(data) > MaxDataLen {
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrTooLarge, len(data), MaxDataLen)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return nil, ErrNotImage
		}
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if format != "jpeg" && format != "png" {
		return nil, fmt.Errorf("%w (found %s)", ErrNotImage, format)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, fmt.Errorf("%w: %d x %d declared (limit %d pixels)", ErrTooLarge, cfg.Width, cfg.Height, MaxPixels)
	}
	if cfg.Width < MinSide || cfg.Height < MinSide {
		return nil, fmt.Errorf("%w: %d x %d (each side must be at least %d)", ErrTooSmall, cfg.Width, cfg.Height, MinSide)
	}
	img, err := imaging.Decode(bytes.NewReader(data), imaging.AutoOrientation(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return img, nil
}
