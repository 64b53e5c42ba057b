package address

import (
	"context"
	"image"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/bills"
	"github.com/tambua/tambua/vision"
)

// BenchmarkReadPhoto: checking a photographed page (find, rectify, OCR,
// judge) and each step of reading it, over photos of the tuning families.
// The machine is shared: the CPU time per page (cpu-ms/op, tesseract's
// included) is the figure, not ns/op.
func BenchmarkReadPhoto(b *testing.B) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	type photo struct {
		c     bills.Case
		data  []byte
		img   image.Image
		g     *image.Gray
		q     vision.Quad
		parts []part
	}
	var photos []photo
	for _, fam := range bills.TuningFamilies {
		for _, c := range bills.Generate(fam, 3, 7, now) {
			c.Format = "photo"
			data, err := c.Bytes(7)
			if err != nil {
				b.Fatal(err)
			}
			img, err := vision.Decode(data)
			if err != nil {
				b.Fatal(err)
			}
			q, ok := vision.FindPage(img)
			if !ok {
				b.Fatalf("%s: no page found", c.ID)
			}
			g := luminance(img)
			photos = append(photos, photo{c, data, img, g, q, preparePage(g, q, true)})
		}
	}
	stage := func(name string, f func(p photo)) {
		b.Run(name, func(b *testing.B) {
			c0 := bench.ProcessCPU()
			for i := 0; i < b.N; i++ {
				f(photos[i%len(photos)])
			}
			b.ReportMetric(float64((bench.ProcessCPU()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
	stage("decode", func(p photo) { vision.Decode(p.data) })
	stage("find", func(p photo) { vision.FindPage(p.img) })
	stage("prepare", func(p photo) { preparePage(p.g, p.q, true) })
	stage("ocr_all", func(p photo) {
		for _, pt := range p.parts {
			if _, err := ocrWords(context.Background(), pt.img, pt.place); err != nil {
				b.Fatal(err)
			}
		}
	})
	check := New(DefaultLimits)
	stage("check", func(p photo) {
		ca := idv.NewCase(map[string]idv.Image{DefaultSlot: {Data: p.data}})
		ca.Now = now
		ca.SetFields([]string{"full_name"}, map[string]string{"full_name": p.c.HolderOnID})
		if _, err := check.Run(context.Background(), ca); err != nil {
			b.Fatal(err)
		}
	})
}
