package ocr

import (
	"context"
	"fmt"
	"image"
	"sort"
	"strings"
	"unicode"

	"github.com/disintegration/imaging"
	"github.com/otiai10/gosseract/v2"
)

// word is one word of a side's page reading, its box in rectified card
// pixels.
type word struct {
	box  image.Rectangle
	text string
	conf float64
	// listed: a '/' or ',' stood just before it in the word tesseract
	// read: it starts another spelling of a caption (Numm/Nom/Surname)
	// or another caption of a list (Surname,Given names).
	listed bool
}

// page is one reading of a whole rectified side: every word tesseract's
// layout analysis found, recognised once.
type page struct {
	words []word
	w, h  int
	grey  *image.Gray // the side as tesseract saw it
}

// readPage reads a rectified side once with tesseract's sparse-text
// layout analysis (psm 11: find as much text as possible in no particular
// order, which is what a card is) and keeps the words with their boxes and
// confidences. Words are split at the slashes and colons that join
// bilingual captions ("Surname/Nom") and a caption to its value
// ("SEX:M"), so each part can be matched on its own.
func (p *pool) readPage(ctx context.Context, img image.Image) (*page, error) {
	return p.readGrey(ctx, pageGrey(img))
}

// readGrey is readPage on a side already made grey (pageGrey).
func (p *pool) readGrey(ctx context.Context, g *image.Gray) (*page, error) {
	boxes, err := p.pageBoxes(ctx, g)
	if err != nil {
		return nil, err
	}
	b := g.Bounds()
	pg := &page{w: b.Dx(), h: b.Dy(), grey: g}
	for _, bx := range boxes {
		t := strings.TrimSpace(bx.Word)
		if t == "" {
			continue
		}
		w := word{box: bx.Box, text: t, conf: bx.Confidence}
		more, err := p.unmerge(ctx, g, &w)
		if err != nil {
			return nil, err
		}
		pg.words = append(pg.words, splitWord(w)...)
		for _, m := range more {
			pg.words = append(pg.words, splitWord(m)...)
		}
	}
	if err := p.rereadWeak(ctx, g, pg); err != nil {
		return nil, err
	}
	return pg, nil
}

// weakConf is the word confidence under which a run of small words is
// read again on its own. Captions in small capitals or faint ink on
// artwork come out of the page reading as lower-case guesses at 0 to 60
// (DISTRICT OF BIRTH read "pistaict or sire"), while the same caption
// cut out and read as one line reads at 90 and more. Chosen on synth
// seed 1, flow family, easy (kenya_national_id#6); values read at 85 and
// more on the same cards.
const weakConf = 75

// maxRereads bounds the runs read again on one side (each costs a line
// reading of about 10 ms): the weakest are read first. 12: on the
// flattened page of a synth flow-family Kenyan ID the page reading's
// artwork guesses took eight turns before the caption `vate issue`
// (DATE OF ISSUE) got one.
const maxRereads = 12

// rereadWeak reads runs of weak words again as one line each: a run is
// words on one line, set at most wordGap glyph heights apart, of about
// the same height (a caption, not the larger value beside it), at least
// one of them under weakConf and with letters. The new reading replaces
// the run when its confidence is higher than the run's mean.
func (p *pool) rereadWeak(ctx context.Context, g *image.Gray, pg *page) error {
	ws := pg.words
	if len(ws) == 0 {
		return nil
	}
	hs := make([]int, 0, len(ws))
	for _, w := range ws {
		hs = append(hs, w.box.Dy())
	}
	sort.Ints(hs)
	medH := hs[len(hs)/2]
	weak := func(w word) bool {
		return w.conf < weakConf && strings.IndexFunc(w.text, unicode.IsLetter) >= 0 && w.box.Dy() <= 2*medH
	}
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ws[order[a]].box.Min.X < ws[order[b]].box.Min.X })
	used := make([]bool, len(ws))
	type run struct {
		idx  []int
		box  image.Rectangle
		conf float64
	}
	var runs []run
	for _, i := range order {
		if used[i] || !weak(ws[i]) {
			continue
		}
		r := run{idx: []int{i}, box: ws[i].box}
		used[i] = true
		h := ws[i].box.Dy()
		// Grow to the right and to the left with words of the run's size.
		for grown := true; grown; {
			grown = false
			for _, j := range order {
				if used[j] {
					continue
				}
				b := ws[j].box
				ratio := float64(b.Dy()) / float64(h)
				gap := max(b.Min.X-r.box.Max.X, r.box.Min.X-b.Max.X)
				if ratio < 0.75 || ratio > 1.33 || !sameLine(r.box, b) || float64(gap) > wordGap*float64(h) {
					continue
				}
				r.idx = append(r.idx, j)
				r.box = r.box.Union(b)
				used[j] = true
				grown = true
			}
		}
		for _, k := range r.idx {
			r.conf += ws[k].conf
		}
		r.conf /= float64(len(r.idx))
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(a, b int) bool { return runs[a].conf < runs[b].conf })
	if len(runs) > maxRereads {
		runs = runs[:maxRereads]
	}
	drop := map[int]bool{}
	var add []word
	for _, r := range runs {
		pad := max(2, r.box.Dy()/6)
		box := image.Rect(r.box.Min.X-pad, r.box.Min.Y-pad, r.box.Max.X+pad, r.box.Max.Y+pad).Intersect(g.Bounds())
		rd, err := p.read(ctx, bandImage(g, box), "", 7)
		if err != nil {
			return err
		}
		parts := strings.Fields(rd.Text)
		if len(parts) == 0 || rd.Conf <= r.conf {
			continue
		}
		for _, k := range r.idx {
			drop[k] = true
		}
		add = append(add, spread(parts, r.box, rd.Conf)...)
	}
	if len(drop) == 0 {
		return nil
	}
	kept := ws[:0:0]
	for i, w := range ws {
		if !drop[i] {
			kept = append(kept, w)
		}
	}
	for _, w := range add {
		kept = append(kept, splitWord(w)...)
	}
	pg.words = kept
	return nil
}

// spread gives the words of one line reading boxes sharing the line's
// box in proportion to their length.
func spread(parts []string, box image.Rectangle, conf float64) []word {
	n := 0
	for _, s := range parts {
		n += len(s) + 1
	}
	var out []word
	x := box.Min.X
	for _, s := range parts {
		wd := box.Dx() * (len(s) + 1) / max(n, 1)
		out = append(out, word{box: image.Rect(x, box.Min.Y, x+wd*len(s)/(len(s)+1), box.Max.Y), text: s, conf: conf})
		x += wd
	}
	return out
}

func (p *pool) pageBoxes(ctx context.Context, g *image.Gray) ([]gosseract.BoundingBox, error) {
	var c *gosseract.Client
	select {
	case c = <-p.clients:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { p.clients <- c }()
	defer lockSingleThread()()
	// A rectified card is 12 px/mm, about 300 dpi: saying so spares
	// tesseract its estimate (and its message on stderr).
	if err := c.SetVariable("user_defined_dpi", "300"); err != nil {
		return nil, err
	}
	// The value crops are scaled to a glyph height, not a resolution:
	// they keep tesseract's estimate.
	defer c.SetVariable("user_defined_dpi", "0")
	if err := c.SetPageSegMode(gosseract.PSM_SPARSE_TEXT); err != nil {
		return nil, err
	}
	if err := c.SetWhitelist(""); err != nil {
		return nil, err
	}
	if err := c.SetImageFromBytes(pgm(g)); err != nil {
		return nil, err
	}
	boxes, err := c.GetBoundingBoxes(gosseract.RIL_WORD)
	if err != nil {
		return nil, fmt.Errorf("ocr: tesseract: %w", err)
	}
	return boxes, nil
}

// unmerge splits a word box that holds two text lines. Tesseract's
// layout analysis joins a small caption printed close above its value
// into one line when the capture is soft, and recognises only the value
// (the caption is lost, and the box covers both). The box's rows are cut
// where their ink falls under a sixth of the densest row's: the word
// keeps the band that holds most ink, and each other band of at least
// 6 px is read on its own as a new word.
func (p *pool) unmerge(ctx context.Context, g *image.Gray, w *word) ([]word, error) {
	if w.box.Dy() < 16 || w.box.Dx() < 8 {
		return nil, nil
	}
	// The box may hold only the lower half of the caption: the rows are
	// looked at from half the box's height above it, and a band counts
	// when it reaches into the box.
	r := image.Rect(w.box.Min.X, w.box.Min.Y-w.box.Dy()/2, w.box.Max.X, w.box.Max.Y).Intersect(g.Bounds())
	inBox := w.box.Min.Y - r.Min.Y
	hist := [256]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			hist[g.Pix[y*g.Stride+x]]++
		}
	}
	// Captions are often fainter than values (red or grey print): ink is
	// what is darker than halfway between Otsu's threshold, which the
	// value's black sets, and the paper.
	n := r.Dx() * r.Dy()
	t := (otsu(hist) + float64(histPct(hist, n, 0.9))) / 2
	rows := make([]int, r.Dy())
	peak := 0
	for y := range rows {
		for x := r.Min.X; x < r.Max.X; x++ {
			if float64(g.Pix[(y+r.Min.Y)*g.Stride+x]) < t {
				rows[y]++
			}
		}
		peak = max(peak, rows[y])
	}
	type band struct{ a, b, ink int }
	var bands []band
	for y := 0; y < len(rows); {
		if 6*rows[y] < peak {
			y++
			continue
		}
		bd := band{a: y}
		for y < len(rows) && 6*rows[y] >= peak {
			bd.ink += rows[y]
			y++
		}
		bd.b = y
		if bd.b > inBox {
			bands = append(bands, bd)
		}
	}
	if len(bands) < 2 {
		return nil, nil
	}
	main := 0
	for i, bd := range bands {
		if bd.ink > bands[main].ink {
			main = i
		}
	}
	var out []word
	for i, bd := range bands {
		if i == main || bd.b-bd.a < 6 {
			continue
		}
		box := image.Rect(r.Min.X, r.Min.Y+bd.a, r.Max.X, r.Min.Y+bd.b)
		img := bandImage(g, box)
		rd, err := p.read(ctx, img, "", 7)
		if err != nil {
			return nil, err
		}
		parts := strings.Fields(rd.Text)
		n := 0
		for _, s := range parts {
			n += len(s) + 1
		}
		x := box.Min.X
		for _, s := range parts {
			// Words share the band's width in proportion to their length.
			wd := box.Dx() * (len(s) + 1) / max(n, 1)
			out = append(out, word{box: image.Rect(x, box.Min.Y, x+wd*len(s)/(len(s)+1), box.Max.Y), text: s, conf: rd.Conf})
			x += wd
		}
	}
	m := bands[main]
	w.box = image.Rect(r.Min.X, r.Min.Y+m.a, r.Max.X, r.Min.Y+m.b)
	return out, nil
}

// splitWord cuts a word at '/', ':' and ',' into parts whose boxes share
// the word's width in proportion to their length: captions in several
// languages (Numm/Nom/Surname), a caption run into its value (SEX:M) and
// a list of captions (Name (Surname,Given names)) are read as one word.
func splitWord(w word) []word {
	if !strings.ContainsAny(w.text, "/:,") {
		return []word{w}
	}
	rs := []rune(w.text)
	n := len(rs)
	var out []word
	start := 0
	emit := func(end int) {
		if end > start {
			x0 := w.box.Min.X + w.box.Dx()*start/n
			x1 := w.box.Min.X + w.box.Dx()*end/n
			out = append(out, word{box: image.Rect(x0, w.box.Min.Y, x1, w.box.Max.Y), text: string(rs[start:end]), conf: w.conf,
				listed: start > 0 && (rs[start-1] == '/' || rs[start-1] == ',')})
		}
	}
	for i, r := range rs {
		if r == '/' || r == ':' || r == ',' && i+1 < n && unicode.IsLetter(rs[i+1]) {
			// The colon stays with its caption ("SEX:") and the comma
			// with the surname it ends (LIN,MEI-HUA); the slash goes.
			if r != '/' {
				emit(i + 1)
			} else {
				emit(i)
			}
			start = i + 1
		}
	}
	emit(n)
	return out
}

// pageGrey is the side in grey, divided by its paper (flatten) and
// contrast stretched between its darkest 1 % and its 95 % level, so faint
// print, tinted backgrounds and uneven light reach tesseract's own
// thresholding with the contrast of ink on paper. A side with no
// contrast (blank) is left as it is.
func pageGrey(img image.Image) *image.Gray {
	n := imaging.Clone(img)
	b := n.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			p := n.Pix[y*n.Stride+4*x:]
			g.Pix[y*g.Stride+x] = uint8((299*int(p[0]) + 587*int(p[1]) + 114*int(p[2])) / 1000)
		}
	}
	if lo, hi := greyRange(g); hi-lo < 20 {
		return g
	}
	g = flatten(g)
	lo, hi := greyRange(g)
	if hi-lo < 20 {
		return g
	}
	for i, v := range g.Pix {
		s := (int(v) - lo) * 255 / (hi - lo)
		g.Pix[i] = uint8(max(0, min(255, s)))
	}
	return g
}

// greyRange is g's 1 % and 95 % grey levels.
func greyRange(g *image.Gray) (lo, hi int) {
	var hist [256]int
	for _, v := range g.Pix {
		hist[v]++
	}
	return histPct(hist, len(g.Pix), 0.01), histPct(hist, len(g.Pix), 0.95)
}

// Box is a rectangle on a rectified side, in fractions of its width and
// height.
type Box struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

func (pg *page) boxOf(r image.Rectangle) *Box {
	if r.Empty() || pg.w == 0 || pg.h == 0 {
		return nil
	}
	w, h := float64(pg.w), float64(pg.h)
	return &Box{X: float64(r.Min.X) / w, Y: float64(r.Min.Y) / h, W: float64(r.Dx()) / w, H: float64(r.Dy()) / h}
}

// Word is one word of a page reading.
type Word struct {
	Text string  `json:"text"`
	Conf float64 `json:"conf"`
	Box  Box     `json:"box"`
}

func (pg *page) export() []Word {
	out := make([]Word, 0, len(pg.words))
	for _, w := range pg.words {
		if b := pg.boxOf(w.box); b != nil {
			out = append(out, Word{Text: w.text, Conf: w.conf, Box: *b})
		}
	}
	return out
}

// Located is where a field was found on its side.
type Located struct {
	Side string `json:"side"`
	// How: "label" (next to a caption), "region" (words in the zone, no
	// caption found), "zone" (the zone read as a crop) or "" (not found).
	How   string `json:"how"`
	Label *Box   `json:"label,omitempty"`
	Value *Box   `json:"value,omitempty"`
	// Raw is what was read there, with tesseract's confidence.
	Raw   string `json:"raw"`
	Valid bool   `json:"valid"`
}

func (r fieldRead) located(side string, pg *page) Located {
	return Located{Side: side, How: r.how, Label: pg.boxOf(r.label), Value: pg.boxOf(r.box), Raw: r.raw, Valid: r.valid}
}

// bandImage is a caption band cut from the page, stretched between its
// darkest ink and its paper and scaled to 40 px, with a white margin:
// captions are faint, and prepare's threshold (made for values) turns
// them to specks.
func bandImage(g *image.Gray, box image.Rectangle) *image.Gray {
	hist := [256]int{}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			hist[g.Pix[y*g.Stride+x]]++
		}
	}
	n := box.Dx() * box.Dy()
	lo, hi := histPct(hist, n, 0.02), histPct(hist, n, 0.8)
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
	scale := 40.0 / float64(box.Dy())
	sized := imaging.Resize(c, max(1, int(float64(box.Dx())*scale)), 40, imaging.Linear)
	out := image.NewGray(image.Rect(0, 0, sized.Bounds().Dx()+40, 80))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for y := 0; y < 40; y++ {
		for x := 0; x < sized.Bounds().Dx(); x++ {
			out.Pix[(y+20)*out.Stride+x+20] = sized.Pix[y*sized.Stride+4*x]
		}
	}
	return out
}
