package facerec

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func FuzzDecode(f *testing.F) {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 6))
	img.Set(3, 2, color.NRGBA{200, 10, 10, 255})
	var j, p bytes.Buffer
	_ = jpeg.Encode(&j, img, nil)
	_ = png.Encode(&p, img)
	f.Add(j.Bytes())
	f.Add(p.Bytes())
	f.Add([]byte{})
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Add(j.Bytes()[:len(j.Bytes())/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Decode(data)
		if err != nil {
			return
		}
		b := out.Bounds()
		if b.Min != (image.Point{}) || b.Empty() || int64(b.Dx())*int64(b.Dy()) > MaxPixels {
			t.Fatalf("decoded bounds %v", b)
		}
	})
}

func TestDecodeRejects(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("GIF89a"), []byte("\xff\xd8\xff")} {
		if _, err := Decode(in); err == nil {
			t.Errorf("Decode(%q) succeeded", in)
		}
	}
}

// TestDecodeEXIFOrientation: a selfie stored sideways with an EXIF
// Orientation tag (as phones save them) is turned upright before
// detection, so its face is found.
func TestDecodeEXIFOrientation(t *testing.T) {
	r, err := Shared(fixtures.Models(t))
	if err != nil {
		t.Fatal(err)
	}
	upright, err := Decode(load(t, johns(t)["John_Salley"][0]))
	if err != nil {
		t.Fatal(err)
	}
	// Orientation 6: the stored pixels must be turned 90 degrees clockwise
	// to be seen upright, so store them turned counter-clockwise.
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, imaging.Rotate90(upright), &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		faces bool
	}{
		{"sideways, untagged", buf.Bytes(), false},
		{"sideways, tagged 6", synth.InsertEXIFOrientation(buf.Bytes(), 6), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := Decode(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			faces, err := r.Detect(context.Background(), img)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(faces) > 0; got != tc.faces {
				t.Fatalf("face found = %v, want %v (%v)", got, tc.faces, img.Bounds())
			}
		})
	}
}
