package vision_test

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/cardtest"
	"github.com/tambua/tambua/vision"
)

func renderCard(tb testing.TB, config string, seed uint64) (*idv.DocumentDefinition, image.Image) {
	tb.Helper()
	def, ok := docdefs.Default().Definition(config)
	if !ok {
		tb.Fatalf("no definition %s", config)
	}
	printed, truth := cardtest.Values(def, rand.New(rand.NewPCG(seed, 1)))
	img, err := cardtest.Side(def, "front", printed, cardtest.MRZ(def, truth), 8)
	if err != nil {
		tb.Skipf("fonts: %v", err)
	}
	return def, img
}

// cornerError is the largest distance between a found corner and the true
// one, as a share of the card's true long side; the rectified card may be
// turned half a turn, so both orders are compared.
func cornerError(q vision.Quad, c cardtest.Corners) float64 {
	long := math.Hypot(c[1][0]-c[0][0], c[1][1]-c[0][1])
	best := math.Inf(1)
	for _, off := range []int{0, 2} {
		worst := 0.0
		for i := 0; i < 4; i++ {
			t := c[(i+off)%4]
			worst = math.Max(worst, math.Hypot(q[i].X-t[0], q[i].Y-t[1]))
		}
		best = math.Min(best, worst)
	}
	return best / long
}

func TestFindCardScenes(t *testing.T) {
	cases := []struct {
		name   string
		config string
		scene  cardtest.Scene
	}{
		{"plain straight", "kenya_national_id", cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.7}},
		{"rotated 25", "kenya_national_id", cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.6, Angle: 25}},
		{"portrait photo 90", "ke_maisha_card", cardtest.Scene{Width: 1200, Height: 1600, Fill: 0.6, Angle: 90, Tilt: 0.04}},
		{"upside down textured", "uganda_national_id_new", cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.65, Angle: 183, Texture: true, Tilt: 0.05}},
		{"tilted textured blur", "ghana_voter_id", cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.6, Angle: -12, Texture: true, Tilt: 0.06, Blur: 1.5}},
		{"passport glare", "generic_passport", cardtest.Scene{Width: 2000, Height: 1500, Fill: 0.7, Angle: 5, Tilt: 0.03, Glare: 0.12, GlareAt: [2]float64{0.6, 0.3}}},
		{"passport", "generic_passport", cardtest.Scene{Width: 2000, Height: 1500, Fill: 0.7, Angle: 5, Tilt: 0.03}},
		// A cream card on off-white paper: the luminance step at the border
		// is a few levels, the colour step is not.
		{"pale card on paper", "ghana_voter_id", cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.7, Angle: 4, Tilt: 0.03,
			Paper: color.NRGBA{R: 236, G: 236, B: 238, A: 255}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			def, card := renderCard(t, tc.config, uint64(i))
			tc.scene.Seed = uint64(i)
			data, corners, err := cardtest.Photo(card, tc.scene)
			if err != nil {
				t.Fatal(err)
			}
			img, err := vision.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			det := vision.FindCard(img, def.Size.Aspect())
			if !det.Found || det.FillsFrame {
				t.Fatalf("card not found (score %.2f)", det.Score)
			}
			if e := cornerError(det.Quad, corners); e > 0.01 {
				t.Errorf("corner error %.3f of the card width; found %v, want %v", e, det.Quad, corners)
			}
			c, err := vision.Rectify(img, def, "front")
			if err != nil {
				t.Fatal(err)
			}
			// Upright: the card's true top-left must be the rectified top-left.
			tl := det.Quad[0]
			if c.Rotation == 180 {
				tl = det.Quad[2]
			}
			if d := math.Hypot(tl.X-corners[0][0], tl.Y-corners[0][1]); d > 0.02*float64(img.Bounds().Dx()) {
				t.Errorf("not upright: rotation %d (margin %.2f) leaves the top-left %.0f px away", c.Rotation, c.UprightMargin, d)
			}
			w, h := vision.CanonicalSize(def)
			if c.Image.Bounds().Dx() != w || c.Image.Bounds().Dy() != h {
				t.Errorf("rectified size %v, want %dx%d", c.Image.Bounds(), w, h)
			}
			t.Logf("score %.2f rotation %d margin %.2f", det.Score, c.Rotation, c.UprightMargin)
		})
	}
}

func photoOf(card image.Image) ([]byte, cardtest.Corners, error) {
	// The card is a few pixels: what is photographed is the background.
	return cardtest.Photo(card, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.001, Texture: true, Seed: 3})
}

func TestMeasureBlurAndGlare(t *testing.T) {
	def, card := renderCard(t, "kenya_national_id", 9)
	measure := func(sc cardtest.Scene) vision.Quality {
		data, _, err := cardtest.Photo(card, sc)
		if err != nil {
			t.Fatal(err)
		}
		img, err := vision.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		c, err := vision.Rectify(img, def, "front")
		if err != nil {
			t.Fatal(err)
		}
		return vision.Measure(c, def, "front")
	}
	sharp := measure(cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75})
	blurred := measure(cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75, Blur: 4})
	glare := measure(cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75, Glare: 0.15, GlareAt: [2]float64{0.55, 0.40}})
	t.Logf("sharp %+v\nblurred %+v\nglare %+v", sharp, blurred, glare)
	has := func(q vision.Quality, r string) bool {
		for _, x := range q.Reasons {
			if x == r {
				return true
			}
		}
		return false
	}
	if len(sharp.Reasons) != 0 {
		t.Errorf("clean capture has reasons %v", sharp.Reasons)
	}
	if !has(blurred, vision.ReasonBlurry) || blurred.Sharpness >= sharp.Sharpness {
		t.Errorf("blur not reported: %+v", blurred)
	}
	if !has(glare, vision.ReasonGlare) {
		t.Errorf("glare not reported: %+v", glare)
	}
}
