package vision_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/tambua/tambua/vision"
)

func encodePNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// hugePNG is a valid PNG header declaring w x h with no pixel data: what a
// decompression bomb looks like to DecodeConfig.
func hugePNG(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], 13)
	b.Write(l[:])
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.BigEndian.PutUint32(l[:], crc32.ChecksumIEEE(chunk))
	b.Write(l[:])
	return b.Bytes()
}

func TestDecodeRefuses(t *testing.T) {
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, image.NewGray(image.Rect(0, 0, 200, 200)), nil); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, vision.ErrNoCapture},
		{"text", []byte("hello, this is not an image"), vision.ErrNotImage},
		{"truncated jpeg", jb.Bytes()[:len(jb.Bytes())/2], vision.ErrCorrupt},
		{"one pixel", encodePNG(t, 1, 1), vision.ErrTooSmall},
		{"30000 square declared", hugePNG(30000, 30000), vision.ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img, err := vision.Decode(tc.data)
			if !errors.Is(err, tc.want) || img != nil {
				t.Fatalf("Decode = %v, %v; want %v", img, err, tc.want)
			}
		})
	}
	if _, err := vision.Decode(jb.Bytes()); err != nil {
		t.Fatalf("a valid JPEG was refused: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encodePNG(f, 70, 70))
	f.Add(hugePNG(30000, 30000))
	f.Add([]byte("\xff\xd8\xff\xe0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := vision.Decode(data)
		if err == nil && (img.Bounds().Dx() < vision.MinSide || img.Bounds().Dy() < vision.MinSide) {
			t.Fatalf("accepted %v", img.Bounds())
		}
	})
}

func TestNoCardInTexture(t *testing.T) {
	// A photo of only a textured table: no card, and no guess.
	blank := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	data, _, err := photoOf(blank)
	if err != nil {
		t.Fatal(err)
	}
	img, err := vision.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := vision.FindCard(img, 85.6/53.98); d.Found {
		t.Fatalf("found a card in a bare background: %+v", d)
	}
}
