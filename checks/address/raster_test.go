package address

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tambua/tambua/internal/testkit/bills"
	"github.com/tambua/tambua/vision"
)

func TestLuminance(t *testing.T) {
	y := image.NewYCbCr(image.Rect(0, 0, 4, 2), image.YCbCrSubsampleRatio420)
	for i := range y.Y {
		y.Y[i] = uint8(10 * i)
	}
	g := luminance(y)
	if g.GrayAt(3, 1).Y != 70 || &g.Pix[0] != &y.Y[0] {
		t.Errorf("a JPEG's Y plane is its luminance, shared: got %v", g.Pix)
	}
	n := image.NewNRGBA(image.Rect(0, 0, 3, 1))
	n.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255})
	n.SetNRGBA(1, 0, color.NRGBA{0, 0, 0, 0})
	n.SetNRGBA(2, 0, color.NRGBA{20, 20, 20, 255})
	g = luminance(n)
	for x, want := range []uint8{76, 255, 20} {
		if got := g.GrayAt(x, 0).Y; absInt(int(got)-int(want)) > 1 {
			t.Errorf("pixel %d: %d, want %d (601 weights, transparent is paper)", x, got, want)
		}
	}
}

func TestAreaReduce(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 10, 6))
	for x := 0; x < 10; x++ {
		for y := 0; y < 6; y++ {
			src.SetGray(x, y, color.Gray{uint8(x * 20)})
		}
	}
	out := areaReduce(src, 4, 3)
	// Column 0 covers source columns 0, 1 and half of 2: (0+20+20)/2.5.
	if got := out.GrayAt(0, 1).Y; got != 16 {
		t.Errorf("first column %d, want 16", got)
	}
	if got := out.GrayAt(3, 2).Y; got != 164 {
		t.Errorf("last column %d, want 164 ((140/2+160+180)/2.5)", got)
	}
}

func TestShrink(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 7, 4))
	for x := 0; x < 7; x++ {
		for y := 0; y < 4; y++ {
			src.SetGray(x, y, color.Gray{uint8(x*20 + y)})
		}
	}
	out := shrink(src.SubImage(image.Rect(1, 0, 7, 4)).(*image.Gray), 2)
	if out.Rect.Dx() != 3 || out.Rect.Dy() != 2 {
		t.Fatalf("size %v, want 3 x 2", out.Rect)
	}
	// Block (1,1) of the crop: columns 3 and 4, rows 2 and 3.
	if got := out.GrayAt(1, 1).Y; got != 73 {
		t.Errorf("block mean %d, want 73 ((60+80)/2 + (2+3)/2, rounded)", got)
	}
}

func TestWarpGray(t *testing.T) {
	// A square of dark print on paper, photographed turned by 5 degrees:
	// warped back upright it lands where it was.
	const n = 400
	src := image.NewGray(image.Rect(0, 0, n, n))
	rot := func(x, y float64) (float64, float64) {
		s, c := math.Sincos(5 * math.Pi / 180)
		x, y = x-n/2, y-n/2
		return x*c - y*s + n/2, x*s + y*c + n/2
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			// Undo the turn to find the page point shown here.
			s, c := math.Sincos(-5 * math.Pi / 180)
			px, py := float64(x)-n/2, float64(y)-n/2
			u, v := px*c-py*s+n/2, px*s+py*c+n/2
			l := uint8(240)
			if u >= 150 && u < 250 && v >= 150 && v < 250 {
				l = 20
			}
			src.SetGray(x, y, color.Gray{l})
		}
	}
	var q vision.Quad
	for i, p := range [][2]float64{{50, 50}, {350, 50}, {350, 350}, {50, 350}} {
		x, y := rot(p[0], p[1])
		q[i] = vision.Point{X: x, Y: y}
	}
	for _, size := range []int{300, 210, 140} {
		out, ok := warpGray(src, q, size, size)
		if !ok {
			t.Fatal("no warp")
		}
		f := float64(size) / 300
		for _, c := range []struct {
			x, y float64
			dark bool
		}{{150, 150, true}, {105, 105, true}, {90, 150, false}, {150, 210, false}, {20, 20, false}} {
			got := out.GrayAt(int(c.x*f), int(c.y*f)).Y < 128
			if got != c.dark {
				t.Errorf("size %d: (%v, %v) dark %v, want %v", size, c.x, c.y, got, c.dark)
			}
		}
	}
}

// The print height is measured on the page itself: the body text of a
// rendered bill (11 points at 200 dpi, capitals 22 px) whatever the page's
// size.
func TestTextHeight(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, fam := range []string{"classic", "heldout"} {
		c := bills.Generate(fam, 1, 3, now)[0]
		page, err := c.Page()
		if err != nil {
			t.Fatal(err)
		}
		g := luminance(page)
		for _, long := range []int{1000, 1600} {
			w, h := pageSize(quadOf(g.Rect), long, false)
			small, _ := warpGray(g, quadOf(g.Rect), w, h)
			got := textHeight(small) * float64(g.Rect.Dy()) / float64(h)
			t.Logf("%s at %d px: %.1f", fam, long, got)
			// Capitals of 11-point print at 200 dpi are 22 px; lines with
			// descenders and the larger headings raise the median a little.
			if got < 20 || got > 30 {
				t.Errorf("%s at %d px: text height %.1f px of the 200 dpi page, want 20..30", fam, long, got)
			}
		}
	}
	blank := image.NewGray(image.Rect(0, 0, 700, 1000))
	for i := range blank.Pix {
		blank.Pix[i] = 250
	}
	if got := textHeight(blank); got != 0 {
		t.Errorf("blank page: %v, want 0", got)
	}
}

// Blank stretches of a page are left out of reading, and what is read is
// put back where it was printed.
func TestBandsAndStack(t *testing.T) {
	const w, h = 200, 400
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 200 // darker paper than white
	}
	for _, r := range [][2]int{{20, 30}, {36, 46}, {300, 310}} {
		for y := r[0]; y < r[1]; y++ {
			for x := 30; x < 170; x += 3 {
				g.SetGray(x, y, color.Gray{20})
			}
		}
	}
	bands := textBands(w, h, inkMask(g), 10)
	want := [][2]int{{10, 56}, {290, 320}}
	if fmt.Sprint(bands) != fmt.Sprint(want) {
		t.Fatalf("bands %v, want %v (lines 6 rows apart are one band, padded by 10)", bands, want)
	}
	st := stack(g, bands, 30)
	if st.img.Rect.Dy() != 46+30+30 {
		t.Fatalf("stacked height %d, want 106", st.img.Rect.Dy())
	}
	if got := st.img.GrayAt(5, 60).Y; got != 200 {
		t.Errorf("gap grey %d, want the paper's 200", got)
	}
	// Row 300 of the page is row 10 of the second band, at 46+30.
	if got := st.img.GrayAt(30, 86).Y; got != 20 {
		t.Errorf("print of the second band not at row 86: %d", got)
	}
	if got := st.toPage(image.Rect(30, 86, 60, 96)); got != image.Rect(30, 300, 60, 310) {
		t.Errorf("box back on the page %v, want (30,300)-(60,310)", got)
	}
	if got := st.toPage(image.Rect(30, 10, 60, 20)); got != image.Rect(30, 20, 60, 30) {
		t.Errorf("box of the first band %v, want (30,20)-(60,30)", got)
	}
	full := image.NewGray(image.Rect(0, 0, w, 100))
	for i := range full.Pix {
		full.Pix[i] = 200
	}
	for y := 5; y < 95; y += 8 {
		for x := 30; x < 170; x += 3 {
			full.SetGray(x, y, color.Gray{20})
		}
	}
	if b := textBands(w, 100, inkMask(full), 5); b != nil {
		t.Errorf("a page printed all over: bands %v, want nil (nothing to leave out)", b)
	}
}

// The sliver of a page's edge a warp keeps is found up to the first clean
// column or row, and only within the outer 3 %.
func TestEdgeSlivers(t *testing.T) {
	const w, h = 400, 500
	type span struct{ x0, x1, y0, y1 int }
	for _, tc := range []struct {
		name string
		ink  []span
		want margins
	}{
		{"clean page", []span{{40, 300, 60, 70}}, margins{}},
		{"left edge line", []span{{0, 2, 0, h}, {40, 300, 60, 70}}, margins{left: 2}},
		{"broken edge line on the right", []span{{w - 3, w, 0, 100}, {w - 2, w, 200, 260}, {40, 300, 60, 70}}, margins{right: 3}},
		{"desk above and below", []span{{0, w, 0, 4}, {0, w, h - 2, h}, {40, 300, 60, 70}}, margins{top: 4, bottom: 2}},
		// Print reaching the border with no clean column within 3 % (12
		// columns): not an edge, left alone.
		{"print at the border", []span{{0, 20, 100, 110}, {0, 20, 120, 130}, {0, 20, 140, 150}, {0, 20, 160, 170}}, margins{}},
		{"speckle is not an edge", []span{{0, 1, 250, 251}}, margins{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ink := make([]bool, w*h)
			for _, s := range tc.ink {
				for y := s.y0; y < s.y1; y++ {
					for x := s.x0; x < s.x1; x++ {
						ink[y*w+x] = true
					}
				}
			}
			got := edgeSlivers(w, h, ink)
			if got != tc.want {
				t.Fatalf("slivers %+v, want %+v", got, tc.want)
			}
			clearMask(w, h, ink, got)
			if got.left > 0 && ink[10*w] || got.top > 0 && ink[w+100] {
				t.Error("the sliver is still ink in the mask")
			}
		})
	}
}

// A sliver is painted with the paper beside it, print is untouched.
func TestPaintMargins(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 20, 10))
	for y := 0; y < 10; y++ {
		for x := 0; x < 20; x++ {
			g.SetGray(x, y, color.Gray{uint8(200 + y)}) // light falling off down the page
		}
		g.SetGray(0, y, color.Gray{30})  // the desk
		g.SetGray(1, y, color.Gray{90})  // the page's edge
		g.SetGray(10, y, color.Gray{10}) // print
	}
	for x := 0; x < 20; x++ {
		g.SetGray(x, 9, color.Gray{40})
	}
	paintMargins(g, margins{left: 2, bottom: 1})
	for _, c := range []struct {
		x, y int
		want uint8
	}{{0, 3, 203}, {1, 5, 205}, {2, 5, 205}, {10, 4, 10}, {5, 9, 208}, {0, 9, 208}} {
		if got := g.GrayAt(c.x, c.y).Y; got != c.want {
			t.Errorf("(%d,%d) = %d, want %d", c.x, c.y, got, c.want)
		}
	}
}

// A page outline found a little too large keeps a dark line of desk along
// the border. Tesseract took such a line for a column of "|" glyphs that
// joined print beside it into one line, read twice and garbled (the date
// of a held-out bill was lost so). Painted over, every line is read once.
func TestReadPageWithEdge(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := bills.Generate(bills.HeldOut, 1, 5, now)[0]
	page, err := c.Page()
	if err != nil {
		t.Fatal(err)
	}
	g := luminance(page)
	const edge = 4 // desk, then the page's shadowed edge
	b := g.Rect
	framed := image.NewGray(b.Inset(-edge))
	for y := framed.Rect.Min.Y; y < framed.Rect.Max.Y; y++ {
		for x := framed.Rect.Min.X; x < framed.Rect.Max.X; x++ {
			v := uint8(60)
			if (image.Point{x, y}).In(b) {
				v = g.GrayAt(x, y).Y
			} else if (y/9)%2 == 0 && (image.Point{x, y}).In(b.Inset(-2)) {
				v = 120 // the paper's edge, broken by the light
			}
			framed.SetGray(x, y, color.Gray{v})
		}
	}
	lines, err := readImage(context.Background(), framed, quadOf(framed.Rect), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, _, ok := issueDate(lines)
	if !ok || !d.Equal(c.IssueDate) {
		t.Errorf("issue date %v %v, want %v", d, ok, c.IssueDate.Format(time.DateOnly))
	}
	for _, l := range lines {
		f := strings.Fields(l.Text)
		for i := 1; i < len(f); i++ {
			if len(f[i]) > 2 && f[i] == f[i-1] {
				t.Errorf("word read twice: %q", l.Text)
			}
		}
		if strings.Contains(l.Text, "|") {
			t.Errorf("the edge read as print: %q %v", l.Text, l.Box)
		}
	}
}

// A page is read in two parts from the top: the bands of print starting
// in its top headShare, then the others; rows rendered piecemeal are the
// rows of the whole warp.
func TestPreparePageParts(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := bills.Generate("classic", 1, 3, now)[0]
	page, err := c.Page()
	if err != nil {
		t.Fatal(err)
	}
	g := luminance(page)
	q := quadOf(g.Rect)
	parts := preparePage(g, q, false)
	if len(parts) != 2 {
		t.Fatalf("%d parts, want 2 (head and rest)", len(parts))
	}
	first := func(p part) int { return p.place(image.Rect(0, 0, 1, 1)).Min.Y }
	last := func(p part) int { return p.place(image.Rect(0, p.img.Rect.Dy()-1, 1, p.img.Rect.Dy())).Min.Y }
	ph := float64(g.Rect.Dy()) // read below 1:1, so page rows are at most this many
	if first(parts[0]) > last(parts[0]) || last(parts[0]) >= first(parts[1]) || float64(first(parts[1])) < 0 || float64(last(parts[1])) > ph {
		t.Errorf("parts out of order: head rows %d..%d, rest from %d", first(parts[0]), last(parts[0]), first(parts[1]))
	}
	w, h := 300, 420
	whole, _ := warpGray(g, q, w, h)
	wp, _ := newWarp(g, q, w, h)
	piece := image.NewGray(image.Rect(0, 0, w, 50))
	wp.rows(piece, 10, 200, 240)
	for y := 200; y < 240; y++ {
		for x := 0; x < w; x++ {
			if piece.GrayAt(x, y-190).Y != whole.GrayAt(x, y).Y {
				t.Fatalf("row %d column %d rendered alone differs from the whole warp", y, x)
			}
		}
	}
}

func TestHeadBands(t *testing.T) {
	// Print 10 px high, bands padded by 10: a raw gap of g rows between
	// two bands' print leaves g-20 rows between the padded bands.
	for _, tc := range []struct {
		name  string
		bands [][2]int
		cut   float64
		want  int
	}{
		{"all above the cut", [][2]int{{0, 50}, {100, 150}}, 300, 2},
		{"one above, one far below", [][2]int{{0, 50}, {400, 450}}, 300, 1},
		{"a band just under the head's last, still one block", [][2]int{{0, 50}, {280, 330}, {345, 400}, {600, 650}}, 300, 3},
		{"a gap of four print heights parts them", [][2]int{{0, 50}, {280, 330}, {350, 400}}, 300, 2},
		{"nothing above the cut", [][2]int{{400, 450}}, 300, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := headBands(tc.bands, 10, tc.cut); got != tc.want {
				t.Errorf("headBands = %d, want %d", got, tc.want)
			}
		})
	}
}
