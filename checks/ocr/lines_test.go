package ocr

import (
	"context"
	"encoding/binary"
	"image"
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/vision"
)

var synthSides struct {
	once  sync.Once
	cards []*vision.Card
	defs  []*idv.DocumentDefinition // the definition of each card
	err   error
}

// synthCards are rectified sides of synth medium captures (seed 12, the
// tuning seed): a Kenyan ID's front and back and a passport page, the
// inputs the page reading gets.
func synthCards(tb testing.TB) []*vision.Card {
	tb.Helper()
	s := &synthSides
	s.once.Do(func() {
		reg := docdefs.Default()
		gen, err := synth.New(synth.Options{Definitions: reg.Drawn(), Seed: 12, Difficulty: synth.Medium, ImpostorRate: -1})
		if err != nil {
			s.err = err
			return
		}
		want := map[string]bool{"kenya_national_id": true, "generic_passport": true}
		for i := 0; i < 2*len(reg.Drawn()) && len(want) > 0; i++ {
			smp, err := gen.Sample(context.Background(), i)
			if err != nil {
				s.err = err
				return
			}
			if !want[smp.Truth.Config] {
				continue
			}
			delete(want, smp.Truth.Config)
			def, _ := reg.Definition(smp.Truth.Config)
			for _, side := range def.Sides {
				data := smp.Front
				if side == "back" {
					data = smp.Back
				}
				img, err := vision.Decode(data)
				if err != nil {
					s.err = err
					return
				}
				c, err := vision.Rectify(img, def, side)
				if err != nil {
					s.err = err
					return
				}
				s.cards = append(s.cards, c)
				s.defs = append(s.defs, def)
			}
		}
	})
	if s.err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatal(s.err)
		}
		tb.Skip(s.err)
	}
	return s.cards
}

// TestInkPassesMatchReference: the ink masks, their dilation and their
// blobs as textLines computes them (both floors in one pass, blobs from
// runs) are those of the plain pixel-by-pixel definitions below, on real
// rectified sides.
func TestInkPassesMatchReference(t *testing.T) {
	for i, c := range synthCards(t) {
		g := pageGrey(c.Image)
		w, h := g.Bounds().Dx(), g.Bounds().Dy()
		r := max(2, h/80)
		hi := maxFilter(g, r)
		strong, light := inkMasks(g, hi, r)
		for _, tc := range []struct {
			name            string
			got             []uint8
			contrast, depth int
		}{{"strong", strong, 35, minDepth}, {"light", light, 25, lightDepth}} {
			want := refInkMask(g, hi, r, tc.contrast, tc.depth)
			if !reflect.DeepEqual(toBools(tc.got), want) {
				t.Errorf("side %d %s: mask differs", i, tc.name)
			}
			wantD := refDilate(want, w, h)
			gotD := dilate(tc.got, w, h)
			if !reflect.DeepEqual(toBools(gotD), wantD) {
				t.Errorf("side %d %s: dilation differs", i, tc.name)
			}
			wantB := refBlobs(wantD, w, h, g, hi)
			gotB := blobs(gotD, w, h, g, hi)
			if !reflect.DeepEqual(gotB, wantB) {
				t.Errorf("side %d %s: %d blobs, want %d (or they differ)", i, tc.name, len(gotB), len(wantB))
			}
		}
	}
}

func toBools(m []uint8) []bool {
	out := make([]bool, len(m))
	for i, v := range m {
		out[i] = v != 0
	}
	return out
}

// refInkMask is Bernsen's local threshold pixel by pixel: darker than
// halfway between the darkest and brightest level within r, those at
// least minContrast apart, and minDepth under the brightest.
func refInkMask(g, hi *image.Gray, r, minContrast, minDepth int) []bool {
	w, h := g.Bounds().Dx(), g.Bounds().Dy()
	inv := image.NewGray(image.Rect(0, 0, w, h))
	for i, v := range g.Pix {
		inv.Pix[i] = 255 - v
	}
	lo := maxFilter(inv, r)
	ink := make([]bool, w*h)
	for i := range ink {
		l, u, v := 255-int(lo.Pix[i]), int(hi.Pix[i]), int(g.Pix[i])
		ink[i] = u-l >= minContrast && 2*v < l+u && u-v >= minDepth
	}
	return ink
}

func refDilate(ink []bool, w, h int) []bool {
	out := make([]bool, len(ink))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx >= 0 && ny >= 0 && nx < w && ny < h && ink[ny*w+nx] {
						out[y*w+x] = true
					}
				}
			}
		}
	}
	return out
}

// refBlobs are the 8-connected components by flood fill, in the order of
// their first pixel.
func refBlobs(ink []bool, w, h int, g, hi *image.Gray) []blob {
	label := make([]bool, len(ink))
	var out []blob
	for start, on := range ink {
		if !on || label[start] {
			continue
		}
		bl := blob{r: image.Rect(start%w, start/w, start%w+1, start/w+1)}
		label[start] = true
		stack := []int{start}
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			bl.area++
			bl.depth = max(bl.depth, int(hi.Pix[i])-int(g.Pix[i]))
			bl.r = bl.r.Union(image.Rect(x, y, x+1, y+1))
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					if j := ny*w + nx; ink[j] && !label[j] {
						label[j] = true
						stack = append(stack, j)
					}
				}
			}
		}
		out = append(out, bl)
	}
	return out
}

// benchCPU runs f b.N times and reports the process's CPU time per run
// (cpu-ms/op) beside the wall time: on a shared machine the wall time
// counts other processes' turns too.
func benchCPU(b *testing.B, f func()) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	c0 := bench.ProcessCPU()
	for i := 0; i < b.N; i++ {
		f()
	}
	b.ReportMetric(float64((bench.ProcessCPU()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkTextLines: finding the lines of print on a rectified Kenyan ID
// front (synth medium, seed 12).
func BenchmarkTextLines(b *testing.B) {
	g := pageGrey(synthCards(b)[0].Image)
	benchCPU(b, func() { textLines(g) })
}

// BenchmarkPageGrey: a rectified side made grey, flattened and stretched.
func BenchmarkPageGrey(b *testing.B) {
	img := synthCards(b)[0].Image
	benchCPU(b, func() { pageGrey(img) })
}

// TestSpix: leptonica's serial form of a 5 x 2 grey image: the header
// words, then each row in 32-bit words, first pixel in the most
// significant byte, the row's end padded with zeros.
func TestSpix(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 5, 2))
	copy(g.Pix, []uint8{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	got := spix(g)
	word := func(i int) uint32 { return binary.NativeEndian.Uint32(got[4*i:]) }
	if string(got[:4]) != "spix" {
		t.Fatalf("id %q", got[:4])
	}
	for i, want := range []uint32{5, 2, 8, 2, 0, 16, 0x01020304, 0x05000000, 0x06070809, 0x0a000000} {
		if w := word(i + 1); w != want {
			t.Errorf("word %d = %#x, want %#x", i+1, w, want)
		}
	}
	if len(got) != 4*11 {
		t.Errorf("%d bytes, want 44", len(got))
	}
}

// BenchmarkReadPage: a whole page reading (lines found, each read by
// tesseract) of a rectified synth passport page (medium, seed 12), the
// bulk of a side's cost: with its MRZ read by tesseract like any print,
// and taken from the template reader's band (mrzBand).
func BenchmarkReadPage(b *testing.B) {
	cards := synthCards(b)
	i := slices.IndexFunc(synthSides.defs, func(d *idv.DocumentDefinition) bool { return d.Config == "generic_passport" })
	c, def := cards[i], synthSides.defs[i]
	k := New(WithWorkers(1))
	defer k.Close()
	ctx := context.Background()
	_, band, err := k.readMRZ(ctx, def, c)
	if err != nil || band == nil {
		b.Fatalf("no MRZ band read (%v)", err)
	}
	for _, bc := range []struct {
		name string
		band *mrzBand
	}{{"tesseract", nil}, {"mrz_band", band}} {
		b.Run(bc.name, func(b *testing.B) {
			benchCPU(b, func() {
				if _, err := k.tess().readText(ctx, &sideText{card: c, grey: pageGrey(c.Image), mrz: bc.band}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// A value set large right after its small caption, hanging from the
// caption's top (CODE / CODE DU PAYS UTO on the HTML dev2 style's TD2
// card), chains with the caption's glyphs; it is a line of its own, not
// left out of the caption's line as too tall for it.
func TestLinesOfKeepsALargeValueAfterItsCaption(t *testing.T) {
	var bs []blob
	glyph := func(x, y, w, h int) {
		// Inset(1) by linesOf: one pixel around.
		bs = append(bs, blob{r: image.Rect(x-1, y-1, x+w+1, y+h+1), area: w * h / 2, depth: 120})
	}
	x := 400
	for i := 0; i < 12; i++ { // the caption: 12 glyphs 14 px high
		glyph(x, 208, 9, 14)
		x += 12
	}
	x += 10
	for i := 0; i < 3; i++ { // the value: 3 glyphs 26 px high from the caption's top
		glyph(x, 210, 18, 26)
		x += 21
	}
	lines := linesOf(bs, 1260, 1050, minDepth, 1)
	var got []image.Rectangle
	for _, l := range lines {
		got = append(got, l.r)
	}
	value := image.Rect(x-63, 210, x, 236)
	for _, r := range got {
		if r.Overlaps(value) && r.Dy() >= 24 {
			return
		}
	}
	t.Errorf("lines %v: none holds the value at %v", got, value)
}

// A tall letter chained into a run of smaller glyphs right beside them
// (the J of Jonny over the band of its lower-case letters; John on a
// Kenyan passport of the columns family) is read with the run's crop: it
// is no line of its own, which tesseract read as another word (Jc).
func TestLinesOfKeepsATallLetterInItsRun(t *testing.T) {
	var bs []blob
	glyph := func(x, y, w, h int) {
		bs = append(bs, blob{r: image.Rect(x-1, y-1, x+w+1, y+h+1), area: w * h / 2, depth: 120})
	}
	glyph(733, 351, 14, 40) // J
	for _, x := range []int{750, 772, 794, 816} {
		glyph(x, 367, 18, 24) // onny's x-height
	}
	lines := linesOf(bs, 1500, 1264, minDepth, 1)
	if len(lines) != 1 {
		var got []image.Rectangle
		for _, l := range lines {
			got = append(got, l.r)
		}
		t.Errorf("lines %v, want one", got)
	}
}

// A soft caption whose letters all touch is one blob nine heights long,
// filled as a word's letters fill their box (Authority/Mamlaka: on an
// HTML dev2 passport page): a line. A solid bar as long is not.
func TestLinesOfLongWordBlob(t *testing.T) {
	for _, tc := range []struct {
		name string
		area int
		want int
	}{
		{"a word whose letters touch", 1478, 1},
		{"a solid bar", 2500, 0},
		{"a thin stroke of artwork", 500, 0},
	} {
		bs := []blob{{r: image.Rect(491, 771, 647, 790), area: tc.area, depth: 120}}
		if got := len(linesOf(bs, 1500, 1055, minDepth, 1)); got != tc.want {
			t.Errorf("%s: %d lines, want %d", tc.name, got, tc.want)
		}
	}
}

// A caption in lower case and its value set larger on one line are cut
// apart though their boxes' heights are within one and a half of each
// other (the p of Mahali pa, the M of Machakos): their glyphs' typical
// heights say so too.
func TestSplitBySizeByTypicalHeight(t *testing.T) {
	r := func(x0, y0, x1, y1, a int) blob { return blob{r: image.Rect(x0, y0, x1, y1), area: a} }
	caption := []blob{r(494, 613, 533, 626, 403), r(538, 613, 553, 626, 171), r(559, 613, 594, 626, 420), r(597, 619, 599, 625, 29),
		r(601, 613, 653, 626, 511), r(659, 617, 676, 629, 189), r(682, 613, 752, 627, 722)}
	value := []blob{r(771, 603, 822, 626, 957), r(825, 602, 870, 626, 832), r(872, 608, 902, 626, 497)}
	parts := splitBySize(textLine{blobs: append(append([]blob(nil), caption...), value...), glyphH: 13})
	if len(parts) != 2 || parts[1].r.Min.X != 771 || parts[1].n != 3 {
		var got []image.Rectangle
		for _, p := range parts {
			got = append(got, p.r)
		}
		t.Errorf("parts %v, want the caption and the value apart", got)
	}
	// A soft date whose first digits broke into pieces is one size: its
	// boxes are within a third of each other.
	date := []blob{r(683, 192, 696, 198, 82), r(707, 193, 715, 202, 89), r(731, 192, 763, 208, 349), r(777, 193, 786, 205, 113),
		r(794, 192, 845, 215, 675), r(727, 202, 743, 215, 119), r(700, 206, 717, 211, 102), r(687, 202, 695, 208, 56)}
	if parts := splitBySize(textLine{blobs: date, glyphH: 16}); len(parts) != 1 {
		t.Errorf("a soft date cut in %d parts", len(parts))
	}
}

// In the light pass (runs of three glyphs and more), a piece cut off a
// run by its size is a run too: a stroke of artwork beside a value, cut
// off from it, is no line (it was read Q after Nyeri).
func TestLinesOfLightPieces(t *testing.T) {
	// The light pass's blobs of Nyeri and the artwork after it (outset by
	// the pixel linesOf insets).
	r := func(x0, y0, x1, y1, a int) blob {
		return blob{r: image.Rect(x0-1, y0-1, x1+1, y1+1), area: a, depth: 50}
	}
	bs := []blob{r(1012, 404, 1037, 434, 535), r(1041, 410, 1062, 442, 367), r(1064, 410, 1085, 434, 399), r(1090, 410, 1101, 433, 190),
		r(1122, 399, 1146, 450, 866)}
	lines := linesOf(bs, 1500, 1264, lightDepth, 3)
	var got []image.Rectangle
	for _, l := range lines {
		got = append(got, l.r)
	}
	if len(lines) != 1 || lines[0].r.Max.X > 1102 {
		t.Errorf("lines %v, want the value's alone", got)
	}
}

// Specks of a noisy capture's grain join the run whose glyphs' band holds
// them, not one another's: KIMATHI's three blobs and a trail of grain
// leading down from its band, each speck within the band of the one
// before, are one line of KIMATHI's size.
func TestLinesOfSpecksDoNotChain(t *testing.T) {
	r := func(x0, y0, x1, y1, a int) blob {
		return blob{r: image.Rect(x0-1, y0-1, x1+1, y1+1), area: a, depth: 255}
	}
	bs := []blob{r(539, 214, 556, 239, 426), r(559, 214, 613, 239, 1221), r(615, 213, 669, 239, 1166)}
	for k := 0; k < 40; k++ {
		bs = append(bs, r(640+5*k, 238+5*k, 643+5*k, 241+5*k, 9))
	}
	lines := linesOf(bs, 1027, 648, minDepth, 1)
	if len(lines) != 1 || lines[0].r.Max.Y > 250 {
		var got []image.Rectangle
		for _, l := range lines {
			got = append(got, l.r)
		}
		t.Errorf("lines %v, want KIMATHI's alone, at most to y 250", got)
	}
}

// A value line tesseract reads as letters it doubts is read again black
// on white: on a columns card of seed 14 (a tuning seed), a Kenyan
// passport's nationality Kenyan, crossed at its K by a stroke of the
// card's artwork, reads "so" at 15 in tesseract's own threshold and
// Kenyan at 96 thresholded at the middle.
func TestReadLinesRereadsADoubtedValue(t *testing.T) {
	def := builtin(t, "ke_passport")
	gen, err := synth.New(synth.Options{Definitions: docdefs.Default().Drawn(), Seed: 14, Difficulty: synth.Medium,
		ImpostorRate: -1, Variant: synth.VariantColumns})
	if err != nil {
		t.Fatal(err)
	}
	smp, err := gen.Sample(context.Background(), 20)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if smp.Truth.Config != def.Config {
		t.Fatalf("sample 20 is a %s", smp.Truth.Config)
	}
	img, err := vision.Decode(smp.Front)
	if err != nil {
		t.Fatal(err)
	}
	card, err := vision.Rectify(img, def, "front")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := newPool(1).readLines(context.Background(), textOf(card))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, w := range ws {
		texts = append(texts, w.text)
	}
	if !slices.Contains(texts, "Kenyan") {
		t.Errorf("words %q, want Kenyan among them", texts)
	}
}

// A doubted line's second reading is kept only when tesseract is sure of
// it, it reads more, and it spans the line.
func TestBetterReading(t *testing.T) {
	w := func(x0, x1 int, text string, conf float64) word {
		return word{box: image.Rect(x0, 20, x1, 60), text: text, conf: conf}
	}
	cases := []struct {
		name    string
		ws, alt []word
		width   int
		want    bool
	}{
		{"a word crossed by artwork", []word{w(31, 144, "so", 15)}, []word{w(32, 138, "Kenyan", 96)}, 125, true},
		{"a signature", []word{w(28, 252, "WY", 24)}, []word{w(29, 251, "Aree", 50)}, 272, false},
		{"one word of a line", []word{w(36, 203, "nd", 5)}, []word{w(33, 83, "KEN", 96)}, 190, false},
		{"doubted both ways", []word{w(20, 40, "R", 30), w(50, 120, "C1/D", 38)}, []word{w(50, 90, "C1", 38), w(95, 120, "D", 38)}, 110, false},
		{"read as nothing", []word{w(31, 144, "so", 15)}, nil, 125, false},
	}
	for _, tc := range cases {
		if got := betterReading(tc.ws, tc.alt, tc.width); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
