package ocr

import (
	"context"
	"fmt"
	"image"
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
}

// anyDate reads a date printed day-month-year with a numeric or named
// month, or year-month-day (ISO), with a two- or four-digit year, and
// returns DD.MM.YYYY; "" when no such run of parts is a real calendar
// date. A two-digit year is in the past for a date of birth (74 is
// 1974, 05 is 2005 until 2105) and in this century otherwise (dates of
// issue and expiry).
func anyDate(raw string, f idv.FieldDef, now time.Time) string {
	s := strings.ToUpper(strings.ReplaceAll(raw, "\n", " "))
	if out, ok := wordDate(s); ok {
		return out
	}
	var toks []dateToken
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if strings.ContainsAny(w, "0123456789") {
			if d, ok := confusedDigits(w); ok {
				toks = append(toks, dateToken{num: d})
			}
			continue
		}
		if len(w) >= 3 {
			// A month named twice (APR/AVR, bilingual) counts once.
			if m := monthIndex(w[:3]); m > 0 && (len(toks) == 0 || toks[len(toks)-1].month == 0) {
				toks = append(toks, dateToken{month: m})
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
//   - a name is no caption's fragment (SURNA of a caption the page
//     reading cut);
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
	for name, r := range rs {
		f, ok := d.Field(name)
		if !ok || !r.valid || len(ly.pg.words) == 0 {
			continue
		}
		switch f.MRZ {
		case "issuing_state", "nationality":
			if !ly.wholeRun(r.box) {
				drop(name)
			}
		case "surname", "given_names":
			if ly.captionFragment(r.value) {
				drop(name)
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
// word with letters set close before or after them.
func (ly *layout) wholeRun(r image.Rectangle) bool {
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
		if !inside[i] && strings.IndexFunc(ly.pg.words[i].text, unicode.IsLetter) >= 0 {
			return false
		}
	}
	return true
}

// captionFragment: a word of the value is the start of a word of one of
// the side's captions, four letters or more and shorter than it (SURNA
// of SURNAME): the page reading cut a caption, and its piece is no name.
func (ly *layout) captionFragment(v string) bool {
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
// background divided out (flattened), scaled up when its print is small
// (pageScale), read once (readPage), and the words' boxes brought back
// to the side's pixels.
func (k *Check) genericPage(ctx context.Context, card *vision.Card) (*page, error) {
	g := flattened(card.Image)
	b := g.Bounds()
	ratio := 0.0
	if b.Dx() > 0 && card.SourceWidth > 0 {
		ratio = card.SourceWidth / float64(max(b.Dx(), b.Dy()))
	}
	scale := pageScale(g, ratio)
	if scale != 1 {
		g = upscaled(g, scale)
	}
	pg, err := k.tess().readPage(ctx, g)
	if err != nil {
		return nil, err
	}
	unscaleWords(pg.words, scale)
	pg.w, pg.h = b.Dx(), b.Dy()
	return pg, nil
}
