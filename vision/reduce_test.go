package vision

import (
	"bytes"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"testing"

	"github.com/disintegration/imaging"
)

// TestReducedIsImagingBox: the fused reduction gives exactly imaging's Box
// resize, for JPEG captures of several shapes, a 4:4:4 image, a sub-image
// with an odd origin and sizes kept along one axis.
func TestReducedIsImagingBox(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	noise := func(w, h int, ratio image.YCbCrSubsampleRatio) *image.YCbCr {
		m := image.NewYCbCr(image.Rect(0, 0, w, h), ratio)
		for _, p := range [][]uint8{m.Y, m.Cb, m.Cr} {
			for i := range p {
				p[i] = uint8(r.IntN(256))
			}
		}
		return m
	}
	scene, _ := drawnScene{angle: 23, shadow: 7}.render(t)
	photo := jpegOf(t, scene).(*image.YCbCr)
	cases := []struct {
		name string
		img  *image.YCbCr
		w, h int
	}{
		{"photo 480", photo, 480, 360},
		{"photo 1400", photo, 1400, 1050},
		{"portrait", jpegOf(t, imaging.Rotate90(scene)).(*image.YCbCr), 360, 480},
		{"odd 420", noise(1537, 1023, image.YCbCrSubsampleRatio420), 480, 320},
		{"444", noise(999, 701, image.YCbCrSubsampleRatio444), 480, 337},
		{"422 width kept", noise(640, 701, image.YCbCrSubsampleRatio422), 640, 333},
		{"sub-image", photo.SubImage(image.Rect(333, 71, 1401, 1111)).(*image.YCbCr), 480, 467},
		{"same size", noise(400, 300, image.YCbCrSubsampleRatio420), 400, 300},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := reduced(c.img, c.w, c.h)
			want := channels(imaging.Resize(c.img, c.w, c.h, imaging.Box))
			for k := range got {
				if got[k].w != want[k].w || got[k].h != want[k].h {
					t.Fatalf("plane %d is %d x %d, want %d x %d", k, got[k].w, got[k].h, want[k].w, want[k].h)
				}
				for i := range got[k].p {
					if got[k].p[i] != want[k].p[i] {
						t.Fatalf("plane %d at (%d, %d): %v, want %v", k, i%c.w, i/c.w, got[k].p[i], want[k].p[i])
					}
				}
			}
		})
	}
}

// jpegOf round-trips img through JPEG, giving the YCbCr image a capture
// decodes to.
func jpegOf(tb testing.TB, img image.Image) image.Image {
	tb.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	out, err := jpeg.Decode(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func BenchmarkReduced(b *testing.B) {
	scene, _ := drawnScene{angle: 23}.render(b)
	photo := jpegOf(b, scene)
	b.Run("fused", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			reduced(photo, 480, 360)
		}
	})
	b.Run("imaging", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			channels(imaging.Resize(photo, 480, 360, imaging.Box))
		}
	})
}
