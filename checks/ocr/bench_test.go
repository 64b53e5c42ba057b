package ocr

import (
	"context"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/cardtest"
)

func BenchmarkExtract(b *testing.B) {
	for _, config := range []string{"kenya_national_id", "generic_passport"} {
		b.Run(config, func(b *testing.B) {
			def, _ := docdefs.Default().Definition(config)
			imgs, _ := capture(b, def, 1, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.7, Angle: 20, Tilt: 0.03})
			k := New(WithWorkers(1))
			defer k.Close()
			benchCPU(b, func() {
				if _, err := k.Extract(context.Background(), imgs, []*idv.DocumentDefinition{def}, nil); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
