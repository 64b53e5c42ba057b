package address

import (
	"context"
	"testing"
	"time"

	"github.com/tambua/tambua/internal/testkit/bills"
	"github.com/tambua/tambua/vision"
)

// BenchmarkReadPhoto: reading one photographed page (find, rectify, OCR)
// and its first steps alone.
func BenchmarkReadPhoto(b *testing.B) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := bills.Generate("classic", 1, 7, now)[0]
	c.Format = "photo"
	data, err := c.Bytes(1)
	if err != nil {
		b.Fatal(err)
	}
	img, err := vision.Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("find", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			vision.FindPage(img)
		}
	})
	b.Run("probe", func(b *testing.B) {
		q, _ := vision.FindPage(img)
		g := luminance(img)
		for i := 0; i < b.N; i++ {
			w, h := pageSize(q, probeSide, true)
			probe, _ := warpGray(g, q, w, h)
			textHeight(probe)
		}
	})
	b.Run("read", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Read(context.Background(), data, DefaultLimits); err != nil {
				b.Fatal(err)
			}
		}
	})
}
