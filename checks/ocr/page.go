package ocr

import (
	"context"
	"image"
	"strings"
	"unicode"

	"github.com/disintegration/imaging"
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
	// light: found only by the light-print pass (lines.go). It may be a
	// caption; the region prior never takes it for a value, since a card
	// prints its values dark and what that pass adds where no caption
	// was found is mostly security print read as letters.
	light bool
	// spaced is the text with a space wherever its glyphs stand a word
	// space apart (letterSpace), when each glyph is one blob of ink; ""
	// when they are not. Tesseract joins single letters set a space
	// apart into one word (A B C read ABC); a field whose values are
	// lists of codes reads them this way (makeCandidate).
	spaced string
}

// page is one reading of a whole rectified side: every word of every
// line of print found on it (lines.go), recognised once.
type page struct {
	words []word
	w, h  int
	grey  *image.Gray // the side as tesseract saw it
}

// readPage reads a rectified side once: its lines of print are found by
// their ink (textLines), each is read on its own at a size tesseract
// reads well (readLines), and the words are kept with their boxes and
// confidences. Words are split at the slashes and colons that join
// bilingual captions ("Surname/Nom") and a caption to its value
// ("SEX:M"), so each part can be matched on its own.
func (p *pool) readPage(ctx context.Context, img image.Image) (*page, error) {
	return p.readGrey(ctx, pageGrey(img))
}

// readGrey is readPage on a side already made grey (pageGrey).
func (p *pool) readGrey(ctx context.Context, g *image.Gray) (*page, error) {
	return p.readText(ctx, &sideText{grey: g})
}

// readText reads a side made grey, on the lines found already when st
// holds them.
func (p *pool) readText(ctx context.Context, st *sideText) (*page, error) {
	g := st.grey
	if st.lines == nil {
		st.lines = textLines(g)
	}
	ws, err := p.readLines(ctx, st)
	if err != nil {
		return nil, err
	}
	b := g.Bounds()
	pg := &page{w: b.Dx(), h: b.Dy(), grey: g}
	for _, w := range ws {
		pg.words = append(pg.words, splitWord(w)...)
	}
	zeroWords(g, pg.words)
	return pg, nil
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
	n, ok := img.(*image.NRGBA)
	if !ok || n.Rect.Min != (image.Point{}) {
		// A rectified side is NRGBA at the origin already: only other
		// images are copied into that form.
		n = imaging.Clone(img)
	}
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
	var stretch [256]uint8
	for v := range stretch {
		stretch[v] = uint8(max(0, min(255, (v-lo)*255/(hi-lo))))
	}
	for i, v := range g.Pix {
		g.Pix[i] = stretch[v]
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
	// How: "label" (next to a caption), "loose" (next to print taken for
	// the caption by where it stands: looseCaptions), "order" (at its
	// place in the ICAO order, generic definitions), "chronology" (a date
	// given out by the order of the side's dates), "shape" (the one run of
	// the side with the value's shape: a number's grouping, a date, a sex
	// word), "stack" (at its place among values read: in a column
	// between fields read, or beside its row's value before it),
	// "region" (words in the zone, no caption found), "zone" (the zone
	// read as a crop),
	// "mrz_located" (the one run of print that reads the trusted MRZ's
	// value, where the field had been read only weakly: locatedByMRZ) or
	// "" (not found).
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
