package synth

import (
	"bytes"
	"image/jpeg"
	"math"
	"testing"
)

// TestEXIFOrientation stores a picture with each orientation, reads the
// tag back from the APP1 segment, turns the decoded pixels as a viewer
// would and expects the original picture.
func TestEXIFOrientation(t *testing.T) {
	f := newFimg(64, 40)
	for y := 0; y < f.h; y++ {
		for x := 0; x < f.w; x++ {
			i := (y*f.w + x) * 3
			f.pix[i], f.pix[i+1], f.pix[i+2] = float32(x*4), float32(y*6), 128
		}
	}
	for _, o := range []int{1, 3, 6, 8} {
		b, err := exifJPEG(f, 0.95, o)
		if err != nil {
			t.Fatal(err)
		}
		tag := exifOrientation(b)
		if tag != o {
			t.Fatalf("stored tag %d, want %d", tag, o)
		}
		img, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		shown := display(img, tag)
		if shown.w != f.w || shown.h != f.h {
			t.Fatalf("orientation %d: shown %dx%d, want %dx%d", o, shown.w, shown.h, f.w, f.h)
		}
		diff := 0.0
		for i := range f.pix {
			diff += math.Abs(float64(f.pix[i] - shown.pix[i]))
		}
		if mean := diff / float64(len(f.pix)); mean > 4 {
			t.Errorf("orientation %d: mean difference %.1f after turning back", o, mean)
		}
	}
}

func FuzzEXIFOrientation(f *testing.F) {
	small := newFimg(8, 8)
	for _, o := range []int{1, 6} {
		b, _ := exifJPEG(small, 0.9, o)
		f.Add(b)
	}
	f.Add([]byte("Exif\x00\x00II*\x00\xff\xff\xff\x7f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		switch o := exifOrientation(b); o {
		case 1, 3, 6, 8:
		default:
			t.Fatalf("orientation %d", o)
		}
	})
}
