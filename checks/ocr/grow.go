package ocr

import (
	"image"
)

// growGap is the widest run of paper, in glyph heights, that growToInk
// crosses: the space between two words of one value is 0.3 to 0.5 of
// the value's height (DANIEL KWAKU), while two fields set on one line
// stand two heights and more apart on the synth cards and the specimens.
const growGap = 0.8

// growToInk widens a value's box along its line over the ink the page
// reading left out: on a soft capture tesseract's layout analysis keeps
// a fragment of a value (GYA of GYAMFI, WAKU of DANIEL KWAKU, KI of
// KIAMBU) as a confident word, and re-reading that fragment's box reads
// the fragment again. The print itself says where the value ends: the
// box grows while columns of the line's middle carry ink darker than
// halfway between the box's own ink and the paper, across gaps narrower
// than growGap heights, and stops at any other word of the page on the
// line (a caption, another value) and at a dark column that continues
// above and below the line (a portrait's edge, a rule), which is not a
// glyph.
func (pg *page) growToInk(box image.Rectangle, own []int) image.Rectangle {
	g := pg.grey
	if g == nil || box.Empty() {
		return box
	}
	b := g.Bounds()
	h := box.Dy()
	if h < 6 {
		return box
	}
	// Ink and paper levels from the box and the line around it.
	var hist [256]int
	n := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := max(b.Min.X, box.Min.X-2*h); x < min(b.Max.X, box.Max.X+2*h); x++ {
			hist[g.Pix[y*g.Stride+x]]++
			n++
		}
	}
	var inBox [256]int
	m := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			inBox[g.Pix[y*g.Stride+x]]++
			m++
		}
	}
	if n == 0 || m == 0 {
		return box
	}
	ink, paper := histPct(inBox, m, 0.05), histPct(hist, n, 0.9)
	// Under 40 levels between ink and paper there is no print to follow
	// (chosen on the flattened synth sides, where a value's ink lies 120
	// levels and more under its paper and guilloche 20 to 40).
	if paper-ink < 40 {
		return box
	}
	thr := uint8((ink + paper) / 2)
	y0, y1 := box.Min.Y+h/5, box.Max.Y-h/5
	mine := map[int]bool{}
	for _, w := range own {
		mine[w] = true
	}
	var others []image.Rectangle // the page's other words on the line
	for i, w := range pg.words {
		if !mine[i] && sameLine(box, w.box) {
			others = append(others, w.box)
		}
	}
	blocked := func(x int) bool {
		for _, o := range others {
			if x >= o.Min.X && x < o.Max.X {
				return true
			}
		}
		return false
	}
	dark := func(x, ya, yb int) bool {
		ya, yb = max(ya, b.Min.Y), min(yb, b.Max.Y)
		for y := ya; y < yb; y++ {
			if g.Pix[y*g.Stride+x] < thr {
				return true
			}
		}
		return false
	}
	// A column dark above and below the line too is an edge, not a glyph.
	edge := func(x int) bool {
		return dark(x, box.Min.Y-h, box.Min.Y-h/2) && dark(x, box.Max.Y+h/2, box.Max.Y+h)
	}
	maxGap := int(growGap * float64(h))
	// walk returns the last inked column reached from `from` in the
	// direction of step, or the column before `from` when there is none.
	walk := func(from, step int) int {
		last, gap := from-step, 0
		for x := from; x >= b.Min.X && x < b.Max.X && gap <= maxGap && !blocked(x); x += step {
			if !dark(x, y0, y1) {
				gap++
				continue
			}
			if edge(x) {
				break
			}
			last, gap = x, 0
		}
		return last
	}
	out := box
	out.Max.X = walk(box.Max.X, 1) + 1
	out.Min.X = walk(box.Min.X-1, -1)
	return out
}
