package mrz

import (
	"context"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tambua/tambua/internal/testdata"
)

func decodeFile(tb testing.TB, path string) image.Image {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return img
}

func TestReadSpecimens(t *testing.T) {
	r := NewReader(WithFont(testdata.Need(t, DefaultFont, "OCR-B font (fonts-ocr-b)")))
	exact, total := 0, 0
	for _, v := range loadVectors(t) {
		if v.Image == nil {
			continue
		}
		total++
		img := decodeFile(t, filepath.Join(testdata.Dir(t), *v.Image))
		rd, err := r.Read(context.Background(), img)
		if err != nil {
			t.Logf("%s: %v", v.ID, err)
			continue
		}
		m, err := Parse(rd.Lines, Options{Now: refNow, Repair: true})
		got := rd.Lines
		if err == nil {
			got = m.Lines
		}
		if strings.Join(got, "\n") == strings.Join(v.Lines, "\n") {
			exact++
			continue
		}
		t.Logf("%s:\n got %s\nwant %s", v.ID, strings.Join(got, "\n     "), strings.Join(v.Lines, "\n     "))
	}
	t.Logf("exact %d of %d", exact, total)
	if total != 20 {
		t.Fatalf("%d specimen images named by the vectors, want 20", total)
	}
	// The floor this reader reaches today; tambua bench mrz reports the rate.
	if exact < minSpecimensExact {
		t.Errorf("read %d of %d specimen MRZs exactly, want at least %d", exact, total, minSpecimensExact)
	}
}

const minSpecimensExact = 19

// TestReadNothing: images without an MRZ give ErrNotFound, not a guess.
func TestReadNothing(t *testing.T) {
	r := NewReader(WithFont(testdata.Need(t, DefaultFont, "OCR-B font (fonts-ocr-b)")))
	for _, img := range []image.Image{
		image.NewGray(image.Rect(0, 0, 300, 200)),
		image.NewGray(image.Rect(0, 0, 3, 3)),
		decodeFile(t, filepath.Join(testdata.Dir(t), "ids", "passeye_100_pass-chn.jpg")).(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(0, 0, 500, 200)),
	} {
		if rd, err := r.Read(context.Background(), img); err != ErrNotFound {
			t.Errorf("Read = %+v, %v; want ErrNotFound", rd, err)
		}
	}
}

// BenchmarkRead reads every specimen image named by the vectors; ns/op
// divided by 20 is the time per image.
func BenchmarkRead(b *testing.B) {
	r := NewReader()
	if err := r.Prepare(); err != nil {
		b.Skip(err)
	}
	var imgs []image.Image
	for _, v := range loadVectors(b) {
		if v.Image != nil {
			imgs = append(imgs, decodeFile(b, filepath.Join(testdata.Dir(b), *v.Image)))
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, img := range imgs {
			if _, err := r.Read(context.Background(), img); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(imgs)), "ms/image")
}
