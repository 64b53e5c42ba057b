package ocr

import (
	"image"
	"sort"

	"github.com/disintegration/imaging"
)

// A rectified side is drawn at 12 px/mm whatever the capture's
// resolution, so a small scan (a 600 px passport page is about 5 px/mm)
// comes out soft, with captions 12 to 16 px tall. Tesseract's layout
// analysis then joins or loses them (NAZWISKO/SURNAME read as one word,
// AA 0000000 on a tinted box not found at all); the same page scaled up
// reads them. The scale is chosen from the text the side shows: the
// height of its small print (glyphHeight), on the side and in the
// capture. Only the generic definitions read pages this way
// (genericPage): an issuer's own definition is tuned on its captures as
// they are.

// pageGlyphTarget is the height, in pixels, small print is scaled to.
// Chosen on the passeye_* specimens (tuning set): their rectified pages'
// small print measures 13 to 25 px; the Polish page's, 14 px, read its
// captions at 2x (28 px) and not at 1x; the Czech page's read alike at
// 1x, 1.5x and 2x.
const pageGlyphTarget = 22

// maxPageScale bounds the upscaling: tesseract's time grows with the
// area, and at twice the size the small captions of the specimens read.
const maxPageScale = 2.0

// glyphHeight is the height of the side's small print: the first
// quartile of the heights of its dark connected components that are
// shaped like glyphs (5 to 120 px tall, not much wider than tall, not
// hair lines) and stand in a line of others of their size; 0 when there
// are too few to say.
func glyphHeight(g *image.Gray) int {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return 0
	}
	hist := [256]int{}
	for _, v := range g.Pix[:w*h] {
		hist[v]++
	}
	t := otsu(hist)
	// Union-find over the ink pixels, 4-connected.
	parent := make([]int32, w*h)
	for i := range parent {
		parent[i] = -1
	}
	var find func(i int32) int32
	find = func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, c int32) {
		ra, rc := find(a), find(c)
		if ra != rc {
			parent[ra] = rc
		}
	}
	for y := 0; y < h; y++ {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x, v := range row {
			if float64(v) >= t {
				continue
			}
			i := int32(y*w + x)
			parent[i] = i
			if x > 0 && parent[i-1] >= 0 {
				union(i, i-1)
			}
			if y > 0 && parent[i-int32(w)] >= 0 {
				union(i, i-int32(w))
			}
		}
	}
	type ext struct{ x0, y0, x1, y1, n int }
	comps := map[int32]*ext{}
	for i, p := range parent {
		if p < 0 {
			continue
		}
		r := find(int32(i))
		x, y := i%w, i/w
		e := comps[r]
		if e == nil {
			e = &ext{x0: x, y0: y, x1: x, y1: y}
			comps[r] = e
		}
		e.x0, e.x1 = min(e.x0, x), max(e.x1, x)
		e.y0, e.y1 = min(e.y0, y), max(e.y1, y)
		e.n++
	}
	type glyph struct{ x0, x1, cy, h int }
	var gs []glyph
	for _, e := range comps {
		cw, ch := e.x1-e.x0+1, e.y1-e.y0+1
		if ch < 5 || ch > 120 || cw > 2*ch || 10*e.n < cw*ch {
			continue
		}
		gs = append(gs, glyph{x0: e.x0, x1: e.x1, cy: (e.y0 + e.y1) / 2, h: ch})
	}
	// A glyph of text has neighbours of its size on its line: two within
	// its height to either side, their middles within half its height.
	// Guilloche, paper grain and specks stand alone.
	sort.Slice(gs, func(a, b int) bool { return gs[a].x0 < gs[b].x0 })
	var hs []int
	for i, a := range gs {
		n := 0
		for j := i + 1; j < len(gs) && gs[j].x0 <= a.x1+a.h && n < 2; j++ {
			b := gs[j]
			if 10*b.h >= 7*a.h && 7*b.h <= 10*a.h && 2*abs(b.cy-a.cy) <= a.h {
				n++
			}
		}
		for j := i - 1; j >= 0 && gs[j].x0 >= a.x0-3*a.h && n < 2; j-- {
			b := gs[j]
			if b.x1 >= a.x0-a.h && 10*b.h >= 7*a.h && 7*b.h <= 10*a.h && 2*abs(b.cy-a.cy) <= a.h {
				n++
			}
		}
		if n >= 2 {
			hs = append(hs, a.h)
		}
	}
	// Fewer than 20 glyphs: not enough text to measure.
	if len(hs) < 20 {
		return 0
	}
	// The smaller print is what decides: the captions, a quarter of the
	// way up the heights (values are printed larger).
	sort.Ints(hs)
	return hs[len(hs)/4]
}

// captureGlyphMax is the height, in capture pixels, under which small
// print is soft after rectification and is read scaled up. Chosen on the
// passeye_* specimens (tuning set): the captions of the Polish, Croatian
// and Czech pages stood 5 to 7 px tall in their 600 px scans and read
// better at twice the size (the Polish page's NAZWISKO/SURNAME,
// AA 0000000 and PLEC/SEX found only then); the ICAO specimen's, 14 px
// in a 1334 px scan, read as they are.
const captureGlyphMax = 9.0

// pageScale is the factor the page is scaled by before it is read: 1
// unless its small print is smaller than pageGlyphTarget on the side and
// was smaller than captureGlyphMax in the capture (sourceRatio is capture
// pixels per side pixel; 0 when unknown).
func pageScale(g *image.Gray, sourceRatio float64) float64 {
	gh := glyphHeight(g)
	if gh == 0 || gh >= pageGlyphTarget || (sourceRatio > 0 && float64(gh)*sourceRatio >= captureGlyphMax) {
		return 1
	}
	return min(maxPageScale, float64(pageGlyphTarget)/float64(gh))
}

// upscaled is g scaled by s (bicubic, which keeps strokes dark).
func upscaled(g *image.Gray, s float64) *image.Gray {
	b := g.Bounds()
	n := imaging.Resize(g, int(float64(b.Dx())*s+0.5), int(float64(b.Dy())*s+0.5), imaging.CatmullRom)
	out := image.NewGray(n.Bounds())
	for i := range out.Pix {
		out.Pix[i] = n.Pix[4*i]
	}
	return out
}

// unscaleWords maps the words of a page read at scale s back to the
// side's own pixels.
func unscaleWords(ws []word, s float64) {
	if s == 1 {
		return
	}
	f := func(v int) int { return int(float64(v)/s + 0.5) }
	for i := range ws {
		b := ws[i].box
		ws[i].box = image.Rect(f(b.Min.X), f(b.Min.Y), f(b.Max.X), f(b.Max.Y))
	}
}
