package vision_test

import (
	"context"
	"image"
	"os"
	"testing"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/vision"
)

// TestUprightSynthLayouts turns flat synth renders both ways up and checks
// the layout evidence tells which is which: the barcode of a back and the
// title of an almost symmetric front used to turn cards over.
func TestUprightSynthLayouts(t *testing.T) {
	cases := []struct{ config, side string }{
		{"uganda_national_id_old", "back"},
		{"uganda_driving_licence", "back"},
		{"ke_national_id", "front"},
		{"kenya_national_id", "front"},
		{"south_africa_id", "back"},
		{"generic_passport", "front"},
	}
	for _, tc := range cases {
		t.Run(tc.config+"/"+tc.side, func(t *testing.T) {
			def, ok := docdefs.Default().Definition(tc.config)
			if !ok {
				t.Fatalf("no definition %s", tc.config)
			}
			gen, err := synth.New(synth.Options{Definitions: []*idv.DocumentDefinition{def}, Seed: 11, Difficulty: synth.Easy, ImpostorRate: -1})
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatal(err)
				}
				t.Skipf("synth: %v", err)
			}
			smp, err := gen.Sample(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			var flat image.Image = smp.FrontCard
			if tc.side == "back" {
				flat = smp.BackCard
			}
			w, h := vision.CanonicalSize(def)
			card := imaging.Resize(flat, w, h, imaging.Box)
			for _, want := range []int{0, 180} {
				img := card
				if want == 180 {
					img = imaging.Rotate180(card)
				}
				if got, margin := vision.Upright(img, def, tc.side); got != want {
					t.Errorf("turned %d: Upright says %d (margin %.2f)", want, got, margin)
				}
			}
		})
	}
}
