package vision

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/disintegration/imaging"
)

// TestWarpBilinear: warp is plain bilinear sampling through the homography
// (checked against a direct per-pixel version), for an opaque JPEG and for
// a source with transparency.
func TestWarpBilinear(t *testing.T) {
	scene, corners := drawnScene{card: color.NRGBA{240, 236, 215, 255}, paper: color.NRGBA{90, 60, 40, 255}, angle: 11}.render(t)
	see := imaging.Clone(scene)
	for i := 3; i < len(see.Pix); i += 4 * 7 {
		see.Pix[i] = uint8(i / 4 % 256)
	}
	for name, img := range map[string]image.Image{"jpeg": jpegOf(t, scene), "translucent": see} {
		const w, h = 1000, 630 // the card's size in the photo: no reduction first
		out, ok := warp(img, corners, w, h)
		if !ok {
			t.Fatalf("%s: warp failed", name)
		}
		src := imaging.Clone(img)
		hm, _ := homographyFrom([4]Point{{0, 0}, {w, 0}, {w, h}, {0, h}}, corners)
		at := func(x, y, k int) float32 {
			x, y = clampInt(x, src.Rect.Dx()), clampInt(y, src.Rect.Dy())
			return float32(src.Pix[y*src.Stride+4*x+k])
		}
		for y := 0; y < h; y += 3 {
			for x := 0; x < w; x += 3 {
				sx, sy := hm.Apply(float64(x)+0.5, float64(y)+0.5)
				sx, sy = sx-0.5, sy-0.5
				x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
				fx, fy := float32(sx-float64(x0)), float32(sy-float64(y0))
				for k := 0; k < 4; k++ {
					v := (1-fx)*(1-fy)*at(x0, y0, k) + fx*(1-fy)*at(x0+1, y0, k) + (1-fx)*fy*at(x0, y0+1, k) + fx*fy*at(x0+1, y0+1, k)
					if got, want := out.Pix[y*out.Stride+4*x+k], clamp8(v); got != want {
						t.Fatalf("%s: (%d, %d) channel %d: %d, want %d", name, x, y, k, got, want)
					}
				}
			}
		}
	}
}
