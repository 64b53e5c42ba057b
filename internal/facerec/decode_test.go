package facerec

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
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
