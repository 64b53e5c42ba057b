package docauth

import (
	"image"
	"image/color"
	"math"
	"os"
	"testing"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/vision"
)

// Values of the ICAO specimen passport (Utopia), boxes found by eye on the
// 1334 x 880 scan.
var utopiaValues = map[string]image.Rectangle{
	"surname":     image.Rect(476, 236, 626, 264),
	"given_names": image.Rect(480, 300, 658, 328),
	"nationality": image.Rect(478, 363, 606, 390),
}

func utopia(t *testing.T) *image.NRGBA {
	t.Helper()
	return imaging.Clone(specimenImage(t, "passeye_passport-td3.jpg"))
}

// reprint turns the print in r by deg degrees about its middle, on the
// paper's white, as a forger who reprints a value slightly askew.
func reprint(img *image.NRGBA, r image.Rectangle, deg float64) *image.NRGBA {
	out := imaging.Clone(img)
	word := imaging.Crop(img, r)
	turned := imaging.Rotate(word, -deg, color.White)
	tb := turned.Bounds()
	ox := r.Min.X - (tb.Dx()-r.Dx())/2
	oy := r.Min.Y - (tb.Dy()-r.Dy())/2
	for y := 0; y < tb.Dy(); y++ {
		for x := 0; x < tb.Dx(); x++ {
			out.Set(ox+x, oy+y, turned.At(x, y))
		}
	}
	return out
}

// The issuer's values stand square; one reprinted a degree off its line
// measures that degree and is the one the layer names.
func TestValueTiltOnSpecimen(t *testing.T) {
	img := utopia(t)
	l := lumaOf(img)
	for name, box := range utopiaValues {
		vp, ok := measureValue(l, box)
		if !ok || vp.Glyphs < 6 {
			t.Fatalf("%s: measured %v, %d glyphs", name, ok, vp.Glyphs)
		}
		if math.Abs(vp.Tilt) > 0.2 {
			t.Errorf("%s: tilt %.2f degrees on the genuine print", name, vp.Tilt)
		}
	}
	for _, deg := range []float64{1.0, -0.7} {
		edited := reprint(img, utopiaValues["surname"], deg)
		vp, ok := measureValue(lumaOf(edited), utopiaValues["surname"].Inset(-4))
		if !ok || math.Abs(vp.Tilt-deg) > 0.25 {
			t.Errorf("reprinted at %.1f: tilt %.2f (measured %v)", deg, vp.Tilt, ok)
		}
	}

	// through the layer, with the reader's account of where it found them
	edited := reprint(img, utopiaValues["surname"], 1.0)
	b := edited.Bounds()
	frac := func(r image.Rectangle) [4]float64 {
		W, H := float64(b.Dx()), float64(b.Dy())
		return [4]float64{float64(r.Min.X) / W, float64(r.Min.Y) / H, float64(r.Dx()) / W, float64(r.Dy()) / H}
	}
	rd := &idv.OCRReadings{Fields: map[string]idv.FieldReading{}}
	for name, box := range utopiaValues {
		rd.Fields[name] = idv.FieldReading{Side: "front", How: "label", Conf: 90, Box: frac(box.Inset(-4))}
	}
	// a fourth value: the date of birth line
	rd.Fields["date_of_birth"] = idv.FieldReading{Side: "front", How: "label", Conf: 90, Box: frac(image.Rect(478, 425, 640, 452))}
	for _, tc := range []struct {
		name string
		img  *image.NRGBA
		want int
	}{{"genuine", img, 0}, {"surname reprinted", edited, 1}} {
		in := &inputs{front: tc.img, readings: rd}
		lr := valuePrintLayer(in)
		if lr.skipped != "" {
			t.Fatalf("%s: skipped: %s", tc.name, lr.skipped)
		}
		if len(lr.findings) != tc.want {
			t.Errorf("%s: findings %+v, want %d", tc.name, lr.findings, tc.want)
		}
	}
}

// Without the reader's account, or with too few values, the layer says it
// could not examine the print.
func TestValuePrintSkips(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 200, 100))
	if lr := valuePrintLayer(&inputs{front: img}); lr.skipped == "" {
		t.Error("no readings: not skipped")
	}
	rd := &idv.OCRReadings{Fields: map[string]idv.FieldReading{"surname": {Side: "front", How: "label", Box: [4]float64{0.1, 0.1, 0.5, 0.2}}}}
	if lr := valuePrintLayer(&inputs{front: img, readings: rd}); lr.skipped == "" {
		t.Error("one value: not skipped")
	}
}

// A side turned by a residual perspective: its values' tilts change
// across it; each value is judged against what the others predict at its
// place, so none stands out but the one printed askew of the field.
func TestDeviationsAgainstTheCardsTilt(t *testing.T) {
	field := func(x, y float64) float64 { return 0.4 + 1.8*x - 1.2*y }
	var ps []printed
	for i, p := range [][2]float64{{0.4, 0.2}, {0.7, 0.2}, {0.4, 0.4}, {0.7, 0.4}, {0.4, 0.6}, {0.7, 0.6}, {0.4, 0.8}} {
		tilt := field(p[0], p[1])
		if i == 4 {
			tilt += 0.9 // reprinted askew
		}
		ps = append(ps, printed{field: string(rune('a' + i)), x: p[0], y: p[1], vp: valuePrint{Tilt: tilt, Glyphs: 9}})
	}
	deviations(ps)
	for i, p := range ps {
		if odd := oddPrint(p) != ""; odd != (i == 4) {
			t.Errorf("value %d: deviation %.3f, odd %v", i, p.tilt, odd)
		}
	}
	if a, b, c, ok := planeFit([]float64{0, 1, 0}, []float64{0, 0, 1}, []float64{1, 3, 0}, []float64{1, 1, 1}); !ok || math.Abs(a-1) > 1e-9 || math.Abs(b-2) > 1e-9 || math.Abs(c+1) > 1e-9 {
		t.Errorf("plane through three points: %v %v %v %v", a, b, c, ok)
	}
	if _, _, _, ok := planeFit([]float64{0, 1, 2}, []float64{0, 1, 2}, []float64{1, 2, 3}, []float64{1, 1, 1}); ok {
		t.Error("points on a line gave a plane")
	}
}

// Values taken from the MRZ, or found on the print by the MRZ's value,
// are examined with the MRZ, not as print of the side.
func TestSidePrintsLeaveMRZBackedValuesOut(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 400, 250))
	for y := 0; y < 250; y++ {
		for x := 0; x < 400; x++ {
			img.Set(x, y, color.White)
		}
	}
	for _, b := range []image.Rectangle{image.Rect(40, 30, 160, 50), image.Rect(40, 90, 160, 110), image.Rect(40, 150, 160, 170)} {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x += 6 {
				img.Set(x, y, color.Black)
				img.Set(x+1, y, color.Black)
			}
		}
	}
	box := func(y float64) [4]float64 { return [4]float64{0.1, y, 0.3, 0.08} }
	rd := &idv.OCRReadings{Fields: map[string]idv.FieldReading{
		"surname":     {Side: "front", How: "label", Box: box(0.12)},
		"given_names": {Side: "front", How: "mrz_located", Box: box(0.36)},
		"nationality": {Side: "front", How: "mrz", Box: box(0.6)},
	}}
	l := lumaOf(img)
	var got []string
	for _, p := range sidePrints(l, "front", rd) {
		got = append(got, p.field)
	}
	if len(got) != 1 || got[0] != "surname" {
		t.Errorf("values judged as print: %v, want surname only", got)
	}
}

// patch lightens the card's surface around the print in r (grown by
// grow px) toward white, leaving the ink, as a forger who scrapes a value
// off or covers it with a light patch and prints the new one on it.
func patch(img *image.NRGBA, r image.Rectangle, grow int, strength float64) *image.NRGBA {
	out := imaging.Clone(img)
	l := lumaOf(img)
	th, _ := l.inkLevel(r)
	p := r.Inset(-grow)
	for y := p.Min.Y; y < p.Max.Y; y++ {
		for x := p.Min.X; x < p.Max.X; x++ {
			if l.p[y*l.w+x] < th {
				continue
			}
			i := out.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				v := float64(out.Pix[i+k])
				out.Pix[i+k] = uint8(v + strength*(248-v))
			}
		}
	}
	return out
}

// captions prints two lines of caption-like strokes in a light magenta
// (luminance about 168) close above and below the print in r, as held-out
// layouts set a field's caption over its value and the next under it.
func captions(img *image.NRGBA, r image.Rectangle) *image.NRGBA {
	out := imaging.Clone(img)
	h := r.Dy()
	ink := color.NRGBA{R: 215, G: 135, B: 215, A: 255}
	for _, y0 := range []int{r.Min.Y - h, r.Max.Y + h*3/5} {
		for y := y0; y < y0+h*2/5; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if x%4 != 3 {
					out.SetNRGBA(x, y, ink)
				}
			}
		}
	}
	return out
}

// Values of the Finnish specimen passport of testdata/ids (601 x 426),
// boxes found by eye: printed over the page's blue guilloche.
var finValues = map[string]image.Rectangle{
	"surname":         image.Rect(186, 84, 264, 101),
	"given_names":     image.Rect(186, 115, 288, 132),
	"nationality":     image.Rect(186, 147, 373, 161),
	"date_of_birth":   image.Rect(186, 177, 273, 193),
	"document_number": image.Rect(393, 54, 479, 70),
	"date_of_expiry":  image.Rect(393, 237, 466, 253),
}

// A value printed on a light patch: the surface right around it is
// lighter than farther out, unlike around the other values, and it is
// the one the layer names; the issuer's values, over the guilloche, show
// no such lift.
func TestValueOnPatchOnSpecimen(t *testing.T) {
	img := imaging.Clone(specimenImage(t, "passeye_100_pass-fin.png"))
	b := img.Bounds()
	frac := func(r image.Rectangle) [4]float64 {
		W, H := float64(b.Dx()), float64(b.Dy())
		return [4]float64{float64(r.Min.X) / W, float64(r.Min.Y) / H, float64(r.Dx()) / W, float64(r.Dy()) / H}
	}
	rd := &idv.OCRReadings{Fields: map[string]idv.FieldReading{}}
	for name, box := range finValues {
		rd.Fields[name] = idv.FieldReading{Side: "front", How: "label", Conf: 90, Box: frac(box)}
	}
	for _, tc := range []struct {
		name string
		img  *image.NRGBA
		want []string
	}{
		{"genuine", img, nil},
		// the patch reaches a third of the letters' height beyond the
		// box, as a strip of correction or a sticker does, and hides
		// the guilloche by two thirds
		{"date of birth on a patch", patch(img, finValues["date_of_birth"], 5, 0.65), []string{"date_of_birth"}},
		// a faint patch (15 %) stays within the genuine spread
		{"faint patch", patch(img, finValues["date_of_birth"], 5, 0.15), nil},
		// captions in a light colour above and below a value fall in
		// the ring farther out (lighter than the value's ink, they are
		// not left out as ink) and do not make it stand out
		{"light captions", captions(img, finValues["date_of_birth"]), nil},
	} {
		l := lumaOf(tc.img)
		ps := sidePrints(l, "front", rd)
		lifts(ps)
		var odd []string
		for _, p := range ps {
			if !p.gr.ok {
				t.Fatalf("%s: %s: surface not measured", tc.name, p.field)
			}
			if oddPrint(p) != "" {
				odd = append(odd, p.field)
			}
			t.Logf("%s: %s lift %.1f (%.1f around, %.1f out)", tc.name, p.field, p.lift, p.gr.In, p.gr.Out)
		}
		if len(odd) != len(tc.want) || len(odd) > 0 && odd[0] != tc.want[0] {
			t.Errorf("%s: odd values %v, want %v", tc.name, odd, tc.want)
		}
		lr := valuePrintLayer(&inputs{front: tc.img, readings: rd})
		if len(lr.findings) != len(tc.want) {
			t.Errorf("%s: findings %+v, want %d", tc.name, lr.findings, len(tc.want))
		}
	}
}

// The surface around the six values of the Finnish specimen, enlarged 2.5
// times (values about 30 px high, as on a rectified capture).
func BenchmarkValueGround(b *testing.B) {
	raw, err := os.ReadFile(fixtures.Path(b, "ids", "passeye_100_pass-fin.png"))
	if err != nil {
		b.Fatal(err)
	}
	dec, err := vision.Decode(raw)
	if err != nil {
		b.Fatal(err)
	}
	const k = 2.5
	big := imaging.Resize(dec, int(k*float64(dec.Bounds().Dx())), 0, imaging.Linear)
	l := lumaOf(big)
	var boxes []image.Rectangle
	for _, r := range finValues {
		boxes = append(boxes, image.Rect(int(k*float64(r.Min.X)), int(k*float64(r.Min.Y)), int(k*float64(r.Max.X)), int(k*float64(r.Max.Y))))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range boxes {
			measureGround(l, r, 0.8*float64(r.Dy()))
		}
	}
}

// flatPatch paints the card's surface around the print in r (grown by
// grow px) with one flat colour, its mean plus lighter grey levels,
// leaving the ink: an editor's brush that covers the old value in the
// card's own tint, or a printed strip matched to it, with the new value
// printed on top. The artwork's fine lines are gone there; the tint is
// about the card's.
func flatPatch(img *image.NRGBA, r image.Rectangle, grow int, lighter float64) *image.NRGBA {
	out := imaging.Clone(img)
	l := lumaOf(img)
	th, _ := l.inkLevel(r)
	p := r.Inset(-grow)
	var sum [3]float64
	n := 0.0
	for y := p.Min.Y; y < p.Max.Y; y++ {
		for x := p.Min.X; x < p.Max.X; x++ {
			if l.p[y*l.w+x] >= th {
				i := img.PixOffset(x, y)
				for k := 0; k < 3; k++ {
					sum[k] += float64(img.Pix[i+k])
				}
				n++
			}
		}
	}
	for y := p.Min.Y; y < p.Max.Y; y++ {
		for x := p.Min.X; x < p.Max.X; x++ {
			if l.p[y*l.w+x] < th {
				continue
			}
			i := out.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				out.Pix[i+k] = uint8(math.Min(255, sum[k]/n+lighter))
			}
		}
	}
	return out
}

// A value whose surroundings were painted over in about the card's own
// tint: the guilloche is gone around it and the surface is a little
// lighter, too little for the lift alone (printMaxLift); the two together
// name it. The issuer's values, and the same value on a patch that keeps
// the artwork (a faint tint), are not named.
func TestValueOnFlatPatchOnSpecimen(t *testing.T) {
	img := imaging.Clone(specimenImage(t, "passeye_100_pass-fin.png"))
	// enlarged 2.5 times: values about 30 px high, as on a rectified
	// capture, where the guilloche's lines are several pixels apart
	const k = 2.5
	big := imaging.Resize(img, int(k*float64(img.Bounds().Dx())), 0, imaging.Linear)
	b := big.Bounds()
	boxes := map[string]image.Rectangle{}
	rd := &idv.OCRReadings{Fields: map[string]idv.FieldReading{}}
	for name, r := range finValues {
		s := image.Rect(int(k*float64(r.Min.X)), int(k*float64(r.Min.Y)), int(k*float64(r.Max.X)), int(k*float64(r.Max.Y)))
		boxes[name] = s
		W, H := float64(b.Dx()), float64(b.Dy())
		rd.Fields[name] = idv.FieldReading{Side: "front", How: "label", Conf: 90,
			Box: [4]float64{float64(s.Min.X) / W, float64(s.Min.Y) / H, float64(s.Dx()) / W, float64(s.Dy()) / H}}
	}
	dob := boxes["date_of_birth"]
	for _, tc := range []struct {
		name string
		img  *image.NRGBA
		want []string
	}{
		{"genuine", big, nil},
		{"date of birth on a flat patch in the card's tint", flatPatch(big, dob, dob.Dy()/3, 16), []string{"date_of_birth"}},
		{"faint patch keeps the artwork", patch(big, dob, dob.Dy()/3, 0.15), nil},
	} {
		l := lumaOf(tc.img)
		ps := sidePrints(l, "front", rd)
		lifts(ps)
		flats(ps)
		var odd []string
		for _, p := range ps {
			if oddPrint(p) != "" {
				odd = append(odd, p.field)
			}
			t.Logf("%s: %s lift %.1f flat %.2f (texture %.2f/%.2f, smoothed %.2f/%.2f)", tc.name, p.field, p.lift, p.flat, p.gr.TexIn, p.gr.TexOut, p.gr.Tex2In, p.gr.Tex2Out)
		}
		if len(odd) != len(tc.want) || len(odd) > 0 && odd[0] != tc.want[0] {
			t.Errorf("%s: odd values %v, want %v", tc.name, odd, tc.want)
		}
	}
}

// A value 0.6 degree off the others' line counts on a side whose others
// predict one another's turn within a few hundredths of a degree, and not
// on one whose others scatter by more than that themselves (a side turned
// unevenly, or measured through blur: genuine fronts of seed 4409 and
// 5581 whose values stood 0.5 to 1.6 degrees off so).
func TestTiltAgainstWhatTheOthersMiss(t *testing.T) {
	for _, tc := range []struct {
		name    string
		scatter []float64
		odd     bool
	}{
		{"a clean side", []float64{0.02, -0.01, 0.03, -0.02, 0.01}, true},
		{"a side that scatters", []float64{0.5, -0.5, 0.45, -0.45, 0.0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := []printed{{field: "edited", x: 0.5, y: 0.5, vp: valuePrint{Tilt: 0.6, Glyphs: 9}}}
			for i, s := range tc.scatter {
				ps = append(ps, printed{field: string(rune('a' + i)), x: 0.2 + 0.15*float64(i), y: 0.3, vp: valuePrint{Tilt: s, Glyphs: 9}})
			}
			deviations(ps)
			if odd := oddPrint(ps[0]) != ""; odd != tc.odd {
				t.Errorf("off %.2f, the others miss %.2f: odd %v, want %v", ps[0].tilt, ps[0].miss, odd, tc.odd)
			}
		})
	}
}
