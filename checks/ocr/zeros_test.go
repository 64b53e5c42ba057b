package ocr

import (
	"image"
	"image/draw"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/tambua/tambua/idv"
)

// testFace is the font in file at size px (72 dpi, hinted).
func testFace(t *testing.T, file string, px float64) font.Face {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fnt, err := opentype.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	return face
}

// printedDigits draws s in the font file at size px on white, softened
// by a 1-pixel box blur as a capture softens print, and returns the grey
// image and the ink's box.
func printedDigits(t *testing.T, file, s string, px float64) (*image.Gray, image.Rectangle) {
	t.Helper()
	face := testFace(t, file, px)
	g := image.NewGray(image.Rect(0, 0, 40+int(px)*len(s), 3*int(px)))
	draw.Draw(g, g.Bounds(), image.White, image.Point{}, draw.Src)
	dr := font.Drawer{Dst: g, Src: image.Black, Face: face, Dot: fixed.P(20, 2*int(px))}
	bounds, _ := dr.BoundString(s)
	dr.DrawString(s)
	r := image.Rect(bounds.Min.X.Floor(), bounds.Min.Y.Floor(), bounds.Max.X.Ceil(), bounds.Max.Y.Ceil())
	return boxBlur(g, 1), r
}

// The fonts of the synth corpus and of the HTML renderer (whose fonts no
// threshold here was chosen on: Roboto, Open Sans, Lato): each zero is
// shaped as one and no 6, at the sizes values are printed.
func TestZeroShaped(t *testing.T) {
	fonts := []string{
		"dejavu/DejaVuSansMono-Bold.ttf", "liberation2/LiberationMono-Bold.ttf", "dejavu/DejaVuSans-Bold.ttf",
		"dejavu/DejaVuSerif-Bold.ttf", "dejavu/DejaVuSansCondensed-Bold.ttf", "liberation2/LiberationSans-Regular.ttf",
		"liberation2/LiberationSerif-Bold.ttf", "freefont/FreeSans.ttf", "freefont/FreeSerifBold.ttf", "freefont/FreeMonoBold.ttf",
		"crosextra/Carlito-Bold.ttf", "roboto/unhinted/RobotoTTF/Roboto-Bold.ttf", "open-sans/OpenSans-Bold.ttf", "lato/Lato-Bold.ttf",
	}
	for _, f := range fonts {
		for _, px := range []float64{20, 22, 36} {
			file := filepath.Join("/usr/share/fonts/truetype", f)
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: %v (make setup installs it)", f, err)
				continue
			}
			// Spaced: blurred proportional print at 22 px joins some
			// digits, and openZeros then leaves the value as read.
			g, r := printedDigits(t, file, "0 6 0 6", px)
			gs := glyphBoxes(g, r)
			if len(gs) != 4 {
				t.Errorf("%s at %.0f px: %d glyphs, want 4", f, px, len(gs))
				continue
			}
			for i, want := range []bool{true, false, true, false} {
				if zeroShaped(g, gs[i]) != want {
					t.Errorf("%s at %.0f px: glyph %d (of 0 6 0 6) shaped as a zero %v, want %v", f, px, i, !want, want)
				}
			}
		}
	}
}

func TestOpenZeros(t *testing.T) {
	num := idv.FieldDef{Name: "passport_number", Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", Pattern: `^[A-Z][0-9]{7}$`}
	d := testDef(num)
	mono := "/usr/share/fonts/truetype/liberation2/LiberationMono-Bold.ttf"
	for _, tt := range []struct{ printed, read, want string }{
		{"W8770472", "W8776472", "W8770472"}, // a dotted zero read as 6
		{"W8776472", "W8776472", "W8776472"}, // a 6 stays
		{"W8770472", "W877047", "W877047"},   // glyphs and letters do not pair: left as read
	} {
		g, r := printedDigits(t, mono, tt.printed, 30)
		ly := &layout{pg: &page{grey: g, w: g.Bounds().Dx(), h: g.Bounds().Dy()}}
		rs := map[string]fieldRead{num.Name: {box: r, value: tt.read, raw: tt.read, valid: true}}
		openZeros(d, ly, rs)
		if got := rs[num.Name].value; got != tt.want {
			t.Errorf("printed %s read %s: %s, want %s", tt.printed, tt.read, got, tt.want)
		}
	}
}

// The page's words are corrected where they are read, so a date's
// dotted zeros read as 6s (62 OCT 2619) reach every field as zeros.
func TestZeroWords(t *testing.T) {
	mono := "/usr/share/fonts/truetype/liberation2/LiberationMono-Bold.ttf"
	g, day := printedDigits(t, mono, "02", 30)
	ws := []word{{box: day, text: "62"}, {box: day, text: "6Z"}, {box: day, text: "6z"}}
	zeroWords(g, ws)
	if ws[0].text != "02" || ws[1].text != "0Z" || ws[2].text != "6z" {
		t.Errorf("words %q %q %q, want 02 0Z 6z (lower case is print of other heights: left as read)", ws[0].text, ws[1].text, ws[2].text)
	}
	g, year := printedDigits(t, mono, "2619", 30)
	ws = []word{{box: year, text: "2619"}, {box: year, text: "26 19"}}
	zeroWords(g, ws)
	if ws[0].text != "2619" || ws[1].text != "26 19" {
		t.Errorf("words %q %q, want 2619 and 26 19 (a 6 printed, and text that is not one word, stay)", ws[0].text, ws[1].text)
	}
}

// A box that holds other print besides the value (a zone read whole,
// with its faint small caption) pairs no glyph with a character, even
// when the counts agree.
func TestZeroedOtherPrint(t *testing.T) {
	mono := "/usr/share/fonts/truetype/liberation2/LiberationMono-Bold.ttf"
	g, r := printedDigits(t, mono, "2600", 30)
	small, sr := printedDigits(t, mono, "A9", 14)
	// The small print left of the value, on its line's lower half.
	off := image.Pt(r.Min.X-sr.Dx()-10-sr.Min.X, r.Max.Y-sr.Max.Y)
	draw.Draw(g, sr.Add(off), small, sr.Min, draw.Src)
	box := r.Union(sr.Add(off))
	// Six glyphs, and a reading of six characters whose 6 falls on the
	// value's 2, closed on the right where a 6 is open.
	if got := zeroed(g, box, "A96600"); got != "A96600" {
		t.Errorf("zeroed = %s, want A96600 left as read", got)
	}
	if got := zeroed(g, r, "2606"); got != "2600" {
		t.Errorf("zeroed = %s, want 2600 (the value's own box)", got)
	}
}

// A small 6 whose gap under its top stroke closed (blur on a soft
// capture; here a thin stroke drawn down its right side) is still no
// zero: its right side holds less ink above than below.
func TestClosedSix(t *testing.T) {
	g, r := printedDigits(t, "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "1969", 24)
	gs := glyphBoxes(g, r)
	if len(gs) != 4 {
		t.Fatalf("%d glyphs, want 4", len(gs))
	}
	six := gs[2].box
	for y := six.Min.Y + six.Dy()/8; y < six.Min.Y+six.Dy()/2; y++ {
		g.Pix[y*g.Stride+six.Max.X-1], g.Pix[y*g.Stride+six.Max.X-2] = 40, 40
	}
	gs = glyphBoxes(g, r)
	if !closedRight(gs[2]) {
		t.Fatal("the drawn stroke did not close the 6")
	}
	if got := zeroed(g, r, "1969"); got != "1969" {
		t.Errorf("zeroed = %s, want 1969", got)
	}
}
