package ocr

import (
	"image"
	"testing"
)

// TestGrowToInk: a word box over the middle of a printed run grows over
// the run's ink across letter gaps, stops at a gap wider than growGap
// heights, and stops at a dark column running on above and below the
// line.
func TestGrowToInk(t *testing.T) {
	const w, h = 600, 200
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 240
	}
	ink := func(x0, x1, y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				g.Pix[y*g.Stride+x] = 30
			}
		}
	}
	// Glyphs 20 px tall on rows 90-110: strokes every 8 px from x=100 to
	// 260, a 40 px gap (2 heights), then more print at 300-340.
	for x := 100; x < 260; x += 8 {
		ink(x, x+4, 90, 110)
	}
	ink(300, 340, 90, 110)
	// A rule from top to bottom at x=60: an edge, not a glyph.
	ink(60, 63, 0, h)
	pg := &page{w: w, h: h, grey: g, words: []word{
		{box: image.Rect(140, 90, 180, 110), text: "MID"},
		{box: image.Rect(300, 90, 340, 110), text: "NEXT"},
	}}
	got := pg.growToInk(image.Rect(140, 90, 180, 110), []int{0})
	if want := image.Rect(100, 90, 256, 110); got != want {
		t.Errorf("grown to %v, want %v", got, want)
	}
	// A mark joining the run to the rule: growth follows it up to the
	// rule and stops there.
	ink(64, 96, 95, 96) // a thin mark joining the rule to the run
	if got := pg.growToInk(image.Rect(140, 90, 180, 110), []int{0}); got.Min.X < 64 {
		t.Errorf("grew over the rule: %v", got)
	}
}
