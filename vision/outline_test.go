package vision

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

// drawnScene is a card drawn straight into a photo: a pale card on pale
// paper, turned by angle degrees, with an optional dark stripe along its
// foot (the flag stripe of many ID cards) and a shadow cast down and to
// the left. It returns the photo and the card's corners.
type drawnScene struct {
	card, paper, stripe color.NRGBA
	stripeH             float64 // share of the card's height, 0 for none
	// A vertical band in the stripe's colour from bandU to bandU+bandW of
	// the card's width (the edge of a photo column, a coloured bar).
	bandU, bandW float64
	angle        float64
	shadow       float64 // offset in pixels, 0 for none
	// paperFar, when set, is the paper's colour at the photo's right edge:
	// the paper changes evenly to it from the left edge, so a side of the
	// card can be made as faint as wanted.
	paperFar color.NRGBA
	// frame, when set, is the colour of a 3 px line printed frameIn of
	// the card's height inside each side (an inner frame).
	frame   color.NRGBA
	frameIn float64
	// photo, when photoC is set, is a block printed on the card (a
	// portrait): u0, v0, u1, v1 as shares of its width and height.
	photo  [4]float64
	photoC color.NRGBA
}

func (s drawnScene) render(tb testing.TB) (image.Image, Quad) {
	tb.Helper()
	const W, H = 1600, 1200
	const cw, ch = 1000.0, 1000.0 / (85.6 / 53.98)
	cx, cy := 800.0, 600.0
	sn, cs := math.Sincos(s.angle * math.Pi / 180)
	// toCard maps a photo pixel to card coordinates (0..cw, 0..ch).
	toCard := func(x, y float64) (float64, float64) {
		dx, dy := x-cx, y-cy
		return dx*cs + dy*sn + cw/2, -dx*sn + dy*cs + ch/2
	}
	inside := func(u, v float64) bool { return u >= 0 && v >= 0 && u < cw && v < ch }
	r := rand.New(rand.NewPCG(7, 7))
	img := image.NewNRGBA(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			// 2 x 2 samples per pixel, so the border is antialiased as a
			// camera would.
			var acc [3]float64
			for k := 0; k < 4; k++ {
				fx, fy := float64(x)+0.25+0.5*float64(k%2), float64(y)+0.25+0.5*float64(k/2)
				c := s.paper
				if s.paperFar.A != 0 {
					f := fx / W
					mix := func(a, b uint8) uint8 { return uint8(float64(a)*(1-f) + float64(b)*f + 0.5) }
					c = color.NRGBA{mix(c.R, s.paperFar.R), mix(c.G, s.paperFar.G), mix(c.B, s.paperFar.B), 255}
				}
				if s.shadow > 0 {
					if u, v := toCard(fx+s.shadow, fy-s.shadow); inside(u, v) {
						c = color.NRGBA{uint8(float64(c.R) * 0.8), uint8(float64(c.G) * 0.8), uint8(float64(c.B) * 0.8), 255}
					}
				}
				if u, v := toCard(fx, fy); inside(u, v) {
					c = s.card
					if v > ch*(1-s.stripeH) {
						c = s.stripe
					}
					if u >= s.bandU*cw && u < (s.bandU+s.bandW)*cw {
						c = s.stripe
					}
					if s.photoC.A != 0 && u >= s.photo[0]*cw && u < s.photo[2]*cw && v >= s.photo[1]*ch && v < s.photo[3]*ch {
						c = s.photoC
					}
					if s.frame.A != 0 {
						in := s.frameIn * ch
						d := math.Min(math.Min(u, cw-u), math.Min(v, ch-v))
						if d >= in && d < in+3 {
							c = s.frame
						}
					}
				}
				acc[0] += float64(c.R) / 4
				acc[1] += float64(c.G) / 4
				acc[2] += float64(c.B) / 4
			}
			o := img.Pix[y*img.Stride+4*x:]
			for c := 0; c < 3; c++ {
				o[c] = clamp8(float32(acc[c] + r.NormFloat64()*2))
			}
			o[3] = 255
		}
	}
	return img, s.place(0, 0, 1, 1)
}

// place is the photo quad of the card's rectangle u0, v0 to u1, v1
// (shares of its width and height).
func (s drawnScene) place(u0, v0, u1, v1 float64) Quad {
	const cw, ch = 1000.0, 1000.0 / (85.6 / 53.98)
	cx, cy := 800.0, 600.0
	sn, cs := math.Sincos(s.angle * math.Pi / 180)
	var q Quad
	for i, p := range [4][2]float64{{u0 * cw, v0 * ch}, {u1 * cw, v0 * ch}, {u1 * cw, v1 * ch}, {u0 * cw, v1 * ch}} {
		du, dv := p[0]-cw/2, p[1]-ch/2
		q[i] = Point{du*cs - dv*sn + cx, du*sn + dv*cs + cy}
	}
	return q
}

// TestFindCardOutermost: the card's border is a faint step, while a line
// inside the card (the top of a dark stripe along its foot) or the edge of
// its shadow outside is strong. The outline must be the card's own edge.
func TestFindCardOutermost(t *testing.T) {
	paper := color.NRGBA{226, 223, 216, 255}
	pale := color.NRGBA{232, 236, 226, 255}
	cases := []struct {
		name  string
		scene drawnScene
	}{
		{"stripe along the foot", drawnScene{card: pale, paper: paper, stripe: color.NRGBA{60, 60, 60, 255}, stripeH: 0.05, angle: 4}},
		{"stripe turned", drawnScene{card: pale, paper: paper, stripe: color.NRGBA{200, 40, 50, 255}, stripeH: 0.06, angle: -7}},
		{"stripe and shadow", drawnScene{card: pale, paper: paper, stripe: color.NRGBA{40, 120, 60, 255}, stripeH: 0.05, angle: 3, shadow: 14}},
		{"shadow only", drawnScene{card: pale, paper: paper, angle: -5, shadow: 16}},
		// The short side lands 5.5 % of the long side in, beyond a search
		// bounded by the short side.
		{"band along the left", drawnScene{card: pale, paper: paper, stripe: color.NRGBA{70, 80, 90, 255}, bandU: 0.055, bandW: 0.02, angle: 6}},
		// Both a long and a short side inside: only moving both keeps the
		// card's shape.
		{"band and stripe", drawnScene{card: pale, paper: paper, stripe: color.NRGBA{40, 60, 130, 255}, stripeH: 0.05, bandU: 0.045, bandW: 0.02, angle: -3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img, want := tc.scene.render(t)
			det := FindCard(img, 85.6/53.98)
			if !det.Found || det.FillsFrame {
				t.Fatalf("card not found (score %.2f)", det.Score)
			}
			if e := quadError(det.Quad, want); e > 0.01 {
				t.Errorf("corner off by %.1f %% of the long side: found %v, want %v", 100*e, det.Quad, want)
			}
		})
	}
}

// TestRectAspect: a card tilted away from the camera looks shorter in the
// direction of the tilt; rectAspect must see through the perspective.
func TestRectAspect(t *testing.T) {
	const w, h = 1600, 1200
	f := focalShare * w
	for _, tc := range []struct{ tiltX, tiltY, turn float64 }{
		{0, 0, 0}, {25, 0, 10}, {0, 30, -20}, {20, 20, 90}, {-15, 25, 45},
	} {
		// The card, 8.56 x 5.4 units, centred 30 units in front of the
		// camera, turned in plane and tilted about both axes.
		sx, cx := math.Sincos(tc.tiltX * math.Pi / 180)
		sy, cy := math.Sincos(tc.tiltY * math.Pi / 180)
		st, ct := math.Sincos(tc.turn * math.Pi / 180)
		var q Quad
		for i, c := range [4][2]float64{{-4.28, -2.7}, {4.28, -2.7}, {4.28, 2.7}, {-4.28, 2.7}} {
			x, y, z := c[0]*ct-c[1]*st, c[0]*st+c[1]*ct, 0.0
			y, z = y*cx-z*sx, y*sx+z*cx
			x, z = x*cy+z*sy, -x*sy+z*cy
			z += 30
			q[i] = Point{w/2 + f*x/z, h/2 + f*y/z}
		}
		got := rectAspect(orderCorners(q), w, h)
		if math.Abs(got/(8.56/5.4)-1) > 0.002 {
			t.Errorf("tilt %v/%v turn %v: aspect %.4f, want %.4f", tc.tiltX, tc.tiltY, tc.turn, got, 8.56/5.4)
		}
	}
}

// TestFindCardFaintSide: a pale card on paper that darkens across the
// photo, so one side of the card is a 3-level step (no edge at the edge
// threshold, hence no Hough line) while the others are clear. The faint
// side must still be found, and the card's own corners kept.
func TestFindCardFaintSide(t *testing.T) {
	card := color.NRGBA{236, 238, 228, 255}
	cases := []struct {
		name  string
		scene drawnScene
	}{
		{"faint right side", drawnScene{card: card, paper: color.NRGBA{200, 202, 196, 255}, paperFar: color.NRGBA{233, 235, 224, 255}, angle: 3}},
		{"faint left side", drawnScene{card: card, paper: color.NRGBA{233, 235, 224, 255}, paperFar: color.NRGBA{200, 202, 196, 255}, angle: -4}},
		{"faint side and stripe", drawnScene{card: card, paper: color.NRGBA{200, 202, 196, 255}, paperFar: color.NRGBA{233, 235, 224, 255},
			stripe: color.NRGBA{40, 120, 60, 255}, stripeH: 0.05, angle: 6}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img, want := tc.scene.render(t)
			det := FindCard(img, 85.6/53.98)
			if !det.Found || det.FillsFrame {
				t.Fatalf("card not found (score %.2f)", det.Score)
			}
			if e := quadError(det.Quad, want); e > 0.01 {
				t.Errorf("corner off by %.1f %% of the long side: found %v, want %v", 100*e, det.Quad, want)
			}
		})
	}
}

// quadError is the largest distance between a corner of q and the
// matching corner of want (in whichever order fits best), as a share of
// want's first side.
func quadError(q, want Quad) float64 {
	worst := math.Inf(1)
	for s := 0; s < 4; s++ {
		w := 0.0
		for i := 0; i < 4; i++ {
			p, r := q[(i+s)%4], want[i]
			w = math.Max(w, math.Hypot(p.X-r.X, p.Y-r.Y))
		}
		worst = math.Min(worst, w)
	}
	return worst / want.side(0)
}

// TestEnclosing: a block on the card of about the card's shape (a portrait
// photo, a barcode) may outscore the pale card's own outline; the outline
// around it is the card's when it scores close enough.
func TestEnclosing(t *testing.T) {
	card := Quad{{100, 100}, {417, 100}, {417, 300}, {100, 300}}
	photo := Quad{{120, 130}, {220, 130}, {220, 290}, {120, 290}}
	// The barcode reaches the card's foot; the card's outline through the
	// top of its foot stripe runs 4 px above the barcode's lower corners.
	barcode := Quad{{200, 220}, {380, 220}, {380, 304}, {200, 304}}
	offCard := Quad{{300, 320}, {450, 320}, {450, 420}, {300, 420}}
	big := Quad{{20, 20}, {500, 20}, {500, 340}, {20, 340}}
	// The photo's 16000 px are a quarter of frame (not a small outline)
	// and 5 % of wide (small).
	const frame, wide = 160 * 400, 640 * 480
	cases := []struct {
		name  string
		seen  []Detection
		best  Detection
		frame float64
		want  Quad
	}{
		{"photo inside the card", []Detection{{Quad: card, Score: 0.15}}, Detection{Quad: photo, Score: 0.19}, frame, card},
		{"card scores too little", []Detection{{Quad: card, Score: 0.1}}, Detection{Quad: photo, Score: 0.19}, frame, photo},
		{"small photo, card scores half", []Detection{{Quad: card, Score: 0.1}}, Detection{Quad: photo, Score: 0.19}, wide, card},
		{"small photo, card scores too little", []Detection{{Quad: card, Score: 0.09}}, Detection{Quad: photo, Score: 0.19}, wide, photo},
		{"barcode at the card's edge", []Detection{{Quad: card, Score: 0.17}}, Detection{Quad: barcode, Score: 0.22}, frame, card},
		{"outline not around the best", []Detection{{Quad: offCard, Score: 0.3}}, Detection{Quad: photo, Score: 0.19}, frame, photo},
		{"outline around twice", []Detection{{Quad: big, Score: 0.13}, {Quad: card, Score: 0.15}}, Detection{Quad: photo, Score: 0.19}, frame, big},
		{"nothing around", nil, Detection{Quad: card, Score: 0.5}, frame, card},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := enclosing(tc.seen, tc.best, tc.frame); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRefineFaintBorder: a cream card on white paper (a 5-level step in
// luminance, 25 in blue) with a dark inner frame line 1.5 % of its height
// inside. The strongest step across each side is the frame line; the
// refined side must still be the card's border, from a coarse outline on
// the border or a few pixels beside it.
func TestRefineFaintBorder(t *testing.T) {
	cream := color.NRGBA{240, 236, 215, 255}
	white := color.NRGBA{240, 240, 240, 255}
	frame := color.NRGBA{120, 120, 130, 255}
	cases := []struct {
		name  string
		scene drawnScene
		shift float64 // coarse sides moved out (+) or in (-), 480 px pixels
	}{
		{"faint border, frame inside", drawnScene{card: cream, paper: white, frame: frame, frameIn: 0.015, angle: 3}, 0},
		{"coarse outline 2 px in", drawnScene{card: cream, paper: white, frame: frame, frameIn: 0.015, angle: -2}, -2},
		{"coarse outline 2 px out", drawnScene{card: cream, paper: white, frame: frame, frameIn: 0.015, angle: 5}, 2},
		{"shadow outside, frame inside", drawnScene{card: cream, paper: white, frame: frame, frameIn: 0.015, angle: 2, shadow: 8}, 0},
		{"clear border, frame inside", drawnScene{card: cream, paper: color.NRGBA{90, 95, 100, 255}, frame: frame, frameIn: 0.015, angle: 4}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img, want := tc.scene.render(t)
			s := 480.0 / 1600
			var cx, cy float64
			for _, p := range want {
				cx += p.X / 4
				cy += p.Y / 4
			}
			var coarse Quad
			for i, p := range want {
				// Scale about the centre by the shift along the diagonal
				// (about the shift across each side).
				dx, dy := p.X-cx, p.Y-cy
				f := 1 + tc.shift/s/math.Hypot(dx, dy)*math.Sqrt2
				coarse[i] = Point{(cx + dx*f) * s, (cy + dy*f) * s}
			}
			got := refine(img, coarse, s)
			if e := quadError(got, want); e > 0.004 {
				t.Errorf("corner off by %.2f %% of the long side: got %v, want %v", 100*e, got, want)
			}
		})
	}
}

// TestFullSides: a cream card on off-white paper has a ridge of gradient
// all round its outline, which is what lets a pale outline scoring under
// minScore be taken; an outline a tenth inside the card, or one with a
// side off the card, has not.
func TestFullSides(t *testing.T) {
	img, want := drawnScene{card: color.NRGBA{240, 236, 215, 255}, paper: color.NRGBA{236, 236, 230, 255}, angle: 7}.render(t)
	b := img.Bounds()
	s := float64(detectSide) / float64(max(b.Dx(), b.Dy()))
	rgb := reduced(img, int(float64(b.Dx())*s+0.5), int(float64(b.Dy())*s+0.5))
	e := edges(rgb[:]...)
	scaled := func(q Quad, shrink float64, moved int) Quad {
		var cx, cy float64
		for _, p := range q {
			cx += p.X / 4
			cy += p.Y / 4
		}
		for i := range q {
			q[i] = Point{(cx + (q[i].X-cx)*(1-shrink)) * s, (cy + (q[i].Y-cy)*(1-shrink)) * s}
		}
		if moved >= 0 {
			q[moved].X += 25
			q[(moved+1)%4].X += 25
		}
		return q
	}
	cases := []struct {
		name string
		q    Quad
		want bool
	}{
		{"the card", scaled(want, 0, -1), true},
		{"a tenth inside", scaled(want, 0.1, -1), false},
		{"one side off", scaled(want, 0, 1), false},
	}
	for _, tc := range cases {
		if got := fullSides(e, tc.q); got != tc.want {
			t.Errorf("%s: fullSides %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A pale card on pale paper around a crisp portrait: the card's sides are
// found parallel to the portrait's, outside it (alignedCard), also when
// the portrait nearly reaches the card's left edge.
func TestAlignedCard(t *testing.T) {
	for _, tc := range []struct {
		name  string
		photo [4]float64
	}{
		{"portrait inside", [4]float64{0.06, 0.15, 0.33, 0.82}},
		{"portrait near the left edge", [4]float64{0.015, 0.15, 0.30, 0.82}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAlignedScene(t, color.NRGBA{236, 238, 228, 255}, tc.photo)
			q, ok := alignedCard(a.img, a.e, a.rgb, a.block, 0, 85.6/53.98, a.s)
			if !ok {
				t.Fatal("no card around the portrait")
			}
			if err := quadError(landscape(q), a.want); err > 0.01 {
				t.Errorf("corner off by %.1f %% of the long side: %v, want %v", 100*err, q, a.want)
			}
		})
	}
}

// A dark block on plain paper has no card around it.
func TestAlignedCardNone(t *testing.T) {
	a := newAlignedScene(t, alignedPaper, [4]float64{0.06, 0.15, 0.33, 0.82})
	if q, ok := alignedCard(a.img, a.e, a.rgb, a.block, 0, 85.6/53.98, a.s); ok {
		t.Errorf("a card %v around a block on plain paper", q)
	}
}

// The card around a block must score a third of the block at least: a
// block found crisply (a card taken rightly, small in the photo) is not
// traded for a faint outline of the photo's texture round it.
func TestAlignedCardScoresAgainstTheBlock(t *testing.T) {
	a := newAlignedScene(t, color.NRGBA{236, 238, 228, 255}, [4]float64{0.06, 0.15, 0.33, 0.82})
	if _, ok := alignedCard(a.img, a.e, a.rgb, a.block, 10, 85.6/53.98, a.s); ok {
		t.Error("a card taken round a block scoring thirty times more")
	}
}

var alignedPaper = color.NRGBA{226, 228, 220, 255}

// alignedScene is a card of colour card on alignedPaper, turned 21
// degrees, with a dark block at photo (shares of the card), reduced and
// its edges found as FindCard does; block is the block's outline there.
type alignedScene struct {
	img   image.Image
	want  Quad
	e     *edgeMap
	rgb   [3]*plane
	block Quad
	s     float64
}

func newAlignedScene(t *testing.T, card color.NRGBA, photo [4]float64) alignedScene {
	sc := drawnScene{card: card, paper: alignedPaper, angle: 21, photo: photo, photoC: color.NRGBA{60, 50, 45, 255}}
	img, want := sc.render(t)
	W, H := img.Bounds().Dx(), img.Bounds().Dy()
	s := float64(detectSide) / float64(max(W, H))
	rgb := reduced(img, int(float64(W)*s+0.5), int(float64(H)*s+0.5))
	return alignedScene{img: img, want: want, e: edges(rgb[:]...), rgb: rgb,
		block: scaleQuad(sc.place(photo[0], photo[1], photo[2], photo[3]), s, image.Point{}), s: s}
}
