package synth

import (
	"context"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/testkit/fixtures"
)

func newTestGenerator(tb testing.TB, opts Options) *Generator {
	tb.Helper()
	fixtures.Need(tb, DefaultFacesDir, "dlib face photos (libdlib-dev)")
	if opts.Definitions == nil {
		opts.Definitions = docdefs.Default().Drawn()
	}
	g, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkSample renders complete samples (front, back and selfie photos
// with truth) at medium difficulty with attacks; it reports samples/s.
func BenchmarkSample(b *testing.B) {
	gen := newTestGenerator(b, Options{Seed: 1, Difficulty: Medium, Attacks: true})
	ctx := context.Background()
	// warm the per-definition caches outside the timer
	for i := 0; i < len(gen.opts.Definitions); i++ {
		if _, err := gen.Sample(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := gen.Sample(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkSampleVariant renders samples of each layout family (medium,
// no attacks): a variant draws its card's shared layer with the card.
func BenchmarkSampleVariant(b *testing.B) {
	for _, v := range Variants {
		b.Run(string(v), func(b *testing.B) {
			gen := newTestGenerator(b, Options{Seed: 1, Difficulty: Medium, Variant: v})
			ctx := context.Background()
			for i := 0; i < len(gen.opts.Definitions); i++ {
				if _, err := gen.Sample(ctx, i); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := gen.Sample(ctx, i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStaticLayer draws the shared layer (background, security print,
// captions) of one side, which each definition pays once per process.
func BenchmarkStaticLayer(b *testing.B) {
	d, _ := docdefs.Default().Definition("kenya_national_id")
	r, err := newRenderer()
	if err != nil {
		b.Fatal(err)
	}
	lay := baseLayout(d, "front", r.fonts)
	for i := 0; i < b.N; i++ {
		r.drawStatic(d, "front", lay)
	}
}
