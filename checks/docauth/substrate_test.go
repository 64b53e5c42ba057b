package docauth

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tambua/tambua/docdefs"
)

// flatScene draws a card (aspect of the definition, a textured surface
// with noise, a dark rim) tilted by angle degrees on a perfectly flat grey
// frame, as a screenshot's viewer or a JPEG-flattened plain desk leaves it.
func flatScene(aspect, angle float64) *image.NRGBA {
	const w, h = 1200, 900
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	cw, ch := 700.0, 700.0/aspect
	s, c := math.Sin(angle*math.Pi/180), math.Cos(angle*math.Pi/180)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// the point in the card's own frame
			dx, dy := float64(x)-w/2, float64(y)-h/2
			u, v := c*dx+s*dy, -s*dx+c*dy
			col := color.NRGBA{128, 128, 128, 255}
			if math.Abs(u) < cw/2 && math.Abs(v) < ch/2 {
				base := 200 + 20*math.Sin(u/3)*math.Sin(v/4) + r.NormFloat64()*3
				if math.Abs(u) > cw/2-6 || math.Abs(v) > ch/2-6 {
					base = 40
				}
				g := uint8(max(0, min(255, base)))
				col = color.NRGBA{g, uint8(max(0, int(g)-20)), uint8(max(0, int(g)-40)), 255}
			}
			img.SetNRGBA(x, y, col)
		}
	}
	return img
}

func TestDigitalCaptureLooksAtTheCard(t *testing.T) {
	def, ok := docdefs.Default().Definition("ke_national_id")
	if !ok {
		t.Fatal("no ke_national_id")
	}
	for _, tc := range []struct {
		name    string
		angle   float64
		digital bool
	}{
		// A photographed card on a flat background: the frame is flat, the
		// card is tilted and textured: not digital.
		{"tilted card on a flat desk", 7, false},
		// The same card square to the frame: pasted, as in a screenshot.
		{"card square to the frame", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := flatScene(def.Size.Aspect(), tc.angle)
			flat := flatShare(img)
			if flat <= minFlatShare {
				t.Fatalf("flat share %.3f: the scene does not test the rule", flat)
			}
			stats := map[string]float64{}
			got, why := digitalCapture(inputs{def: def, capture: img}, flat, stats)
			t.Logf("%s: stats %v", why, stats)
			if got != tc.digital {
				t.Errorf("digital %v (%s, stats %v), want %v", got, why, stats, tc.digital)
			}
		})
	}
}

// highPass with running sums is the window mean taken the long way.
func TestHighPassRunningSums(t *testing.T) {
	const w, h, r = 23, 17, 2
	c := make([]float32, w*h)
	for i := range c {
		c[i] = float32((i*7919)%251) / 3
	}
	got := highPass(c, w, h, r)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s float32
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					s += c[min(max(y+dy, 0), h-1)*w+min(max(x+dx, 0), w-1)]
				}
			}
			want := c[y*w+x] - s/float32((2*r+1)*(2*r+1))
			if d := got[y*w+x] - want; d > 1e-3 || d < -1e-3 {
				t.Fatalf("(%d,%d): %v, want %v", x, y, got[y*w+x], want)
			}
		}
	}
}
