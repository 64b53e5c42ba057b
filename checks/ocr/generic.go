package ocr

import (
	"context"
	"fmt"
	"image"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/vision"
)

// dateAny is the date format of the generic definitions: an issuer no
// definition was written for prints its dates as it pleases (22.06.1969
// on a Czech passport, 1960-02-08 on a Polish one, 12 AUG/AOUT 74 on the
// ICAO specimen), and each of these reads to one calendar date.
const dateAny = "any"

// dateToken is one part of a printed date: a number (letters OCR
// confuses with digits read as digits) or a month's name.
type dateToken struct {
	num   string
	month int
	exact bool // the month's English name read as printed
}

// anyDate reads a date printed day-month-year with a numeric or named
// month, or year-month-day (ISO), with a two- or four-digit year, and
// returns DD.MM.YYYY; "" when no such run of parts is a real calendar
// date. A two-digit year is in the past for a date of birth (74 is
// 1974, 05 is 2005 until 2105) and otherwise in this century unless that
// puts it more than 30 years ahead (dates of issue and expiry, as the MRZ
// reads them: 96 is 1996).
func anyDate(raw string, f idv.FieldDef, now time.Time) string {
	s := strings.ToUpper(strings.ReplaceAll(raw, "\n", " "))
	if out, ok := wordDate(s); ok {
		return out
	}
	var toks []dateToken
	var words []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		words = append(words, splitDateRun(w)...)
	}
	for _, w := range words {
		if strings.ContainsAny(w, "0123456789") {
			if d, ok := confusedDigits(w); ok {
				toks = append(toks, dateToken{num: d})
			}
			continue
		}
		if len(w) >= 3 {
			// A month named twice (APR/AVR, bilingual) counts once. Of
			// the two, an English name read exactly is the month: the
			// other may be another language's that is one letter from a
			// different English month (Ukrainian СЕР, August, read CEP,
			// one letter from SEP, on the Ukrainian specimen's
			// 24 СЕР/AUG 91).
			m := monthIndex(w[:3])
			exact := slices.Contains(monthNames, w[:3])
			switch {
			case m == 0:
			case len(toks) == 0 || toks[len(toks)-1].month == 0:
				toks = append(toks, dateToken{month: m, exact: exact})
			case exact && !toks[len(toks)-1].exact:
				toks[len(toks)-1] = dateToken{month: m, exact: true}
			}
		}
		// Other words (the second language of a bilingual month,
		// AUG/AOUT) are passed over.
	}
	birth := f.MRZ == "date_of_birth" || strings.Contains(f.Name, "birth")
	year := func(y string) int {
		var n int
		fmt.Sscanf(y, "%d", &n)
		if len(y) == 2 {
			n += 2000
			if birth && n > now.Year() {
				n -= 100
			}
			// Other dates as package mrz infers an expiry's century:
			// the 2000s unless more than 30 years ahead (a visa valid
			// from 10DEC/DIC 91 was issued in 1991, not 2091).
			if !birth && n > now.Year()+30 {
				n -= 100
			}
		}
		return n
	}
	num := func(t dateToken, lens ...int) bool {
		for _, l := range lens {
			if t.month == 0 && len(t.num) == l {
				return true
			}
		}
		return false
	}
	for i := range toks {
		var d, m, y int
		switch {
		case i+2 < len(toks) && num(toks[i], 1, 2) && toks[i+1].month > 0 && num(toks[i+2], 2, 4):
			fmt.Sscanf(toks[i].num, "%d", &d)
			m, y = toks[i+1].month, year(toks[i+2].num)
		case i+2 < len(toks) && num(toks[i], 4) && num(toks[i+1], 1, 2) && num(toks[i+2], 1, 2):
			fmt.Sscanf(toks[i+1].num, "%d", &m)
			fmt.Sscanf(toks[i+2].num, "%d", &d)
			y = year(toks[i].num)
		case i+2 < len(toks) && num(toks[i], 1, 2) && num(toks[i+1], 1, 2) && num(toks[i+2], 2, 4):
			fmt.Sscanf(toks[i].num, "%d", &d)
			fmt.Sscanf(toks[i+1].num, "%d", &m)
			y = year(toks[i+2].num)
		case num(toks[i], 8):
			fmt.Sscanf(toks[i].num[:2], "%d", &d)
			fmt.Sscanf(toks[i].num[2:4], "%d", &m)
			y = year(toks[i].num[4:])
		default:
			continue
		}
		if y < 1900 || y > 2100 {
			continue
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d || int(t.Month()) != m {
			continue
		}
		return fmt.Sprintf("%02d.%02d.%04d", d, m, y)
	}
	return ""
}

// splitDateRun splits a day, a month's name and a year printed without
// spaces (12DEC1966 on US visas, 10DEC of 10DEC/DIC 91 on ICAO's visa
// specimen, O7SEP40 as the page read 07SEP 40) into its parts; any other
// word is returned whole. The day is one or two digits (or letters OCR
// confuses with them), the month three letters naming one, the year two
// or four digits or absent (printed after a bilingual month).
func splitDateRun(w string) []string {
	if _, ok := confusedDigits(w); ok {
		return []string{w}
	}
	for p := 1; p <= 2 && p+3 <= len(w); p++ {
		day, mon, year := w[:p], w[p:p+3], w[p+3:]
		if _, ok := confusedDigits(day); !ok || !allLetters(mon) || monthIndex(mon) == 0 {
			continue
		}
		if year == "" {
			return []string{day, mon}
		}
		if _, ok := confusedDigits(year); ok && (len(year) == 2 || len(year) == 4) {
			return []string{day, mon, year}
		}
	}
	return []string{w}
}

// anyDateChars is the whitelist of a date in any format: digits, the
// separators and the letters of the English month names.
const anyDateChars = "0123456789ABCDEFGJLMNOPRSTUVY/.- "

// genericChecks holds what was read on a side of an unknown issuer's
// document against what such a page can print, and empties what does
// not hold (the field is then unread, never filled from elsewhere):
//
//   - a country code (issuing state, nationality) is a word of its own:
//     one picked out of a longer run is part of a name or a title (OF of
//     REPUBLIC OF CHINA, A of a line of Chinese read as Latin letters);
//     So is one picked out of a longer word (XX of the Ukrainian
//     specimen's passport number XX000000, right of "Country code");
//   - a name is no caption's fragment (SURNA of a caption the page
//     reading cut) and no title of the document (PASSEPORT);
//   - a name does not run through a caption's number (2a. of "2a.
//     Grösse/Taille/Height", the field after the given names on the
//     Luxembourg page: ICAO numbers the captions of the data zone);
//   - a name printed twice, in the issuer's script and after a slash in
//     Latin letters (ТКАЧЕНКО/TKACHENKO on the Ukrainian specimen, as
//     ICAO 9303 part 3 asks of issuers whose script is not Latin), is
//     its Latin part: the box reading drops the slash and runs the two
//     together, and tesseract's Latin model reads the other script as
//     Latin-looking letters (TKAYEHKO);
//   - a surname and given names read from one line are one caption's
//     value (Name (Surname, Given names)): split at the comma the page
//     reading kept, or not presented.
func genericChecks(d *idv.DocumentDefinition, ly *layout, rs map[string]fieldRead) {
	drop := func(name string) {
		r := rs[name]
		if r.valid {
			r.valid, r.value = false, ""
			r.raw = "generic: " + r.raw
			rs[name] = r
		}
	}
	// The boxes of what was read, taken before any is dropped so that
	// the checks do not depend on the order they run in.
	read := map[string]image.Rectangle{}
	for name, r := range rs {
		if r.valid {
			read[name] = r.box
		}
	}
	for name, r := range rs {
		f, ok := d.Field(name)
		if !ok || !r.valid || len(ly.pg.words) == 0 {
			continue
		}
		switch f.MRZ {
		case "issuing_state", "nationality":
			var others []image.Rectangle
			for n, b := range read {
				if n != name {
					others = append(others, b)
				}
			}
			if !ly.wholeRun(r.box, others...) || !ly.wholeWords(r.box, r.value) {
				drop(name)
			}
		case "document_number":
			// A number placed only weakly (a caption found loosely, the
			// zone, the order) that holds no digit is a word of the page:
			// LATVIJA of the Latvian page's title, right of its
			// DOKUMENTS, which loosely reads as Document No. Every
			// document number on the specimens carries digits; one
			// read next to its own caption is kept whatever it holds.
			if placedWeakly(r) && !strings.ContainsAny(r.value, "0123456789") {
				drop(name)
			}
		case "surname", "given_names":
			if ly.captionWordStart(r.value) || ly.numberedCaption(r.box) || ly.titleWords(r.value) {
				drop(name)
				continue
			}
			if latin, ok := ly.afterSlash(r.box); ok {
				if v, ok := Normalize(f, latin); ok {
					r.value, r.raw = v, "latin part: "+latin+" of "+r.raw
					rs[name] = r
				} else {
					drop(name)
				}
			}
		}
	}
	sn, gn := rs["surname"], rs["given_names"]
	if sn.valid && gn.valid && !sn.box.Empty() && sn.box.Overlaps(gn.box) {
		s, g, ok := ly.commaSplit(sn.box)
		fs, _ := d.Field("surname")
		fg, _ := d.Field("given_names")
		vs, oks := Normalize(fs, s)
		vg, okg := Normalize(fg, g)
		if ok && oks && okg {
			sn.value, gn.value = vs, vg
			rs["surname"], rs["given_names"] = sn, gn
		} else {
			drop("surname")
			drop("given_names")
		}
	}
}

// wordsIn are the page's words whose centre lies in r, left to right.
func (ly *layout) wordsIn(r image.Rectangle) []int {
	var out []int
	for i, w := range ly.pg.words {
		c := image.Pt((w.box.Min.X+w.box.Max.X)/2, (w.box.Min.Y+w.box.Max.Y)/2)
		if c.In(r) {
			out = append(out, i)
		}
	}
	sort.Slice(out, func(a, b int) bool { return ly.pg.words[out[a]].box.Min.X < ly.pg.words[out[b]].box.Min.X })
	return out
}

// wholeRun: the words in r are the whole run of words on their line, no
// word with letters set close before or after them, but for words of
// other fields' values read in the boxes others (UTO of Code: UTO set a
// word space before DL2G36R4VG, the document number read under its
// caption, on a synth columns card of seed 16).
func (ly *layout) wholeRun(r image.Rectangle, others ...image.Rectangle) bool {
	in := ly.wordsIn(r)
	if len(in) == 0 {
		// A value read from a crop where the page had no word.
		return true
	}
	inside := map[int]bool{}
	for _, i := range in {
		inside[i] = true
	}
	for _, i := range ly.segment(in[0]) {
		if !inside[i] && strings.IndexFunc(ly.pg.words[i].text, unicode.IsLetter) >= 0 && !ly.inAny(i, others) {
			return false
		}
	}
	return true
}

// inAny: word i's centre lies in one of rs.
func (ly *layout) inAny(i int, rs []image.Rectangle) bool {
	b := ly.pg.words[i].box
	c := image.Pt((b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2)
	for _, r := range rs {
		if c.In(r) {
			return true
		}
	}
	return false
}

// afterSlash: the page read the words in r as two forms of one value
// joined by a slash (a word split at a '/', not at a comma); it returns
// the words after the last slash.
func (ly *layout) afterSlash(r image.Rectangle) (string, bool) {
	in := ly.wordsIn(r)
	for k := len(in) - 1; k > 0; k-- {
		w, prev := ly.pg.words[in[k]], ly.pg.words[in[k-1]]
		if w.listed && !strings.HasSuffix(prev.text, ",") {
			var parts []string
			for _, i := range in[k:] {
				parts = append(parts, ly.pg.words[i].text)
			}
			return strings.Join(parts, " "), true
		}
	}
	return "", false
}

// wholeWords: the words the page read in r are v, whole (a value read
// from a crop where the page had no word passes).
func (ly *layout) wholeWords(r image.Rectangle, v string) bool {
	in := ly.wordsIn(r)
	if len(in) == 0 {
		return true
	}
	var b strings.Builder
	for _, i := range in {
		b.WriteString(docdefs.LabelKey(ly.pg.words[i].text))
	}
	return b.String() == docdefs.LabelKey(v)
}

// captionWordStart: a word of the value is the start of a word of one of
// the side's captions, four letters or more and shorter than it (SURNA
// of SURNAME): the page reading cut a caption, and its piece is no name.
func (ly *layout) captionWordStart(v string) bool {
	for _, w := range strings.Fields(v) {
		k := docdefs.LabelKey(w)
		if len(k) < 4 {
			continue
		}
		for _, set := range ly.captionWordSets {
			for cw := range set {
				if len(cw) > len(k) && strings.HasPrefix(cw, k) {
					return true
				}
			}
		}
	}
	return false
}

// commaSplit reads the words in r as "SURNAME, GIVEN NAMES": the part
// before the first word that ends in a comma and the part after it.
func (ly *layout) commaSplit(r image.Rectangle) (string, string, bool) {
	in := ly.wordsIn(r)
	for k, i := range in {
		t := ly.pg.words[i].text
		if strings.HasSuffix(t, ",") && k+1 < len(in) {
			var s, g []string
			for _, j := range in[:k+1] {
				s = append(s, ly.pg.words[j].text)
			}
			for _, j := range in[k+1:] {
				g = append(g, ly.pg.words[j].text)
			}
			return strings.TrimSuffix(strings.Join(s, " "), ","), strings.Join(g, " "), true
		}
	}
	return "", "", false
}

// genericPage reads a side of an unknown issuer's document: its
// background divided out (pageGrey), scaled up when its print is small
// (pageScale), read once (readPage), and the words' boxes brought back
// to the side's pixels.
func (k *Check) genericPage(ctx context.Context, card *vision.Card, st *sideText) (*page, error) {
	g := st.grey
	b := g.Bounds()
	ratio := 0.0
	if b.Dx() > 0 && card.SourceWidth > 0 {
		ratio = card.SourceWidth / float64(max(b.Dx(), b.Dy()))
	}
	scale := pageScale(g, ratio)
	read := st
	if scale != 1 {
		read = &sideText{card: card, grey: upscaled(g, scale)}
	}
	pg, err := k.tess().readText(ctx, read)
	if err != nil {
		return nil, err
	}
	unscaleWords(pg.words, scale)
	pg.w, pg.h, pg.grey = b.Dx(), b.Dy(), g
	return pg, nil
}

// genericUnvouched keeps, on a side of an unknown issuer's document that
// did not read as the ICAO order and has no trusted MRZ (none found, a
// check digit failing, a format no generic definition has), the values
// read next to their captions when the side shows at least half its
// fields' captions: the print says what it is, and each value was read
// where its caption points. Nothing is taken from the MRZ for them; a
// readable MRZ still holds them to account (conflicts).
func genericUnvouched(reads, captioned map[string]fieldRead) {
	for n, r := range captioned {
		reads[n] = r
	}
}

// icaoOrdered: d's data zone is printed in the order genericOrder knows,
// ICAO 9303 parts 4 to 6 (passports, cards, TD2 documents: the number
// heading the zone, the names under it). A visa's (part 7) is not: its
// top rows are the place of issue, the validity, the entries and the
// visa's own number, and its names follow the visa's type, so that order
// would take the visa's number for the passport's and the type of visa
// (BUSINESS NEGOCIOS) for a surname.
func icaoOrdered(d *idv.DocumentDefinition) bool {
	return d.Kind != docdefs.KindVisa
}

// orderFields are the fields the ICAO order finds when their captions
// are not read, in the order the data zone prints them.
var orderFields = []string{"document_number", "surname", "given_names", "date_of_birth"}

// valueLine is one line of value-sized words of a page, left to right.
type valueLine struct {
	words []int
	box   image.Rectangle
}

// valueLines are the page's lines of value print, top to bottom: words
// of about the height of the page's confident values (0.6 to 2 times the
// median height of the words read at 90 or more with three letters or
// digits), above the MRZ (no word with fillers, nothing below one).
// Captions (printed smaller) and specks are not in them.
func (ly *layout) valueLines() []valueLine {
	words := ly.pg.words
	mrzTop := ly.mrzTop()
	var hs []int
	for _, w := range words {
		if w.conf >= 90 && w.box.Max.Y <= mrzTop && alnumLen(w.text) >= 3 {
			hs = append(hs, w.box.Dy())
		}
	}
	if len(hs) < 3 {
		return nil
	}
	sort.Ints(hs)
	hv := float64(hs[len(hs)/2])
	var idx []int
	for i, w := range words {
		h := float64(w.box.Dy())
		// Words read under 40 are the page reading's guesses at
		// captions and artwork, unless they hold a code's digits; a lone
		// glyph read under 60 is a speck (an i at a portrait's edge,
		// taken for the line of a date of birth).
		digits := digitCount(w.text)
		if w.box.Max.Y > mrzTop || h < 0.6*hv || h > 2*hv || ly.isClaimed(i) || (w.conf < 40 && digits < 2) ||
			w.conf < 60 && alnumLen(w.text) < 2 ||
			strings.IndexFunc(w.text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
			continue
		}
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return words[idx[a]].box.Min.Y < words[idx[b]].box.Min.Y })
	var lines []valueLine
	for _, i := range idx {
		b := words[i].box
		placed := false
		for k := range lines {
			if sameLine(lines[k].box, b) {
				lines[k].words = append(lines[k].words, i)
				lines[k].box = lines[k].box.Union(b)
				placed = true
				break
			}
		}
		if !placed {
			lines = append(lines, valueLine{words: []int{i}, box: b})
		}
	}
	for k := range lines {
		ws := lines[k].words
		sort.Slice(ws, func(a, b int) bool { return words[ws[a]].box.Min.X < words[ws[b]].box.Min.X })
	}
	sort.SliceStable(lines, func(a, b int) bool { return lines[a].box.Min.Y < lines[b].box.Min.Y })
	return lines
}

// mrzTop is the top of the side's MRZ, the highest word read with two
// fillers (<<) and more; the side's height when there is none. A line of
// the MRZ read with its fillers taken for letters (PCUTOPETROVCKKOF ... KKK
// KEKE for P<UTOPETROV<<KOFI<J... on a blurred synth passport) has no
// "<<": the MRZ goes on over the line right above it (within one and a
// half line heights) whose words are capitals, digits and fillers only
// and span most of the MRZ's width, as an MRZ line does and a value line
// does not.
func (ly *layout) mrzTop() int {
	top := ly.pg.h
	var band image.Rectangle
	for _, w := range ly.pg.words {
		if strings.Count(w.text, "<") >= 2 {
			top = min(top, w.box.Min.Y)
			band = band.Union(w.box)
		}
	}
	if band.Empty() {
		return top
	}
	lh := 0
	for _, w := range ly.pg.words {
		if w.box.Min.Y == top {
			lh = w.box.Dy()
		}
	}
	for {
		var above image.Rectangle
		caps := true
		for _, w := range ly.pg.words {
			b := w.box
			if b.Max.Y > top || b.Max.Y < top-3*lh/2 || b.Max.X <= band.Min.X || b.Min.X >= band.Max.X {
				continue
			}
			above = above.Union(b)
			caps = caps && strings.IndexFunc(w.text, func(r rune) bool {
				return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '<')
			}) < 0
		}
		// Chosen on that passport: its misread MRZ line spans 97 % of
		// the MRZ's width; a value line of a data page, half of it at most.
		if above.Empty() || !caps || 5*above.Dx() < 4*band.Dx() {
			return top
		}
		top, band = above.Min.Y, band.Union(above)
	}
}

// genericOrder finds the document number, surname, given names and date
// of birth of a side whose captions for them were not read (captions in
// 6 px print on artwork: the Finnish and Croatian pages) by the order
// ICAO 9303 gives the data zone, which issuers keep: the document number
// is a code in the top two fifths of the side; the surname the next line below it
// that is a name, the given names the line right under that; the date
// of birth a date on one of the three lines after the given names (the
// nationality line comes between, and the sex's on pages that set it
// before the date: a Utopian page of the HTML dev2 style). Each value is read again in its own
// box with the field's character set, and kept only when it fits the
// field's pattern. The MRZ plays no part: what is found here is held
// against it afterwards like any printed value.
func (k *Check) genericOrder(ctx context.Context, d *idv.DocumentDefinition, card *vision.Card, ly *layout, rs map[string]fieldRead) error {
	if !icaoOrdered(d) {
		return nil
	}
	need := false
	for _, n := range orderFields {
		if f, ok := d.Field(n); ok && !rs[n].valid && len(ly.hits[n]) == 0 && f.Zone.Side != "" {
			need = true
		}
	}
	if !need {
		return nil
	}
	if d.MRZ != nil && d.MRZ.Format == idv.MRZTD1 {
		// A card's side with its MRZ is its back: address, personal
		// number and issuing office, in no order ICAO gives (the
		// Slovenian back's street was read as a surname).
		for _, w := range ly.pg.words {
			if strings.Count(w.text, "<") >= 2 {
				return nil
			}
		}
	}
	lines := ly.valueLines()
	read := func(f idv.FieldDef, ws []int) (fieldRead, error) { return k.orderRead(ctx, f, card, ly, ws) }
	take := func(name string, r fieldRead) {
		if old := rs[name]; r.valid && !old.valid && len(ly.hits[name]) == 0 {
			rs[name] = r
		}
	}
	numName := "document_number"
	if _, ok := d.Field(numName); !ok {
		numName = "passport_number"
	}
	fNum, okNum := d.Field(numName)
	fSur, _ := d.Field("surname")
	fGiv, _ := d.Field("given_names")
	fDob, _ := d.Field("date_of_birth")
	if !okNum {
		return nil
	}
	// The document number: in the top two fifths of the side (type,
	// code and number head the zone, under the titles), a word, or two
	// set close (AA 0000000), that is one and no date.
	at := -1
	for li, l := range lines {
		if 5*l.box.Min.Y > 2*ly.pg.h {
			break
		}
		for wi, w := range l.words {
			// Six characters or more, two digits or more: a year (2014
			// in artwork) or a code of letters is not the number.
			t := ly.pg.words[w].text
			// (Counted as letters and digits: a caption's key keeps only
			// the digits that look like letters, and TN6009357 had
			// five.)
			if anyDate(t, idv.FieldDef{}, time.Time{}) != "" || alnumLen(t) < 6 || digitCount(t) < 2 {
				continue
			}
			run := []int{w}
			if wi > 0 && ly.next[l.words[wi-1]] == w && alnumLen(ly.pg.words[l.words[wi-1]].text) <= 3 {
				// A series printed apart from the number.
				run = []int{l.words[wi-1], w}
			}
			// The number's end, split off by the page reading closer than
			// a word space (SN24445, and S73 of SN2444573, their boxes
			// overlapping), is the number's.
			split := false
			for _, j := range l.words[wi+1:] {
				a, b := ly.pg.words[run[len(run)-1]].box, ly.pg.words[j].box
				if b.Min.X <= a.Min.X || 3*(b.Min.X-a.Max.X) >= max(a.Dy(), b.Dy()) {
					break
				}
				run, split = append(run, j), true
			}
			var r fieldRead
			if split {
				// The page reading split one word, a glyph read twice where
				// its two boxes overlap: the number is read again whole.
				c := ly.makeCandidate(fNum, run, 0)
				var err error
				if r, err = k.readBox(ctx, fNum, card, ly.padded(c), 1); err != nil {
					return err
				}
				r.box, r.how = c.box, "order"
			}
			if !r.valid {
				var err error
				if r, err = read(fNum, run); err != nil {
					return err
				}
			}
			if r.valid {
				take(numName, r)
				at = li
				break
			}
		}
		if at >= 0 {
			break
		}
	}
	if at < 0 {
		return nil
	}
	// The surname and the given names: the first two name lines below,
	// one under the other.
	edge := rs[numName].box.Min.X
	li := at + 1
	var sur []int
	for ; li < len(lines); li++ {
		if run, ok := ly.nameRun(lines[li], edge); ok {
			sur = run
			break
		}
	}
	if li >= len(lines) {
		return nil
	}
	r, err := read(fSur, sur)
	if err != nil || !r.valid {
		return err
	}
	take("surname", r)
	edge = r.box.Min.X
	hv := lines[li].box.Dy()
	if li+1 < len(lines) && lines[li+1].box.Min.Y-lines[li].box.Max.Y <= 3*hv {
		if giv, ok := ly.nameRun(lines[li+1], edge); ok {
			r, err := read(fGiv, giv)
			if err != nil {
				return err
			}
			take("given_names", r)
			li++
		}
	}
	for j := li + 1; j < len(lines) && j <= li+3; j++ {
		r, err := read(fDob, ly.fromEdge(lines[j], edge))
		if err != nil {
			return err
		}
		if r.valid {
			take("date_of_birth", r)
			break
		}
	}
	return nil
}

// nameRun is the run of l's words that is a name (nameLine), the one
// starting at the column's edge x first, else the first from the left:
// a value line also holds what stands beside the column on its line (a
// portrait's speck read 4 after De La Cruz, a read a before Marco).
func (ly *layout) nameRun(l valueLine, x int) ([]int, bool) {
	var runs [][]int
	for _, w := range l.words {
		if p, ok := ly.prev[w]; ok && slices.Contains(l.words, p) {
			continue // inside a run
		}
		runs = append(runs, ly.lineRun(l, w))
	}
	sort.SliceStable(runs, func(a, b int) bool {
		ea := abs(ly.pg.words[runs[a][0]].box.Min.X-x) <= l.box.Dy()
		eb := abs(ly.pg.words[runs[b][0]].box.Min.X-x) <= l.box.Dy()
		return ea && !eb
	})
	for _, run := range runs {
		if nameLine(ly, valueLine{words: run}) {
			return run, true
		}
	}
	return nil, false
}

// fromEdge is the run of l's words that starts at the value column's
// left edge x (within a line's height), when a word of l starts there: a
// speck at the portrait's edge on the given names' line (a of a Marco) is
// not the value's. Else all of l's words.
func (ly *layout) fromEdge(l valueLine, x int) []int {
	h := l.box.Dy()
	for _, w := range l.words {
		if abs(ly.pg.words[w].box.Min.X-x) <= h {
			return ly.lineRun(l, w)
		}
	}
	return l.words
}

// lineRun is the run of l's words that starts at w: w and the words that
// follow it (next) on l.
func (ly *layout) lineRun(l valueLine, w int) []int {
	var run []int
	for j := w; j >= 0 && slices.Contains(l.words, j) && !slices.Contains(run, j); j = ly.next[j] {
		run = append(run, j)
	}
	return run
}

// orderRead tries the words of a line (or the longest run of them that
// fits) as f's value, found by its place in the order of the data zone.
func (k *Check) orderRead(ctx context.Context, f idv.FieldDef, card *vision.Card, ly *layout, ws []int) (fieldRead, error) {
	if len(ws) == 0 {
		return fieldRead{}, nil
	}
	c := ly.makeCandidate(f, ws, 0)
	c.how = "order"
	sub, v, ok := ly.fits(f, c)
	if !ok {
		sub = c
	}
	if ok && sub.conf >= pageTrust && !precise(f) {
		return fieldRead{raw: fmt.Sprintf("%s|%.0f", sub.text, sub.conf), value: v, valid: true, conf: sub.conf, box: sub.box, how: "order"}, nil
	}
	r, err := k.readBox(ctx, f, card, ly.padded(sub), 1)
	if err != nil {
		return fieldRead{}, err
	}
	r.box, r.how = sub.box, "order"
	if ok {
		// The page's spaces and whole words, as for a value found by its
		// caption (ELENAEVA re-read in the box of ELENA EVA).
		reconcile(&r, v)
	}
	if !r.valid && ok && sub.conf >= pageFallback {
		return fieldRead{raw: fmt.Sprintf("page %s|%.0f", sub.text, sub.conf), value: v, valid: true, conf: sub.conf, box: sub.box, how: "order"}, nil
	}
	return r, nil
}

// printedAfter are the printed-only fields of the data zone that ICAO
// 9303 sets after a date: the place of birth after the date of birth
// (and the sex), the authority after the date of issue.
var printedAfter = []struct{ field, after string }{{"place_of_birth", "date_of_birth"}, {"authority", "date_of_issue"}}

// genericPlaces finds the place of birth and the authority of a page
// whose captions for them were not read, by that order: the first name
// line within two lines after the line of the date they follow, one
// word of three letters or more and four letters in all (the sex, F,
// or a country code on a line of its own is passed over). The MRZ does
// not carry them: only their order says which print they are, and the
// date they follow must have been read with its box.
func (k *Check) genericPlaces(ctx context.Context, d *idv.DocumentDefinition, card *vision.Card, ly *layout, rs map[string]fieldRead) error {
	lines := ly.valueLines()
	for _, pa := range printedAfter {
		f, ok := d.Field(pa.field)
		anchor := rs[pa.after]
		if !ok || rs[pa.field].valid || ly.captionFound(pa.field) || !anchor.valid || anchor.box.Empty() {
			continue
		}
		at := -1
		for li, l := range lines {
			if l.box.Overlaps(anchor.box) {
				at = li
				break
			}
		}
		if at < 0 {
			continue
		}
		for li := at + 1; li < len(lines) && li <= at+2; li++ {
			l := lines[li]
			if l.box.Min.Y-lines[li-1].box.Max.Y > 3*lines[li-1].box.Dy() {
				break
			}
			if !nameLine(ly, l) || !placeLike(ly, l.words) {
				continue
			}
			r, err := k.orderRead(ctx, f, card, ly, l.words)
			if err != nil {
				return err
			}
			if r.valid && ly.accepts(r) {
				rs[pa.field] = r
			}
			break
		}
	}
	return nil
}

// placeLike: a word of three letters or more and four letters in all.
func placeLike(ly *layout, ws []int) bool {
	long, n := false, 0
	for _, w := range ws {
		k := len(docdefs.LabelKey(ly.pg.words[w].text))
		long = long || k >= 3
		n += k
	}
	return long && n >= 4
}

// nameLine: every word of the line is letters (a name may carry a
// hyphen, an apostrophe or a comma) and it is no caption and no title.
func nameLine(ly *layout, l valueLine) bool {
	for _, w := range l.words {
		for _, r := range ly.pg.words[w].text {
			if !unicode.IsLetter(r) && !strings.ContainsRune("-',", r) {
				return false
			}
		}
	}
	t := ly.textOf(l.words)
	return !ly.captionWords(t) && !ly.titleWords(t)
}

// titleWords: every word of the text is one of the document's titles
// (its keywords for the side: PASSPORT, PASSEPORT), which is never a
// name wherever the page prints it. Titles are claimed as such only in
// the side's top fifth, since lower down the same word may be a value
// (PASSPORT OFFICE, an authority); the Croatian page stacks PUTOVNICA /
// PASSPORT / PASSEPORT down its left edge, below that fifth, and the ICAO
// order took PASSEPORT for the surname.
func (ly *layout) titleWords(text string) bool {
	n := 0
	for _, w := range strings.Fields(text) {
		k := docdefs.LabelKey(w)
		if k == "" {
			continue
		}
		if !ly.titleKeys[k] {
			return false
		}
		n++
	}
	return n > 0
}

// numberedCaption: a word in r is a caption's number, one or two digits
// with an optional letter and a full stop (1., 2a., 10.).
func (ly *layout) numberedCaption(r image.Rectangle) bool {
	for _, i := range ly.wordsIn(r) {
		t := ly.pg.words[i].text
		if !strings.HasSuffix(t, ".") || len(t) < 2 || len(t) > 4 || t[0] < '0' || t[0] > '9' {
			continue
		}
		body := t[1 : len(t)-1]
		if body == "" || len(body) == 1 && (body[0] >= '0' && body[0] <= '9' || body[0] >= 'a' && body[0] <= 'z') ||
			len(body) == 2 && body[0] >= '0' && body[0] <= '9' && body[1] >= 'a' && body[1] <= 'z' {
			return true
		}
	}
	return false
}
