package ocr

import (
	"context"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/cardtest"
	"github.com/tambua/tambua/vision"
	"image/png"
	"os"
)

func TestDebugConf(t *testing.T) {
	k := New(WithWorkers(1))
	defer k.Close()
	def, _ := docdefs.Default().Definition("generic_passport")
	for seed := uint64(0); seed < 6; seed++ {
		imgs, truth := capture(t, def, seed, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75, Angle: 3, Tilt: 0.02})
		card, _ := vision.Rectify(imgs["front"], def, "front")
		for _, name := range []string{"given_names", "sex", "document_type", "surname"} {
			f, _ := def.Field(name)
			crop := prepare(vision.Crop(card.Image, valueZone(f.Zone)), zoneHeight)
			if seed == 0 {
				fh, _ := os.Create("/tmp/zone_" + name + ".png")
				png.Encode(fh, crop)
				fh.Close()
			}
			for _, psm := range []int{7, 8, 10} {
				r1, _ := k.tess().read(context.Background(), crop, whitelist(f), psm)
				r2, _ := k.tess().read(context.Background(), crop, "", psm)
				t.Logf("%d %s psm%d truth %q wl %q %.0f | nowl %q %.0f", seed, name, psm, truth[name], r1.Text, r1.Conf, r2.Text, r2.Conf)
			}
		}
	}
}
