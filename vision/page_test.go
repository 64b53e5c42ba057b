package vision

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/tambua/tambua/internal/testkit/cardtest"
)

// FindPage returns a photographed page's corners in reading order, close
// to where the page landed in the photo, from the JPEG's own planes.
func TestFindPage(t *testing.T) {
	page := image.NewNRGBA(image.Rect(0, 0, 827, 1170)) // A4 at 100 dpi
	for i := 0; i < len(page.Pix); i += 4 {
		page.Pix[i], page.Pix[i+1], page.Pix[i+2], page.Pix[i+3] = 250, 250, 245, 255
	}
	for y := 100; y < 1000; y += 40 {
		for x := 80; x < 600; x++ {
			for d := 0; d < 6; d++ {
				page.Set(x, y+d, color.NRGBA{20, 20, 30, 255})
			}
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		data, corners, err := cardtest.Photo(page, cardtest.Scene{Width: 1800, Height: 2400, Fill: 0.88,
			Angle: float64(seed) - 2, Seed: seed, Quality: 90})
		if err != nil {
			t.Fatal(err)
		}
		img, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := img.(*image.YCbCr); !ok {
			t.Fatalf("a JPEG decodes to %T", img)
		}
		q, found := FindPage(img)
		if !found {
			t.Fatalf("seed %d: no page found", seed)
		}
		for i, c := range corners {
			// 10 px of 2400: about three pixels of the 800 px copy the
			// page is found on (7 px seen at a corner near the photo's
			// edge).
			if d := math.Hypot(q[i].X-c[0], q[i].Y-c[1]); d > 10 {
				t.Errorf("seed %d corner %d: %v, page corner at %v (%.1f px off)", seed, i, q[i], c, d)
			}
		}
	}
}
