package docauth

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/vision"
)

// flatScene draws a card (aspect of the definition, a textured surface
// with noise, a dark rim) tilted by angle degrees on a perfectly flat grey
// frame, as a screenshot's viewer or a JPEG-flattened plain desk leaves it.
func flatScene(aspect, angle float64) *image.NRGBA {
	return flatSceneWith(aspect, angle, 20, 3)
}

// flatSceneWith is flatScene with the card's own texture amplitude and
// noise (grey levels) given.
func flatSceneWith(aspect, angle, texture, noise float64) *image.NRGBA {
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
				base := 200 + texture*math.Sin(u/30)*math.Sin(v/40) + r.NormFloat64()*noise
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

// specimenOnDesk lays a real document (its picture softened by a blur of
// sigma px, as a distant capture is, plus sensor noise) turned by angle
// degrees on a perfectly flat grey desk, 1200 x 900.
func specimenOnDesk(t *testing.T, name string, angle, sigma, noise float64) *image.NRGBA {
	t.Helper()
	card := imaging.Blur(imaging.Resize(specimenImage(t, name), 700, 0, imaging.Linear), sigma)
	scene := imaging.New(1200, 900, color.NRGBA{128, 128, 128, 255})
	turned := imaging.Rotate(card, angle, color.Transparent)
	scene = imaging.Overlay(scene, turned, image.Pt(600-turned.Bounds().Dx()/2, 450-turned.Bounds().Dy()/2), 1)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(scene.Pix); i += 4 {
		if scene.Pix[i] == 128 && scene.Pix[i+1] == 128 && scene.Pix[i+2] == 128 {
			continue // the desk stays flat
		}
		n := r.NormFloat64() * noise
		for c := 0; c < 3; c++ {
			scene.Pix[i+c] = uint8(max(0, min(255, float64(scene.Pix[i+c])+n)))
		}
	}
	return scene
}

// A card surface flat to the last grey level proves a digital image only
// when the file's compression would have kept a camera's noise: a real
// identity card photographed softly, with faint sensor noise, and stored
// at quality 70 comes out flat over its plain parts; stored at quality 95
// it keeps its noise.
func TestFlatCardSurfaceNeedsFineCompression(t *testing.T) {
	def, ok := docdefs.Default().Definition("generic_passport")
	if !ok {
		t.Fatal("no generic_passport")
	}
	scene := specimenOnDesk(t, "arg0s_id_cards__Sweden.png", 7, 3, 0.6)
	for _, quality := range []int{70, 95} {
		t.Run(fmt.Sprint(quality), func(t *testing.T) {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, scene, &jpeg.Options{Quality: quality}); err != nil {
				t.Fatal(err)
			}
			img, err := jpeg.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			flat := flatShare(img)
			if flat <= minFlatShare {
				t.Fatalf("flat share %.3f: the scene does not test the rule", flat)
			}
			stats := map[string]float64{}
			got, why := digitalCapture(inputs{def: def, capture: img, captureData: buf.Bytes()}, flat, stats)
			t.Logf("flat %.3f: %s: stats %v", flat, why, stats)
			if quality == 70 && stats["card_flat_block_share"] <= minFlatShare {
				t.Fatalf("the card's surface is %.3f flat: the scene does not test the rule", stats["card_flat_block_share"])
			}
			if got {
				t.Errorf("a photographed page taken for a digital image (%s, stats %v)", why, stats)
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

// subpixels lays a display's red, green and blue columns (amplitude a
// grey levels) over the rectangle r of img, as a photo of a screen shows
// them.
func subpixels(img *image.NRGBA, r image.Rectangle, a float64) *image.NRGBA {
	out := imaging.Clone(img)
	r = r.Intersect(out.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := out.PixOffset(x, y)
			for c := 0; c < 3; c++ {
				v := float64(out.Pix[i+c]) - a/3
				if (x+y/3)%3 == c {
					v += a
				}
				out.Pix[i+c] = uint8(max(0, min(255, math.Round(v))))
			}
		}
	}
	return out
}

// A card whose own print carries fine colour (here colour columns laid
// over everything but its portrait, as multi-ink guilloche lies around
// a photo) is not a recapture; the same texture over the portrait too is.
func TestRecaptureTextureCoversThePortrait(t *testing.T) {
	d, _ := docdefs.Default().Definition("ghana_voter_id")
	gen, err := synth.New(synth.Options{Definitions: []*idv.DocumentDefinition{d}, Seed: 59, Difficulty: synth.Easy})
	if err != nil {
		t.Skip("synth:", err)
	}
	s, err := gen.Sample(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	img, err := vision.Decode(s.Front)
	if err != nil {
		t.Fatal(err)
	}
	c, err := vision.Rectify(img, d, "front")
	if err != nil {
		t.Fatal(err)
	}
	card := imaging.Clone(c.Image)
	b := card.Bounds()
	photo := zonePx(*d.Photo, b.Dx(), b.Dy())
	// the card's own print: colour everywhere but the portrait
	printed := subpixels(card, b, 8)
	draw.Draw(printed, photo, card, photo.Min, draw.Src)
	recaptured := subpixels(card, b, 8)
	for _, tc := range []struct {
		name      string
		img       *image.NRGBA
		recapture bool
	}{
		{"genuine", card, false},
		{"colour print around the portrait", printed, false},
		{"colour texture over the whole card", recaptured, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := substrate(inputs{def: d, front: tc.img, capture: img})
			t.Logf("stats %v findings %v", lr.stats, lr.findings)
			found := false
			for _, f := range lr.findings {
				found = found || f.code == CodeRecapture
			}
			if found != tc.recapture {
				t.Errorf("recapture found %v, want %v (stats %v)", found, tc.recapture, lr.stats)
			}
			if tc.name == "colour print around the portrait" && lr.stats["colour_texture"] <= reviewColourTexture {
				t.Fatalf("colour texture %.2f: the page does not test the rule", lr.stats["colour_texture"])
			}
		})
	}
}
