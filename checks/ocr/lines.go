package ocr

import (
	"context"
	"encoding/binary"
	"image"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/disintegration/imaging"
	"github.com/otiai10/gosseract/v2"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

// inkMasks mark the print of a flattened side at the two floors
// textLines looks for it at, 1 for ink. A pixel is ink when it is darker
// than halfway between the darkest and the brightest level within r
// pixels (hi is that brightest level, maxFilter(g, r)) and those lie at
// least a contrast floor apart (Bernsen's local threshold), and it lies
// a depth floor under the brightest. Each stroke is judged against its
// own surroundings, so a caption printed in light ink and a value in
// black both keep their shapes, where one global threshold (tesseract's
// Otsu) that keeps the values drops light captions.
//
// strong has a contrast floor of 35 and minDepth: a low contrast floor
// keeps the thin strokes of light print whole; blobs of artwork that
// never get much darker than the paper are then left out by their depth.
// light, the light-print pass, has 25 and lightDepth. Both come from one
// pass over the side, sharing the darkest level.
func inkMasks(g, hi *image.Gray, r int) (strong, light []uint8) {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	inv := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		src, dst := g.Pix[y*g.Stride:y*g.Stride+w], inv.Pix[y*inv.Stride:y*inv.Stride+w]
		for x, v := range src {
			dst[x] = 255 - v
		}
	}
	lo := maxFilter(inv, r)
	strong, light = make([]uint8, w*h), make([]uint8, w*h)
	for y := 0; y < h; y++ {
		gr, lr, hr := g.Pix[y*g.Stride:y*g.Stride+w], lo.Pix[y*lo.Stride:y*lo.Stride+w], hi.Pix[y*hi.Stride:y*hi.Stride+w]
		sr, ltr := strong[y*w:(y+1)*w], light[y*w:(y+1)*w]
		for x, gv := range gr {
			l, u, v := 255-int(lr[x]), int(hr[x]), int(gv)
			if 2*v >= l+u {
				continue
			}
			c, d := u-l, u-v
			if c >= 35 && d >= minDepth {
				sr[x] = 1
			}
			if c >= 25 && d >= lightDepth {
				ltr[x] = 1
			}
		}
	}
	return strong, light
}

// minDepth is how far under the paper around it a pixel must lie to be
// print: the fine lines of security print on a flattened side lie 35 to
// 55 levels under it and run through the whole card, joining every value
// they touch into one blob; captions in light ink lie 75 and more under
// it (synth columns family, tuning seed 12, medium).
const minDepth = 60

// blob is one connected component of ink.
type blob struct {
	r    image.Rectangle
	area int
	// depth is how far its darkest pixel lies under the paper around it.
	depth int
}

// blobs are the 8-connected components of ink (w wide, 1 for ink), in
// the order of their first pixel; g is the side and hi its paper level
// (maxFilter) for each blob's depth. The components are joined from the
// rows' runs of ink (a union-find over runs), which costs a fraction of
// a flood fill pixel by pixel.
func blobs(ink []uint8, w, h int, g, hi *image.Gray) []blob {
	type run struct{ x0, x1, y int32 } // [x0, x1) on row y
	var runs []run
	rowStart := make([]int32, h+1)
	for y := 0; y < h; y++ {
		rowStart[y] = int32(len(runs))
		row := ink[y*w : (y+1)*w]
		for x := 0; x < w; {
			if row[x] == 0 {
				x++
				continue
			}
			x0 := x
			for x < w && row[x] != 0 {
				x++
			}
			runs = append(runs, run{int32(x0), int32(x), int32(y)})
		}
	}
	rowStart[h] = int32(len(runs))
	parent := make([]int32, len(runs))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for y := 1; y < h; y++ {
		// Runs of the row above that touch a run, diagonals included:
		// both rows' runs are in order, so one pointer walks them.
		p, pEnd := rowStart[y-1], rowStart[y]
		for i := rowStart[y]; i < rowStart[y+1]; i++ {
			c := runs[i]
			for p < pEnd && runs[p].x1 < c.x0 {
				p++
			}
			for q := p; q < pEnd && runs[q].x0 <= c.x1; q++ {
				if a, b := find(q), find(i); a != b {
					// The smaller index is the root: a component's
					// root is its first run in raster order.
					if a < b {
						parent[b] = a
					} else {
						parent[a] = b
					}
				}
			}
		}
	}
	slot := make([]int32, len(runs))
	var out []blob
	for i, rn := range runs {
		root := find(int32(i))
		r := image.Rect(int(rn.x0), int(rn.y), int(rn.x1), int(rn.y)+1)
		if root == int32(i) {
			// Blobs come out in the order of their first pixel, as a
			// flood fill from each unlabelled pixel in turn gives them.
			slot[i] = int32(len(out))
			out = append(out, blob{r: r})
		}
		bl := &out[slot[root]]
		bl.r = bl.r.Union(r)
		bl.area += int(rn.x1 - rn.x0)
		y := int(rn.y)
		gr, hr := g.Pix[y*g.Stride:], hi.Pix[y*hi.Stride:]
		for x := rn.x0; x < rn.x1; x++ {
			bl.depth = max(bl.depth, int(hr[x])-int(gr[x]))
		}
	}
	return out
}

// textLine is a run of glyph-shaped blobs on one line.
type textLine struct {
	r      image.Rectangle
	glyphH int // median blob height
	n      int // blobs
	blobs  []blob
	// light: found by the light-print pass; its words count only when
	// tesseract is fairly sure of them.
	light bool
	// taller: blobs chained into the run but left out of it as far
	// taller than its band: a value set large right after its small
	// caption, hanging from the caption's top (CODE / CODE DU PAYS UTO).
	// They are a line of their own.
	taller []blob
}

// textLines finds the lines of print on a flattened side: blobs of ink
// shaped like glyphs are chained into runs along a line, runs on one band
// at a word's distance are joined, specks inside a run's band join it
// (the broken strokes of a soft, light caption), and a run is cut where
// the print changes size between two words (a caption and its value set
// on one line).
func textLines(g *image.Gray) []textLine {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	r := max(2, h/80)
	hi := maxFilter(g, r)
	strongInk, lightInk := inkMasks(g, hi, r)
	// The strokes of soft, light print break into pieces: pieces a pixel
	// apart are one blob.
	strong := blobs(dilate(strongInk, w, h), w, h, g, hi)
	lines := linesOf(strong, w, h, minDepth, 1)
	// Light print (small grey captions) lies under minDepth: it is
	// looked for again at a lower floor, where the security print's
	// lines join into large blobs that are left out by their size,
	// and its runs of three glyphs and more that touch no line of
	// the print found first are lines too.
	light := blobs(dilate(lightInk, w, h), w, h, g, hi)
	for _, l := range linesOf(light, w, h, lightDepth, 3) {
		clear := true
		for _, o := range lines {
			if o.r.Overlaps(l.r) {
				clear = false
				break
			}
		}
		if clear {
			l.light = true
			lines = append(lines, l)
		}
	}
	sort.Slice(lines, func(i, j int) bool {
		if lines[i].r.Min.Y != lines[j].r.Min.Y {
			return lines[i].r.Min.Y < lines[j].r.Min.Y
		}
		return lines[i].r.Min.X < lines[j].r.Min.X
	})
	return lines
}

// lightDepth is the floor of the second, light-print pass: grey captions
// of the HTML dev2 style lie 40 to 60 under the paper on the flattened
// side.
const lightDepth = 35

// linesOf chains blobs found at the depth floor depth into lines, keeping
// runs of minRun blobs and more.
func linesOf(all []blob, w, h, depth, minRun int) []textLine {
	for i := range all {
		all[i].r = all[i].r.Inset(1)
	}
	maxH := h / 8
	var gl, specks []blob
	for _, bl := range all {
		bw, bh := bl.r.Dx(), bl.r.Dy()
		if bh > maxH || bw > w/2 || bl.area < 4 || bl.depth < depth {
			continue
		}
		fill := float64(bl.area) / float64(bw*bh)
		if fill < 0.08 {
			continue
		}
		// Long and thin: a rule (solid or a few pixels high) or a
		// stroke of artwork, not print; the letters of a long word run
		// together are as long, but neither solid nor that thin.
		if bw > 12*bh && (bh <= 4 || fill > 0.85) || bh > 5*bw && bh > 20 {
			continue
		}
		if bh < 5 {
			specks = append(specks, bl)
			continue
		}
		gl = append(gl, bl)
	}
	gl = dropFrames(gl)
	runs := chain(gl, func(a, c image.Rectangle) bool {
		lo, hi := min(a.Dy(), c.Dy()), max(a.Dy(), c.Dy())
		ca, cc := a.Min.Y+a.Max.Y, c.Min.Y+c.Max.Y // twice the middles
		return 2*lo >= hi && abs(ca-cc)*20 <= 7*2*hi && c.Min.X-a.Max.X <= hi*3/2
	})
	// Runs of one line broken at a soft letter: same band, same size,
	// within two glyph heights.
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(runs) && !merged; i++ {
			for j := i + 1; j < len(runs) && !merged; j++ {
				a, c := runs[i], runs[j]
				ha, hc := a.glyphH, c.glyphH
				lo, hi := min(ha, hc), max(ha, hc)
				ca, cc := (a.r.Min.Y+a.r.Max.Y)/2, (c.r.Min.Y+c.r.Max.Y)/2
				gap := max(c.r.Min.X-a.r.Max.X, a.r.Min.X-c.r.Max.X)
				if 5*lo >= 4*hi && abs(ca-cc)*3 <= hi && gap <= 2*hi {
					runs[i] = joinRuns(a, c)
					runs = append(runs[:j], runs[j+1:]...)
					merged = true
				}
			}
		}
	}
	// Pieces of a soft letter (two or fewer blobs) inside a larger run's
	// band, at most two glyph heights off, are that run's.
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].n > runs[j].n })
	for i := len(runs) - 1; i >= 0; i-- {
		p := runs[i]
		if p.n > 2 {
			continue
		}
		for j := range runs {
			l := runs[j]
			if j == i || l.n <= p.n {
				continue
			}
			band := image.Rect(l.r.Min.X-2*l.glyphH, l.r.Min.Y-l.glyphH/4, l.r.Max.X+2*l.glyphH, l.r.Max.Y+l.glyphH/4)
			if p.r.In(band) {
				runs[j] = joinRuns(l, p)
				runs = append(runs[:i], runs[i+1:]...)
				break
			}
		}
	}
	// Specks join the run whose band, as its glyphs set it, holds them:
	// a band grown by each speck it took would take the next one further
	// out, and the grain of a noisy capture would carry a value's box
	// across the card (KIMATHI's line grown to the card's lower corner and
	// left out as too tall, on a synth columns card of seed 14).
	bands := make([]image.Rectangle, len(runs))
	for i, l := range runs {
		bands[i] = image.Rect(l.r.Min.X-2*l.glyphH, l.r.Min.Y-l.glyphH/4, l.r.Max.X+2*l.glyphH, l.r.Max.Y+l.glyphH/4)
	}
	for _, sp := range specks {
		for i := range runs {
			if sp.r.In(bands[i]) {
				runs[i].r = runs[i].r.Union(sp.r)
				break
			}
		}
	}
	var lines []textLine
	for k := 0; k < len(runs); k++ {
		l := runs[k]
		if len(l.taller) > 0 {
			// The run with its taller blobs, cut where the print changes
			// size between two words: a mixed-case value set larger than
			// its caption on the caption's line (Machakos after Place of
			// Birth/Mahali pa Kuzaliwa:, its M, h and k taller than the
			// caption's band, its other letters not) is a line of its own
			// with all its letters.
			// Words are told apart at the glyph height of all the blobs: the
			// band's alone may be a soft date's broken pieces (24 of
			// 24.09.1953, cut off as a word of its own).
			all := append(append([]blob(nil), l.blobs...), l.taller...)
			if parts := splitBySize(textLine{blobs: all, glyphH: typicalHeight(all)}); len(parts) > 1 {
				runs = append(runs, parts...)
				continue
			}
			// Else only print beside the run's crop: a tall letter within
			// it (the J of John, its descender under the band of ohn) is
			// read with the run.
			t, pad := runOf(l.taller), 2*linePad(l.r)
			if t.r.Min.X >= l.r.Max.X+pad || t.r.Max.X <= l.r.Min.X-pad {
				runs = append(runs, t)
			}
		}
		if l.n < minRun {
			continue
		}
		if l.n == 1 {
			bw, bh := l.r.Dx(), l.r.Dy()
			// A lone glyph (the M of a sex field) or a word whose
			// letters touch; a speck of artwork is neither, nor is a
			// lone mark of caption size (a value is printed larger, and
			// a caption of one blob is a word, wider than tall). A blob
			// longer than eight heights is a stroke of artwork unless its
			// ink fills its box as a word's letters do: a soft caption
			// whose letters all touch (Authority/Mamlaka: on an HTML
			// dev2 passport page, one blob nine heights long filled at
			// 0.56; a word's letters fill 0.3 to 0.75 of their box).
			fill := float64(l.blobs[0].area) / float64(max(1, bw*bh))
			if bh < 10 || bw > 8*bh && (fill < 0.3 || fill > 0.75) || bh < 14 && 2*bw < 3*bh {
				continue
			}
		}
		if l.r.Dy() > 3*l.glyphH {
			continue
		}
		// A piece cut off by size is a run too: under minRun glyphs it
		// is no line (a light piece of artwork beside a value, cut off
		// from it, read as Q after Nyeri).
		for _, p := range splitBySize(l) {
			if p.n >= minRun {
				lines = append(lines, p)
			}
		}
	}
	return lines
}

// chain groups blobs, sorted left to right, whose pairs near allows.
func chain(gl []blob, near func(a, c image.Rectangle) bool) []textLine {
	sort.Slice(gl, func(i, j int) bool { return gl[i].r.Min.X < gl[j].r.Min.X })
	parent := make([]int, len(gl))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := range gl {
		a := gl[i].r
		for j := i + 1; j < len(gl); j++ {
			c := gl[j].r
			if c.Min.X-a.Max.X > max(a.Dy(), c.Dy())*3 {
				break
			}
			if near(a, c) {
				parent[find(j)] = find(i)
			}
		}
	}
	groups := map[int][]blob{}
	var order []int
	for i := range gl {
		root := find(i)
		if _, ok := groups[root]; !ok {
			order = append(order, root)
		}
		groups[root] = append(groups[root], gl[i])
	}
	var out []textLine
	for _, root := range order {
		out = append(out, runOf(groups[root]))
	}
	return out
}

// runOf is a run of blobs: its band is where most of its blobs lie (the
// median top and bottom), and blobs whose middle falls outside the band
// or that are far taller than it (a stroke of artwork crossing the line,
// the descender-laden caption over a value) are left out of its box.
func runOf(bs []blob) textLine {
	// The band is the area-weighted median top and bottom: the pieces a
	// soft letter breaks into are small and must not move it.
	top, bot := weightedMedian(bs, func(b blob) int { return b.r.Min.Y }), weightedMedian(bs, func(b blob) int { return b.r.Max.Y })
	bh := max(1, bot-top)
	var kept, taller []blob
	var box image.Rectangle
	for _, bl := range bs {
		mid := (bl.r.Min.Y + bl.r.Max.Y) / 2
		if mid < top-bh/4 || mid > bot+bh/4 {
			continue
		}
		if 5*bl.r.Dy() > 8*bh {
			taller = append(taller, bl)
			continue
		}
		kept = append(kept, bl)
		box = box.Union(bl.r)
	}
	if len(kept) == 0 {
		kept, taller = bs, nil
		box = image.Rect(bs[0].r.Min.X, top, bs[len(bs)-1].r.Max.X, bot)
	}
	// Ascenders and descenders reach a little past the band; artwork that
	// reaches further is cut.
	box.Min.Y = max(box.Min.Y, top-bh/3)
	box.Max.Y = min(box.Max.Y, bot+bh/3)
	return textLine{r: box, glyphH: typicalHeight(kept), n: len(kept), blobs: kept, taller: taller}
}

// typicalHeight is the typical height of bs's glyphs: their heights'
// median, each counting by its area.
func typicalHeight(bs []blob) int { return weightedMedian(bs, func(b blob) int { return b.r.Dy() }) }

// weightedMedian is the median of v over bs, each blob counting by its
// area.
func weightedMedian(bs []blob, v func(blob) int) int {
	type vw struct{ v, w int }
	xs := make([]vw, len(bs))
	total := 0
	for i, b := range bs {
		xs[i] = vw{v(b), b.area}
		total += b.area
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i].v < xs[j].v })
	acc := 0
	for _, x := range xs {
		acc += x.w
		if 2*acc >= total {
			return x.v
		}
	}
	return xs[len(xs)-1].v
}

func joinRuns(a, c textLine) textLine {
	l := runOf(append(append([]blob(nil), a.blobs...), c.blobs...))
	l.taller = append(append(l.taller, a.taller...), c.taller...)
	return l
}

// splitBySize cuts a run where two neighbouring words differ in size by
// more than half (a caption and its larger value on one line): each part
// is read at its own scale.
func splitBySize(l textLine) []textLine {
	bs := append([]blob(nil), l.blobs...)
	sort.Slice(bs, func(i, j int) bool { return bs[i].r.Min.X < bs[j].r.Min.X })
	// words: blobs closer than 0.6 glyph heights
	var words [][]blob
	var right int
	for i, bl := range bs {
		if i == 0 || bl.r.Min.X-right > l.glyphH*3/5 {
			words = append(words, nil)
		}
		words[len(words)-1] = append(words[len(words)-1], bl)
		right = max(right, bl.r.Max.X)
	}
	height := func(ws []blob) int {
		r := ws[0].r
		for _, bl := range ws {
			r = r.Union(bl.r)
		}
		return r.Dy()
	}
	var out []textLine
	cur := words[0]
	for i := 1; i < len(words); i++ {
		a, c := height(words[i-1]), height(words[i])
		// Two words' boxes differ by more than half; or by more than a
		// third while their glyphs' typical heights differ by more than
		// half: a caption's descender (the p of Mahali pa) and a value's
		// capitals (the M of Machakos) bring the boxes of a caption in
		// lower case and its value set twice as large within one and a
		// half of each other. The typical height alone is not the size:
		// a soft date's first digits break into pieces (24 of 24.09.1953).
		ta, tc := typicalHeight(words[i-1]), typicalHeight(words[i])
		if 2*max(a, c) > 3*min(a, c) || 3*max(a, c) > 4*min(a, c) && 2*max(ta, tc) > 3*min(ta, tc) {
			out = append(out, runOf(cur))
			cur = nil
		}
		cur = append(cur, words[i]...)
	}
	return append(out, runOf(cur))
}

// lineH is the height a line is scaled to before it is read: tesseract
// reads small print best at about this size.
const lineH = 40

// linePaper is the percentile a line's paper is taken at: a line's crop
// is mostly paper, and a lower level takes the paper's grain for print.
// A caption band found by the caption search (captions.go) takes the
// 80th: its crop is a tight box of faint print.
const linePaper = 0.95

// readLines reads each line alone (psm 7) and returns its words with
// their boxes on the side.
func (p *pool) readLines(ctx context.Context, st *sideText) ([]word, error) {
	var out []word
	g := st.grey
	b := g.Bounds()
	band := st.mrz.mrzLines(st.lines)
	bigH := largerPrint(st.lines)
	for li, l := range st.lines {
		if text, ok := band[li]; ok {
			ws := snapWords([]word{{box: l.r, text: text, conf: 100 * st.mrz.conf}}, l.blobs)
			out = append(out, ws...)
			continue
		}
		box := lineBox(l, b)
		img := lineImage(g, box, linePaper)
		scale := 40.0 / float64(box.Dy())
		ws, ok := st.upright[box]
		if !ok {
			var err error
			if ws, err = p.lineWords(ctx, img, gosseract.PSM_SINGLE_LINE); err != nil {
				return nil, err
			}
		}
		ws = append([]word(nil), ws...)
		// A line read as nothing is read again black on white: on a
		// small crop with grainy paper tesseract's own threshold takes the
		// grain for the print and returns no text at all for a clean
		// word (Names, the M of a sex field), which it reads once the
		// crop is thresholded at the middle between ink and paper, or a
		// little darker for a lone glyph.
		for _, th := range []uint8{128, 100} {
			if len(ws) > 0 {
				break
			}
			var err error
			if ws, err = p.lineWords(ctx, threshold(img, th), gosseract.PSM_SINGLE_LINE); err != nil {
				return nil, err
			}
		}
		if _, hi := confRange(ws); len(ws) > 0 && !l.light && l.n >= 3 && l.glyphH >= bigH && hi < doubtConf {
			// A line of the side's larger print read as letters tesseract
			// itself doubts (Kenyan read "so" at 15 under a stroke of
			// artwork crossing its K) is read again black on white, and the
			// second reading is kept when tesseract is sure of every word
			// of it (rereadConf), it reads more, and its words span half
			// the line at least (Msimbo / Code KEN, doubted, read KEN
			// alone). A US visa's R C1/D, doubted both ways, keeps its
			// first reading.
			alt, err := p.lineWords(ctx, threshold(img, 128), gosseract.PSM_SINGLE_LINE)
			if err != nil {
				return nil, err
			}
			if betterReading(ws, alt, img.Bounds().Dx()-40) {
				ws = alt
			}
		}
		for i := range ws {
			r := ws[i].box
			ws[i].box = image.Rect(
				box.Min.X+int(math.Floor(float64(r.Min.X-20)/scale)), box.Min.Y+int(math.Floor(float64(r.Min.Y-20)/scale)),
				box.Min.X+int(math.Ceil(float64(r.Max.X-20)/scale)), box.Min.Y+int(math.Ceil(float64(r.Max.Y-20)/scale))).Intersect(b)
		}
		if l.light {
			// Light runs include security print taken for glyphs, which
			// tesseract reads as guesses: only words it is fairly sure of
			// stay (chosen on the HTML dev2 style and the Luxembourg
			// specimen, whose hatching read as RS between its captions).
			kept := ws[:0]
			for _, w := range ws {
				if w.conf >= lightConf {
					kept = append(kept, w)
				}
			}
			ws = kept
		}
		ws = snapWords(ws, l.blobs)
		for i := range ws {
			ws[i].light = l.light
		}
		out = append(out, ws...)
	}
	return out, nil
}

// largerPrint is the glyph height from which a side's lines are its
// larger print: the median of its lines' (captions and values are about
// as many, and values are set larger).
func largerPrint(lines []textLine) int {
	var hs []int
	for _, l := range lines {
		if !l.light {
			hs = append(hs, l.glyphH)
		}
	}
	if len(hs) == 0 {
		return 0
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// betterReading: the second reading alt of a doubted line is kept over
// ws (readLines), width being the line's print in the line image.
func betterReading(ws, alt []word, width int) bool {
	lo, _ := confRange(alt)
	return len(alt) > 0 && lo >= rereadConf && lineScore(alt) > lineScore(ws) && 2*wordsSpan(alt) >= width
}

// wordsSpan is how wide a line's words are together, in the line
// image's pixels.
func wordsSpan(ws []word) int {
	n := 0
	for _, w := range ws {
		n += w.box.Dx()
	}
	return n
}

// confRange is the lowest and highest confidence of a line's words; 0
// and 0 for a line read as nothing.
func confRange(ws []word) (lo, hi float64) {
	for i, w := range ws {
		if i == 0 || w.conf < lo {
			lo = w.conf
		}
		hi = max(hi, w.conf)
	}
	return lo, hi
}

// doubtConf is the confidence under which every word of a line of larger
// print makes it worth a second reading (chosen on synth columns seed 14,
// medium: a clean Kenyan read "so" at 15; letters read well score 80 and
// more).
const doubtConf = 40

// rereadConf is the confidence every word of a doubted line's second
// reading needs to be kept (print read again reads at 90 and more, a
// signature's stroke read Aree at 50 on an HTML dev2 passport page).
const rereadConf = 70

// lightConf is the word confidence a word of a light-print line needs.
const lightConf = 60

// snapWords gives the words of one line read by tesseract the boxes of
// the line's own blobs. Tesseract's recognition places where each word
// starts well, but on a soft line it may stretch a word's end over the
// words after it (Date read with a box over Date Of Registration), so a
// blob belongs to the last word that starts at or before its middle, and
// a word's box is its blobs'. A word without a blob (a mark tesseract
// read in the padding) keeps its own box.
func snapWords(ws []word, bs []blob) []word {
	if len(ws) == 0 || len(bs) == 0 {
		return ws
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].box.Min.X < ws[j].box.Min.X })
	boxes := make([]image.Rectangle, len(ws))
	glyphs := make([][]image.Rectangle, len(ws))
	for _, bl := range bs {
		mid := (bl.r.Min.X + bl.r.Max.X) / 2
		slack := bl.r.Dy() / 2
		k := -1
		for i := range ws {
			if ws[i].box.Min.X-slack <= mid {
				k = i
			}
		}
		// Ink before the first word or after the last one is not print
		// tesseract read (artwork the line's box took in).
		if k < 0 || mid > ws[k].box.Max.X+slack {
			continue
		}
		boxes[k] = boxes[k].Union(bl.r)
		glyphs[k] = append(glyphs[k], bl.r)
	}
	for i := range ws {
		if !boxes[i].Empty() {
			ws[i].box = boxes[i]
		}
		ws[i].spaced = spacedText(ws[i].text, glyphs[i])
	}
	return ws
}

// letterSpace is the gap between two glyphs, in glyph heights, from which
// they stand a word space apart: letters of a word stand 0.09 to 0.29
// apart, single-letter licence classes (A B C) 0.44 to 0.54 and words
// 0.8 (HTML dev2 style, seed 13, medium captures).
const letterSpace = 0.35

// spacedText is text with a space at each gap of at least letterSpace
// between its glyphs, when text is letters and digits only and each is
// one of glyphs (in any order); else "".
func spacedText(text string, glyphs []image.Rectangle) string {
	rs := []rune(text)
	if len(rs) < 2 || len(rs) != len(glyphs) {
		return ""
	}
	for _, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return ""
		}
	}
	gs := append([]image.Rectangle(nil), glyphs...)
	sort.Slice(gs, func(i, j int) bool { return gs[i].Min.X < gs[j].Min.X })
	hs := make([]int, len(gs))
	for i, g := range gs {
		hs[i] = g.Dy()
	}
	sort.Ints(hs)
	h := float64(hs[len(hs)/2])
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && float64(gs[i].Min.X-gs[i-1].Max.X) >= letterSpace*h {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lineWords reads img as one line and returns tesseract's words.
func (p *pool) lineWords(ctx context.Context, img *image.Gray, psm gosseract.PageSegMode) ([]word, error) {
	var c *gosseract.Client
	select {
	case c = <-p.clients:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { p.clients <- c }()
	defer lockSingleThread()()
	if err := c.SetPageSegMode(psm); err != nil {
		return nil, err
	}
	if err := c.SetWhitelist(""); err != nil {
		return nil, err
	}
	if err := c.SetImageFromBytes(spix(img)); err != nil {
		return nil, err
	}
	boxes, err := c.GetBoundingBoxes(gosseract.RIL_WORD)
	if err != nil {
		return nil, err
	}
	var out []word
	for _, bx := range boxes {
		if t := strings.TrimSpace(bx.Word); t != "" {
			out = append(out, word{box: bx.Box, text: t, conf: bx.Confidence})
		}
	}
	return out, nil
}

// symWords groups one line's symbols into words at the gaps assemble
// counts as spaces.
func symWords(syms []sym) []word {
	if len(syms) == 0 {
		return nil
	}
	hs := make([]int, len(syms))
	for i, s := range syms {
		hs[i] = s.r.Dy()
	}
	sort.Ints(hs)
	hMed := float64(hs[len(hs)/2])
	gaps := make([]float64, 0, len(syms))
	for i := 1; i < len(syms); i++ {
		gaps = append(gaps, float64(syms[i].r.Min.X-syms[i-1].r.Max.X))
	}
	limit := 0.42 * hMed
	if len(gaps) >= 2 {
		letter := quantile(gaps, 0.3)
		k := 0.25 + 0.35*math.Max(0, math.Min(1, (letter/hMed-0.2)/0.15))
		limit = math.Max(limit, letter+k*hMed)
	}
	var out []word
	cur := word{box: syms[0].r, text: syms[0].t, conf: syms[0].conf}
	n := 1
	for i := 1; i < len(syms); i++ {
		s := syms[i]
		if gaps[i-1] > limit {
			cur.conf /= float64(n)
			out = append(out, cur)
			cur, n = word{box: s.r, text: s.t, conf: s.conf}, 1
			continue
		}
		cur.box = cur.box.Union(s.r)
		cur.text += s.t
		cur.conf += s.conf
		n++
	}
	cur.conf /= float64(n)
	return append(out, cur)
}

// dilate grows ink (1 for ink) by one pixel in every direction.
func dilate(ink []uint8, w, h int) []uint8 {
	row := make([]uint8, len(ink))
	for y := 0; y < h; y++ {
		src, dst := ink[y*w:(y+1)*w], row[y*w:(y+1)*w]
		copy(dst, src)
		if w > 1 {
			orRow(dst[1:], src[:w-1])
			orRow(dst[:w-1], src[1:])
		}
	}
	out := make([]uint8, len(ink))
	for y := 0; y < h; y++ {
		dst := out[y*w : (y+1)*w]
		copy(dst, row[y*w:(y+1)*w])
		if y > 0 {
			orRow(dst, row[(y-1)*w:y*w])
		}
		if y < h-1 {
			orRow(dst, row[(y+1)*w:(y+2)*w])
		}
	}
	return out
}

// orRow sets dst to dst | a at each place, eight places at a time.
func orRow(dst, a []uint8) {
	n := len(dst)
	a = a[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])|binary.LittleEndian.Uint64(a[i:]))
	}
	for ; i < n; i++ {
		dst[i] |= a[i]
	}
}

// lineImage is box cut out of g, stretched between its ink (2nd
// percentile) and its paper (the paper percentile), scaled to lineH px
// high, on a white margin of 20 px.
func lineImage(g *image.Gray, box image.Rectangle, paper float64) *image.Gray {
	hist := [256]int{}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			hist[g.Pix[y*g.Stride+x]]++
		}
	}
	n := box.Dx() * box.Dy()
	lo, hi := histPct(hist, n, 0.02), histPct(hist, n, paper)
	if hi-lo < 10 {
		lo, hi = 0, 255
	}
	c := image.NewGray(image.Rect(0, 0, box.Dx(), box.Dy()))
	for y := 0; y < box.Dy(); y++ {
		for x := 0; x < box.Dx(); x++ {
			v := (int(g.Pix[(y+box.Min.Y)*g.Stride+x+box.Min.X]) - lo) * 255 / (hi - lo)
			c.Pix[y*c.Stride+x] = uint8(max(0, min(255, v)))
		}
	}
	scale := float64(lineH) / float64(box.Dy())
	sized := imaging.Resize(c, max(1, int(float64(box.Dx())*scale)), lineH, imaging.Linear)
	out := image.NewGray(image.Rect(0, 0, sized.Bounds().Dx()+40, lineH+40))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for y := 0; y < lineH; y++ {
		for x := 0; x < sized.Bounds().Dx(); x++ {
			out.Pix[(y+20)*out.Stride+x+20] = sized.Pix[y*sized.Stride+4*x]
		}
	}
	return out
}

// threshold is img in black and white: levels under th black.
func threshold(img *image.Gray, th uint8) *image.Gray {
	out := image.NewGray(img.Bounds())
	for i, v := range img.Pix {
		if v >= th {
			out.Pix[i] = 255
		}
	}
	return out
}

// sideText is a rectified side made grey (pageGrey) and its lines of
// print, found once for the upright test and the page reading.
type sideText struct {
	card  *vision.Card
	grey  *image.Gray
	lines []textLine
	// upright holds tesseract's words of the line crops textUpright read
	// the right way up, by crop, so the page reading does not read them
	// again (each is one of a side's longest lines).
	upright map[image.Rectangle][]word
	// mrz is the side's MRZ as the template reader read it, when it did.
	mrz *mrzBand
}

// mrzBand is the MRZ band the template reader (mrz package) read on a
// rectified side: where it lies on the side and its lines. The page
// reading takes the band's lines of print as that reading rather than
// reading them again with tesseract: the template reader is made for
// OCR-B and reads every specimen MRZ exactly (docs/mrz.md), and an MRZ
// line is the widest print of its side, which is what tesseract's time
// goes by (two or three lines took a fifth of a card's line reads).
type mrzBand struct {
	box   image.Rectangle
	lines []string
	conf  float64 // the reader's mean glyph correlation, 0..1
}

// bandOn is rd's band on card, rd having read the crop of card's zone z
// (vision.Crop) upright.
func bandOn(card *vision.Card, z idv.Zone, rd *mrz.Reading) *mrzBand {
	b := card.Image.Bounds()
	at := image.Pt(max(b.Min.X, b.Min.X+int(math.Floor(z.X*float64(b.Dx())))), max(b.Min.Y, b.Min.Y+int(math.Floor(z.Y*float64(b.Dy())))))
	return &mrzBand{box: rd.Box.Add(at).Intersect(b), lines: rd.Lines, conf: rd.Confidence}
}

// mrzLines are, by index in lines, the lines of print that make up the
// band, each with its line of the reading: the lines whose middle lies in
// the band, when there are as many as the reading has and each runs most
// of the band's width (else the line finder cut or joined them, and
// tesseract reads them as before).
func (m *mrzBand) mrzLines(lines []textLine) map[int]string {
	if m == nil {
		return nil
	}
	var in []int
	for i, l := range lines {
		c := image.Pt((l.r.Min.X+l.r.Max.X)/2, (l.r.Min.Y+l.r.Max.Y)/2)
		if c.In(m.box) {
			if 5*l.r.Dx() < 4*m.box.Dx() {
				return nil
			}
			in = append(in, i)
		}
	}
	if len(in) != len(m.lines) {
		return nil
	}
	sort.SliceStable(in, func(a, b int) bool { return lines[in[a]].r.Min.Y < lines[in[b]].r.Min.Y })
	out := make(map[int]string, len(in))
	for k, i := range in {
		out[i] = m.lines[k]
	}
	return out
}

// lineBox is the crop a line is read from: the line with a quarter of
// its height of margin above and below and half of it on each side.
func lineBox(l textLine, b image.Rectangle) image.Rectangle {
	pad := linePad(l.r)
	return image.Rect(l.r.Min.X-pad*2, l.r.Min.Y-pad, l.r.Max.X+pad*2, l.r.Max.Y+pad).Intersect(b)
}

// linePad is the margin lineBox reads around a line: a quarter of its
// height above and below, twice that at its ends.
func linePad(r image.Rectangle) int { return max(2, r.Dy()/4) }

// textOf makes card's side grey and finds its lines.
func textOf(card *vision.Card) *sideText {
	g := pageGrey(card.Image)
	return &sideText{card: card, grey: g, lines: textLines(g)}
}

// uprightLines is how many of a side's lines are read both ways up to
// tell which way up it is.
const uprightLines = 4

// textUpright tells from the print itself whether a rectified side is
// upside down: its longest lines of larger print are read both ways up,
// and print read upside down gives tesseract letters it is unsure of.
// turn says the side reads better turned; sure is false when the
// readings do not tell (too few lines, or scores within a quarter of
// each other). A layout prior (where the definition puts the photo and
// the print) cannot decide this for a drawing other than the
// definition's own: a card printed with its photo on the right looks
// upside down to it.
func (p *pool) textUpright(ctx context.Context, st *sideText) (turn, sure bool, err error) {
	g := st.grey
	lines := append([]textLine(nil), st.lines...)
	sort.SliceStable(lines, func(i, j int) bool {
		return lines[i].glyphH*lines[i].r.Dx() > lines[j].glyphH*lines[j].r.Dx()
	})
	var up, down float64
	read := 0
	b := g.Bounds()
	for _, l := range lines {
		if read == uprightLines {
			break
		}
		if l.n < 3 || l.r.Dx() < 3*l.r.Dy() {
			continue
		}
		box := lineBox(l, b)
		img := lineImage(g, box, linePaper)
		w0, err := p.lineWords(ctx, img, gosseract.PSM_SINGLE_LINE)
		if err != nil {
			return false, false, err
		}
		w1, err := p.lineWords(ctx, rotate180(img), gosseract.PSM_SINGLE_LINE)
		if err != nil {
			return false, false, err
		}
		if st.upright == nil {
			st.upright = map[image.Rectangle][]word{}
		}
		st.upright[box] = w0
		up, down = up+lineScore(w0), down+lineScore(w1)
		read++
		// Two lines that read far better one way settle it: the other
		// two are read only when these leave a doubt.
		if read == 2 && 2*math.Abs(up-down) >= max(up, down) {
			break
		}
	}
	if read < 2 {
		return false, false, nil
	}
	return down > up, 4*math.Abs(up-down) >= max(up, down), nil
}

// lineScore is the letters and digits tesseract reads on a line, each
// counted by its word's confidence.
func lineScore(ws []word) float64 {
	s := 0.0
	for _, w := range ws {
		n := 0
		for _, r := range w.text {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				n++
			}
		}
		s += float64(n) * w.conf / 100
	}
	return s
}

func rotate180(g *image.Gray) *image.Gray {
	b := g.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	n := len(out.Pix)
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			out.Pix[n-1-(y*b.Dx()+x)] = g.Pix[(y+b.Min.Y)*g.Stride+x+b.Min.X]
		}
	}
	return out
}

// dropFrames leaves out blobs that are frames around other print: a
// hollow blob (under two fifths of its box inked) with two or more blobs
// inside its box (the border of a SPECIMEN stamp, a box around a number).
// Taken for a glyph, a frame sets its line's height, and the words beside
// it run on into it.
func dropFrames(gl []blob) []blob {
	out := gl[:0:0]
	for i, a := range gl {
		fill := float64(a.area) / float64(a.r.Dx()*a.r.Dy())
		inside := 0
		if fill < 0.4 {
			for j, c := range gl {
				if j != i && c.r.In(a.r) {
					inside++
				}
			}
		}
		if inside < 2 {
			out = append(out, a)
		}
	}
	return out
}
