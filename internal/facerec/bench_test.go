package facerec

import (
	"context"
	"fmt"
	"image"
	"path/filepath"
	"testing"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

const selfieSample = "/usr/share/doc/libdlib19.1/examples/faces/Tom_Cruise_avp_2014_4.jpg"

func BenchmarkModelLoad(b *testing.B) {
	dir := fixtures.Models(b)
	for b.Loop() {
		r, err := Load(dir, Options{Pool: 1})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// BenchmarkDetectEmbed is the time per face: decode excluded, detection,
// landmarks and descriptor included. johns photos are 150 px (enlarged to
// the 400 px working size); the selfie sample is 565x800 (reduced to 800).
func BenchmarkDetectEmbed(b *testing.B) {
	r, err := Load(fixtures.Models(b), Options{Pool: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, tc := range []struct{ name, path string }{
		{"johns150", filepath.Join(JohnsDir, "John_Simm", "000288_00470387.jpg")},
		{"selfie565x800", selfieSample},
	} {
		img := decodeFile(b, tc.path)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				faces, err := r.Detect(context.Background(), img)
				if err != nil || len(faces) == 0 {
					b.Fatalf("%d faces, %v", len(faces), err)
				}
			}
		})
	}
}

// BenchmarkDetectParallel measures throughput with one recogniser shared
// by all goroutines against a pool of two, on as many goroutines as cores.
func BenchmarkDetectParallel(b *testing.B) {
	img := decodeFile(b, selfieSample)
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("pool%d", n), func(b *testing.B) {
			r, err := Load(fixtures.Models(b), Options{Pool: n})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := r.Detect(context.Background(), img); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func decodeFile(tb testing.TB, path string) image.Image {
	tb.Helper()
	fixtures.Need(tb, path, "dlib example photos")
	img, err := Decode(load(tb, path))
	if err != nil {
		tb.Fatal(err)
	}
	return img
}
