package ocr

import (
	"context"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/cardtest"
	"github.com/tambua/tambua/vision"
)

func TestDebugKEPassport(t *testing.T) {
	k := New(WithWorkers(1))
	defer k.Close()
	def, _ := docdefs.Default().Definition("ke_passport")
	for i := 0; i < 3; i++ {
		r := rand.New(rand.NewPCG(1, uint64(4*1000+i)))
		sc := cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.72 + 0.08*r.Float64(), Angle: r.Float64()*10 - 5, Tilt: 0.02, Quality: 90}
		printed, truth := cardtest.Values(def, r)
		card, _ := cardtest.Side(def, "front", printed, cardtest.MRZ(def, truth), 10)
		sc.Seed = r.Uint64()
		data, corners, _ := cardtest.Photo(card, sc)
		img, _ := vision.Decode(data)
		ex, err := k.Extract(context.Background(), map[string]image.Image{"front": img}, []*idv.DocumentDefinition{def}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := ex.Cards["front"]
		t.Logf("%d rot %d margin %.2f cov %.2f mrz %q", i, c.Rotation, c.UprightMargin, ex.Quality.Coverage, ex.MRZText)
		_ = corners
		f, _ := os.Create("/tmp/kep.png")
		png.Encode(f, vision.Thumbnail(c.Image, 600))
		f.Close()
		if ex.Quality.Coverage < 0.5 {
			break
		}
	}
}
