package vision

import (
	"image/color"
	"testing"
)

// BenchmarkRefine: refine on a 1600 x 1200 photo of a cream card with an
// inner frame line (full size, the finest scale refine works at).
func BenchmarkRefine(b *testing.B) {
	img, want := drawnScene{card: color.NRGBA{240, 236, 215, 255}, paper: color.NRGBA{240, 240, 240, 255}, frame: color.NRGBA{120, 120, 130, 255}, frameIn: 0.015, angle: 3}.render(b)
	s := 480.0 / 1600
	var q Quad
	for i, p := range want {
		q[i] = Point{p.X * s, p.Y * s}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		refine(img, q, s)
	}
}
