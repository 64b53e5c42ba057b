package ocr

import (
	"image"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// labelHit is one caption of a field found on the page.
type labelHit struct {
	field string
	words []int
	box   image.Rectangle
	key   string
	dist  int
	// loose: found by looseCaptions, a garbled caption taken for the
	// field's by where it stands; its values say how "loose".
	loose bool
}

// captionFound: a caption of the field was read as such on the page. A
// garbled caption taken for the field's only by where it stands (loose)
// that gave no value does not count: on a layout other than the
// definition's drawing that place holds some other print (Sen, a garbled
// First Name, taken for SEX while FEMALE stood two lines lower).
func (ly *layout) captionFound(field string) bool {
	for _, h := range ly.hits[field] {
		if !h.loose {
			return true
		}
	}
	return false
}

// how is what a value found from h is said to be found by.
func (h labelHit) how() string {
	if h.loose {
		return "loose"
	}
	return "label"
}

// layout is what the page says about a side's fields: where each field's
// captions are, and which words are captions (never values).
type layout struct {
	pg        *page
	captioned int  // fields of the side that have a caption
	vouched   bool // another side, or the MRZ, showed this is the document
	hasTitles bool // the definition gives keywords for the side
	// generic: the definition stands for any issuer's document of its
	// MRZ format (layout: generic); its zones are ICAO's suggested order,
	// which issuers do not follow, so they are no region prior.
	generic bool
	titles  int // matches of the side's keywords anywhere on the page
	// titleKeys are the words of four letters or more of the side's
	// keywords, folded (PASSPORT, PASSEPORT): the document's titles,
	// never a name wherever they stand.
	titleKeys map[string]bool
	// captionWordSets are the words of each caption spelling of the side.
	captionWordSets []map[string]bool
	captionKeys     []string    // each caption spelling of the side, folded
	next            []int       // the word to the right on the same line, -1 if none
	capNext         []int       // next within captionGap among words of one size: a caption's chain
	prev            map[int]int // the first word whose next is the key
	hits            map[string][]labelHit
	claimed         map[int]string // word index -> field whose caption it is
	// captionH is the median height of the caption words found (0 with
	// fewer than three captions).
	captionH int
	// loose is how many fields' captions looseCaptions found.
	loose int
	codes map[string]bool // codeList of each field, read only once made
}

// labelAllowance is how many character edits a caption of n letters may
// show and still match: one per five letters, none in short words (SEX,
// NAME), where one edit already makes another word. Chosen on the synth
// captions' tesseract readings (ID read 1D, NUMBER read NUMBFR).
func labelAllowance(n int) int { return n / 5 }

// allowance is labelAllowance for the side's definition. A generic
// definition lists its captions in some thirty languages, several hundred
// spellings, and a short word of other print is one edit from one of
// them far more often (NAMES from NOMES, a garbled Slovenian caption read
// NOMEN): under six letters its captions match only as spelled. Chosen
// on the specimens in testdata/ids, where both false captions were
// five letters and no true caption there needed an edit under six.
func (ly *layout) allowance(n int) int {
	if ly.generic && n < 6 {
		return 0
	}
	return labelAllowance(n)
}

// sameLine: b lies on a's text line (their vertical extents overlap by
// at least half the smaller height).
func sameLine(a, b image.Rectangle) bool {
	ov := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
	return 2*ov >= min(a.Dy(), b.Dy())
}

// wordGap is the largest gap, in glyph heights, between two words of one
// caption or one value: words are set about 0.3 to 1 height apart
// (letter-spaced passport print the most), while two fields printed on
// one line are several heights apart.
const wordGap = 1.5

// captionGap is wordGap for the words of one caption. Small captions
// are often letter-spaced, their word spaces two of their heights and
// more (Mahali pa Kutolewa on an HTML dev2 Kenyan ID: 2.1), and a
// caption's words are printed one size: the looser chain joins only
// words of one size, and what it joins must still spell a caption.
const captionGap = 2.5

// titleGap is wordGap for the document's titles: they are display type,
// letter-spaced and set with word spaces of about two of their heights
// (VOTER  ID  CARD read as three words 1.9 heights apart on a synth
// ghana_voter_id), and matched as a whole phrase in the top band, so a
// looser chain cannot join a caption to a value.
const titleGap = 3.0

// nextWords links each word to the nearest word to its right on the same
// line at most gap glyph heights away (-1 if none).
func nextWords(pg *page, gap float64) []int {
	next := make([]int, len(pg.words))
	for i, a := range pg.words {
		next[i] = -1
		best := math.MaxInt
		for j, b := range pg.words {
			if i == j || b.box.Min.X < a.box.Max.X-a.box.Dy()/2 || !sameLine(a.box, b.box) {
				continue
			}
			g := b.box.Min.X - a.box.Max.X
			if float64(g) <= gap*float64(max(a.box.Dy(), b.box.Dy())) && g < best {
				best, next[i] = g, j
			}
		}
	}
	return next
}

func newLayout(pg *page, d *idv.DocumentDefinition, side string) *layout {
	ly := &layout{pg: pg, next: nextWords(pg, wordGap), hits: map[string][]labelHit{}, claimed: map[int]string{}, generic: d.Generic()}
	ly.capNext = nextWords(pg, captionGap)
	for i, n := range ly.capNext {
		if n >= 0 && !sizeWithin(pg.words[n].box.Dy(), pg.words[i].box.Dy()) {
			ly.capNext[i] = ly.next[i]
		}
	}
	ly.prev = map[int]int{}
	for i, n := range ly.next {
		if _, ok := ly.prev[n]; n >= 0 && !ok {
			ly.prev[n] = i
		}
	}
	keys := make([]string, len(pg.words))
	for i, w := range pg.words {
		keys[i] = docdefs.LabelKey(w.text)
	}
	ly.codes = map[string]bool{}
	for _, f := range d.Fields {
		ly.codes[f.Name] = codeList(f)
	}
	var all []labelHit
	for _, f := range d.Fields {
		if f.Zone.Side != side || f.Fixed != "" {
			continue
		}
		if len(f.AllLabels()) > 0 {
			ly.captioned++
		}
		for _, l := range docdefs.Spellings(f) {
			k := docdefs.LabelKey(l)
			set := map[string]bool{}
			for _, w := range strings.Fields(strings.ReplaceAll(l, "/", " ")) {
				set[docdefs.LabelKey(w)] = true
			}
			ly.captionWordSets = append(ly.captionWordSets, set)
			ly.captionKeys = append(ly.captionKeys, k)
			allow := ly.allowance(len(k))
			for i := range pg.words {
				if keys[i] == "" {
					continue
				}
				acc, idx := "", []int{}
				// Up to a word per letter: a caption printed letter
				// spaced is read a letter a word (D A T E O F B I R T H).
				// A caption set on two lines (MAHALI PA / KUZALIWA) goes
				// on under its first word.
				for j := i; j >= 0 && len(idx) < max(8, len(k)+allow); j = ly.nextOrUnder(i, j) {
					acc += keys[j]
					idx = append(idx, j)
					if len(acc) > len(k)+allow {
						break
					}
					// A caption read a letter short or long still
					// matches; one two letters short is another word
					// (PASSPORT is not PASSPORT NO).
					if dd := levenshtein(acc, k); dd <= allow && abs(len(acc)-len(k)) <= 1 && !ly.tailOfCaption(i, f) {
						all = append(all, labelHit{field: f.Name, words: append([]int(nil), idx...), key: k, dist: dd})
						break
					}
				}
			}
		}
	}
	// The document's own titles (REPUBLIC OF KENYA) are claimed too, by
	// no field: they are print, never a value.
	ly.hasTitles = len(d.Keywords[side]) > 0
	var titleNext []int
	if ly.hasTitles {
		titleNext = nextWords(pg, titleGap)
	}
	ly.titleKeys = map[string]bool{}
	for _, kw := range d.Keywords[side] {
		for _, w := range strings.Fields(kw) {
			if k := docdefs.LabelKey(w); len(k) >= 4 {
				ly.titleKeys[k] = true
			}
		}
	}
	for _, kw := range d.Keywords[side] {
		k := docdefs.LabelKey(kw)
		for i := range pg.words {
			acc, idx := "", []int{}
			for j := i; j >= 0 && len(idx) < 8 && len(acc) < len(k); j = titleNext[j] {
				acc += keys[j]
				idx = append(idx, j)
			}
			// Titles are printed in the top band (a fifth of the side,
			// as rankByKeywords reads); the same word lower down is a
			// value (PASSPORT OFFICE).
			if len(k) < 4 || levenshtein(acc, k) > labelAllowance(len(k)) {
				continue
			}
			ly.titles++
			// A keyword that is also a caption of the side (DIVISION on
			// a Kenyan ID's back) names the document and is claimed as
			// the field's caption, not as a title, wherever it stands.
			if pg.words[i].box.Max.Y <= pg.h/5 && !slices.Contains(ly.captionKeys, k) {
				all = append(all, labelHit{field: "", words: idx, key: k})
			}
		}
	}
	// Closer matches win the words they share with others (COUNTY read
	// exactly is the caption COUNTY, not S.COUNTY with a letter lost),
	// then longer captions (DATE OF BIRTH over a field labelled BIRTH).
	sort.SliceStable(all, func(a, b int) bool {
		if all[a].dist != all[b].dist {
			return all[a].dist < all[b].dist
		}
		return len(all[a].key) > len(all[b].key)
	})
	for _, h := range all {
		free := true
		for _, w := range h.words {
			if _, taken := ly.claimed[w]; taken {
				free = false
			}
		}
		if !free {
			continue
		}
		for _, w := range h.words {
			ly.claimed[w] = h.field
			h.box = h.box.Union(pg.words[w].box)
		}
		if h.field != "" {
			ly.hits[h.field] = append(ly.hits[h.field], h)
		}
	}
	ly.looseCaptions(d, side, keys)
	var hs []int
	for _, fh := range ly.hits {
		for _, h := range fh {
			for _, w := range h.words {
				hs = append(hs, pg.words[w].box.Dy())
			}
		}
	}
	if len(ly.hits) >= 3 {
		sort.Ints(hs)
		ly.captionH = hs[len(hs)/2]
	}
	return ly
}

// nextOrUnder is the word after j in a caption that starts at word i: the
// next word on j's line, or at the line's end the word that starts the
// line right under i's (within a glyph height of its left edge and one
// and a half heights below j), printed the same size.
func (ly *layout) nextOrUnder(i, j int) int {
	if n := ly.capNext[j]; n >= 0 {
		return n
	}
	a, end := ly.pg.words[i].box, ly.pg.words[j].box
	h := a.Dy()
	best, by := -1, 0
	for k, w := range ly.pg.words {
		b := w.box
		if b.Min.Y <= end.Max.Y-h/2 || b.Min.Y > end.Max.Y+3*h/2 || abs(b.Min.X-a.Min.X) > h || !sizeWithin(b.Dy(), h) {
			continue
		}
		if best < 0 || b.Min.Y < by {
			best, by = k, b.Min.Y
		}
	}
	return best
}

// captionSized: every word of the candidate is printed no taller than
// the side's captions, and it holds no digit: caption print the page
// reading garbled past matching (DATI E OF BR, NATONABTY TYPE SA), not
// a value. Values are printed larger than their captions, a third larger
// and more on every document of the synth corpus and the specimens
// looked at; 1.1 leaves room for tesseract's box heights, which vary by
// a few pixels with the letters in a word.
func (ly *layout) captionSized(f idv.FieldDef, c candidate) bool {
	return ly.sizedAs(f, c, ly.captionH)
}

// sizedAs is captionSized against captions of height capH.
func (ly *layout) sizedAs(f idv.FieldDef, c candidate, capH int) bool {
	// Digits say a number or a date, unless the field holds none: then
	// they are letters misread (PRENOMS of GIVEN NAMES/PRENOMS read
	// S9RE EONS, right of the caption).
	numeric := f.Charset == "" || strings.ContainsAny(f.Charset, "0123456789")
	if capH == 0 || len(c.words) == 0 || numeric && strings.ContainsAny(c.text, "0123456789") {
		return false
	}
	sure := 0
	for _, w := range c.words {
		if float64(ly.pg.words[w].box.Dy()) > 1.1*float64(capH) {
			return false
		}
		if ly.pg.words[w].conf >= sureConf {
			sure++
		}
	}
	// Print of a caption's size that tesseract is sure of, most words
	// of it, and that is no caption's words, is a value set small (an
	// authority in small capitals under its caption, PASSPORT OFFICE
	// NORTHBAY read 95, 91, 64 on a synth passport): garbled captions
	// read as guesses.
	return 2*sure <= len(c.words)
}

// sureConf is the word confidence of print tesseract reads surely:
// clean values read 90 and more on the tuning corpora, garbled caption
// print (DATI E OF BR) under it.
const sureConf = 90

// largestPrint keeps, of a run of words printed at two sizes, the
// longest stretch of the larger when the smaller holds caption print: a
// value is set in one size, and smaller words run into it are a caption
// the page reading garbled (PRA LA KATEMIDOL ENAME before RAMADHANI, a
// value right of its caption). Two sizes differ by half: a word of lower-case letters
// without ascenders (es of Dar es Salaam) is about 0.7 of a capital's
// height, within it; captions are printed at 0.4 to 0.65 of their
// values on the synth corpus and the specimens looked at.
func (ly *layout) largestPrint(f idv.FieldDef, c candidate) candidate {
	if len(c.words) < 2 || lineCount(ly, c) > 1 {
		return c
	}
	// Marks more than three times the run's median height are no print
	// of it (a barcode read as a letter beside a date): never the
	// larger size.
	hs := make([]int, 0, len(c.words))
	for _, w := range c.words {
		hs = append(hs, ly.pg.words[w].box.Dy())
	}
	slices.Sort(hs)
	med, top := hs[len(hs)/2], 0
	for _, h := range hs {
		if h <= 3*med {
			top = max(top, h)
		}
	}
	// The longest stretch; found by the region prior, the one nearest the
	// zone: a line may run through two fields' values and the caption
	// between them (04 DEC 1966, Country of Birth garbled, RSA).
	best, run := []int(nil), []int(nil)
	bestD := math.Inf(1)
	keep := func() {
		if len(run) == 0 {
			return
		}
		if c.how == "region" {
			if d := ly.makeCandidate(f, run, 0).score; d < bestD {
				best, bestD = run, d
			}
		} else if len(run) > len(best) {
			best = run
		}
		run = nil
	}
	for _, w := range c.words {
		if h := ly.pg.words[w].box.Dy(); 3*h >= 2*top && h <= 3*med {
			run = append(run, w)
			continue
		}
		keep()
	}
	keep()
	if len(best) == len(c.words) {
		return c
	}
	// Box heights alone do not tell two sizes (a value's box may take in
	// the caption over it: ODHIAMBO boxed 1.6 times ISAAC's height): the
	// words left out must show they are a caption: one of them a stretch
	// of one (ENAME of MIDDLE NAME) or holding a whole caption of five
	// letters or more (MALACRRADAFIRSTNAME).
	// Or they continue the caption the value was found from, at its size
	// on its line (Middie Narne, the rest of Jina la Kati/Middle Name,
	// before Mwajuma).
	caption := false
	for _, w := range c.words {
		if slices.Contains(best, w) {
			continue
		}
		t, b := ly.pg.words[w].text, ly.pg.words[w].box
		tail := !c.label.Empty() && sameLine(b, c.label) && b.Min.X >= c.label.Min.X && 10*b.Dy() <= 11*c.label.Dy()
		caption = caption || ly.captionLike(t) || ly.holdsCaption(t) || tail
	}
	if !caption {
		return c
	}
	out := ly.makeCandidate(f, best, c.score)
	out.score, out.label, out.how = c.score, c.label, c.how
	return out
}

// tightGap: two words of the run stand closer than a word space, a
// third of their height: the sparse page reading cut a word at a wide
// letter gap (KI HARA, MA KUENI). The run is then read again as one line,
// where the recogniser sets the spaces from the whole line. A space is
// 0.4 to 0.7 capital heights in the synth corpus's faces; letters are set
// 0.05 to 0.3 apart, monospaced and letter-spaced print included.
func (ly *layout) tightGap(c candidate) bool {
	for i := 1; i < len(c.words); i++ {
		a, b := ly.pg.words[c.words[i-1]].box, ly.pg.words[c.words[i]].box
		if !sameLine(a, b) {
			continue
		}
		if 3*(b.Min.X-a.Max.X) < max(a.Dy(), b.Dy()) {
			return true
		}
	}
	return false
}

// holdsCaption: the word's letters hold a whole caption spelling of the
// side of five letters or more, run into other print.
func (ly *layout) holdsCaption(t string) bool {
	k := docdefs.LabelKey(t)
	for _, c := range ly.captionKeys {
		if len(c) >= 5 && strings.Contains(k, c) {
			return true
		}
	}
	return false
}

// overValue: the candidate sits right over a line printed larger, the
// place of a caption over its value. Found by the region prior, with no
// caption matched (soft print garbles every caption: JINA LA KWANZA/
// FIRST NAME read PALA KURATASRST AME over PETRO), the caption is the
// run of the zone's lines nearest its top. Larger is half as tall
// again, as largestPrint tells two sizes (two values one over the other
// differ by a quarter in their boxes' heights) and at most three times
// as tall (a barcode read as a word is no value line); the line below
// starts under the candidate (within its height) and within one and a
// half of its own heights below it. A candidate with digits is a value
// (a date over a number is not a caption).
func (ly *layout) overValue(c candidate) bool {
	if len(c.words) == 0 || strings.ContainsAny(c.text, "0123456789") {
		return false
	}
	// The candidate's size is its words' median height: a garbled word
	// of a caption can be boxed with the artwork under it.
	var hs []int
	for _, w := range c.words {
		hs = append(hs, ly.pg.words[w].box.Dy())
	}
	slices.Sort(hs)
	h := hs[len(hs)/2]
	for i, w := range ly.pg.words {
		b := w.box
		if slices.Contains(c.words, i) || b.Min.Y < c.box.Max.Y-h/2 || b.Min.Y-c.box.Max.Y > 3*b.Dy()/2 {
			continue
		}
		if b.Max.X < c.box.Min.X-h || b.Min.X > c.box.Max.X {
			continue
		}
		if 2*b.Dy() >= 3*h && b.Dy() <= 3*h && len(docdefs.LabelKey(w.text)) >= 2 {
			return true
		}
	}
	return false
}

// foreign: the page holds text but none of the titles the definition
// gives for the side (captions do not tell: DATE OF BIRTH, SEX and PLACE
// OF BIRTH are on most documents). Six words read with confidence are a
// printed document (a blank or unreadable side gives fewer); chosen on
// the synth corpus's sides, where the fewest legible words of a side are
// about ten. Words are of letters: dates and numbers are values, not a
// language (two dates and four scraps of faint captions had made the
// back of a Tanzanian card foreign, HTML dev2 seed 13).
func (ly *layout) foreign() bool {
	n := 0
	for _, w := range ly.pg.words {
		if w.conf >= 60 && !strings.ContainsAny(w.text, "0123456789") && len(docdefs.LabelKey(w.text)) >= 2 {
			n++
		}
	}
	return n >= 6 && ly.hasTitles && ly.titles == 0
}

// confirmed: the page shows at least half the captions of the side's
// captioned fields, so it is this document and its zones mean something
// (its titles alone do not say so: a card captioned in a language no
// label list covers carries them too).
// Only then is a field whose caption was not found looked for in its
// zone: on another card, or one captioned in another language, the zone
// holds some other value.
func (ly *layout) confirmed() bool {
	return ly.captioned > 0 && 2*ly.captions() >= ly.captioned
}

// tailOfCaption: the words starting at i are the end of a longer caption
// (ID NUMBER in VOTER ID NUMBER, NAMES in OTHER NAMES): a word of the
// caption's size and spacing stands just before them, and it is neither
// a number (1., 4a.) nor a word of one of f's own spellings (Vornamen/
// before Given names).
func (ly *layout) tailOfCaption(i int, f idv.FieldDef) bool {
	a := ly.pg.words[i]
	if a.listed {
		// After a slash or a comma a caption starts again, in another
		// language (Prénoms/Given names) or of another field.
		return false
	}
	own := map[string]bool{}
	for _, l := range docdefs.Spellings(f) {
		for _, w := range strings.Fields(strings.ReplaceAll(l, "/", " ")) {
			own[docdefs.LabelKey(w)] = true
		}
	}
	for j, b := range ly.pg.words {
		if ly.next[j] != i {
			continue
		}
		h := float64(a.box.Dy())
		ratio := float64(b.box.Dy()) / h
		k := docdefs.LabelKey(b.text)
		// A word read under 40 is tesseract's guess at print in another
		// script (Ім'я/ read "tu's!" before Given Names on the Ukrainian
		// specimen, the slash lost with it), not a caption's first word.
		if float64(a.box.Min.X-b.box.Max.X) <= 0.8*h && ratio > 0.75 && ratio < 1.33 && len(k) >= 2 &&
			!strings.ContainsAny(b.text, "0123456789") && !own[k] && b.conf >= 40 {
			return true
		}
	}
	return false
}

// known: nothing says this side is another document: its captions or
// another side of the capture (or its MRZ) show it is this one, or it is
// not foreign (a side whose titles were found, or whose definition gives
// none). A soft capture may lose most captions; the zones still hold the
// values then.
// titled: the side shows one of its titles and a caption as spelled;
// with its values read (sideCredible) that says this is the document for
// the sides read after it, though soft print kept most of its captions
// from matching (the faint captions of a Ugandan card's back). A title
// with no caption read says so when nearly every field of the side was
// read (wellRead): an old Ugandan front of the HTML dev2 style whose
// grey captions all faded read its eight values by place and shape under
// THE REPUBLIC OF UGANDA, and its back, captions faded too, had been
// taken for another document's.
func (ly *layout) titled(rs map[string]fieldRead) bool {
	return ly.titles > 0 && (ly.captions() > 0 || wellRead(rs))
}

func (ly *layout) known() bool {
	return ly.confirmed() || ly.vouched || !ly.foreign()
}

// captionWords: every word of the text is a word of one caption
// spelling of the side, as a caption whose first words were lost reads
// (OF BIRTH of DISTRICT OF BIRTH): never a value. Text with digits is
// not a caption.
func (ly *layout) captionWords(text string) bool {
	if strings.ContainsAny(text, "0123456789") {
		return false
	}
	var ws []string
	for _, w := range strings.Fields(text) {
		if k := docdefs.LabelKey(w); k != "" {
			ws = append(ws, k)
		}
	}
	if len(ws) == 0 {
		return false
	}
	for _, words := range ly.captionWordSets {
		all := true
		for _, w := range ws {
			all = all && words[w]
		}
		if all {
			return true
		}
	}
	return false
}

// regionPrior: f's caption was not found, and its zone may stand in for
// it: a zone of an issuer's own layout on a side known to be this
// document, or a generic zone (ICAO's order) on a side whose captions
// show that it follows that order (half of them found). A real issuer's
// print elsewhere (the back of a Swiss card read as a generic card)
// gave values taken from whatever lay in the generic zones.
func (ly *layout) regionPrior(f idv.FieldDef) bool {
	if len(ly.hits[f.Name]) > 0 || !f.HasZone() {
		return false
	}
	if ly.generic {
		return ly.confirmed()
	}
	return ly.known()
}

// headOfCaption: the run is set at caption size and runs straight on
// into another field's caption (N° of "N° du passeport", when only "du
// passeport" was matched): it is the first words of that caption, not a
// value. Size within a quarter of the caption's: a value is printed at
// least as large as its caption, and a third larger on every document
// of the synth corpus and the specimens looked at.
func (ly *layout) headOfCaption(f idv.FieldDef, seg []int) bool {
	if len(seg) == 0 {
		return false
	}
	last := seg[len(seg)-1]
	nx := ly.next[last]
	if nx < 0 {
		return false
	}
	owner, ok := ly.claimed[nx]
	if !ok || owner == f.Name || owner == "" {
		return false
	}
	r := float64(ly.pg.words[last].box.Dy()) / float64(max(ly.pg.words[nx].box.Dy(), 1))
	return r > 0.8 && r < 1.25
}

// captions is how many fields have a caption on the page.
// captions is how many fields' captions were found as spelled (within
// the allowance): the loose matches of looseCaptions say where a value
// is on a page known to be this document, never that it is.
func (ly *layout) captions() int { return len(ly.hits) - ly.loose }

// candidate is a run of words that may be a field's value.
type candidate struct {
	words []int
	box   image.Rectangle
	text  string
	conf  float64
	// score ranks candidates, lower first: distance from the caption in
	// caption heights, plus distance from the zone prior.
	score float64
	// label is the caption's box the candidate was found from (empty when
	// found by the region prior); how says which ("label", "region").
	label image.Rectangle
	how   string
}

// segment is the run of unclaimed words on w's line that w belongs to,
// left to right.
func (ly *layout) segment(w int) []int {
	prev := ly.prev
	start := w
	seen := map[int]bool{w: true}
	for {
		p, ok := prev[start]
		if !ok || ly.isClaimed(p) || seen[p] {
			break
		}
		seen[p] = true
		start = p
	}
	var out []int
	seen = map[int]bool{}
	for j := start; j >= 0 && !ly.isClaimed(j) && !seen[j]; j = ly.next[j] {
		seen[j] = true
		out = append(out, j)
	}
	return out
}

// runs are the page's runs of words (segment), each from its first word,
// leaving out runs that start with a word claimed as a caption or title.
func (ly *layout) runs() [][]int {
	var out [][]int
	for i := range ly.pg.words {
		if ly.isClaimed(i) {
			continue
		}
		if seg := ly.segment(i); len(seg) > 0 && seg[0] == i {
			out = append(out, seg)
		}
	}
	return out
}

func (ly *layout) isClaimed(w int) bool { _, ok := ly.claimed[w]; return ok }

// valueCandidates lists the runs of words that may hold f's value: right
// of or below each of its captions, or, when no caption was found, the
// words where its zone says the value usually is.
func (ly *layout) valueCandidates(f idv.FieldDef) []candidate {
	var out []candidate
	words := ly.pg.words
	for _, h := range ly.hits[f.Name] {
		hl := float64(max(h.box.Dy(), 1))
		found := len(out)
		if f.Value != idv.ValueBelow {
			// The nearest word to the right on the caption's line (its
			// middle within the caption's height, widened by half of it: a
			// larger value shares the caption's baseline, not its middle).
			// Another caption of the field is passed over; a caption of
			// another field ends the search. A caption set on several
			// lines (NUMERO DEL / DOCUMENTO / DOCUMENT NO) has its value
			// right of any of them: its lines above the one matched are
			// searched in turn, each half a height further in rank.
			rows := append([]image.Rectangle{h.box}, ly.captionRowsAbove(h)...)
		rows:
			for k, row := range rows {
				var right []int
				for i, w := range words {
					cy := float64(w.box.Min.Y+w.box.Max.Y) / 2
					// Print much larger than a small caption may instead
					// hang from the caption's top (LAST NAME 9 px high, its
					// value 22 px from 3 px under the caption's top): it
					// covers at least half the caption's height.
					level := cy >= float64(row.Min.Y)-hl/2 && cy <= float64(row.Max.Y)+hl/2 ||
						w.box.Dy() > row.Dy() && sameLine(w.box, row)
					if !level || w.box.Min.X < row.Max.X-int(hl/2) ||
						ly.inHit(i, h) || float64(w.box.Min.X-row.Max.X) > 0.45*float64(ly.pg.w) {
						continue
					}
					right = append(right, i)
				}
				sort.Slice(right, func(a, b int) bool { return words[right[a]].box.Min.X < words[right[b]].box.Min.X })
				passed := -1 // right edge of a garbled caption passed over
				for _, i := range right {
					if mark(words[i], hl) || captionRest(words[i], row) || words[i].box.Min.X < passed {
						continue
					}
					if owner, ok := ly.claimed[i]; ok {
						if owner == f.Name {
							continue
						}
						break
					}
					seg := ly.spacedDate(f, ly.segment(i))
					if ly.headOfCaption(f, seg) {
						break
					}
					c := ly.makeCandidate(f, seg, float64(max(0, words[i].box.Min.X-row.Max.X))/hl+0.5*float64(k))
					c.label, c.how = h.box, h.how()
					out = append(out, c)
					// The rest of a caption in another language, garbled
					// past matching (Mide le N of Jina la Kati/Middle Name),
					// stands between the caption and its value: once, the
					// run after it is a candidate too.
					// Caption print is judged against the side's captions
					// and against this caption itself: a side whose
					// captions were mostly lost has few to measure (fe
					// mace, the rest of date de naissance, as tall as the
					// date of birth it follows).
					if passed < 0 && (ly.captionSized(f, c) || ly.sizedAs(f, c, h.box.Dy()) || ly.captionRun(c)) {
						passed = c.box.Max.X
						continue
					}
					break rows
				}
			}
		}
		if f.Value != idv.ValueRight {
			// The nearest line below that starts under the caption (its
			// first word no more than two caption heights left of the
			// caption's start: a tall mark of artwork further left, the
			// Chinese print beside LIN, MEI-HUA read as PIG, is not the
			// value's line). More lines of the caption (another
			// language) and prose in lower case are passed over; a
			// caption of another field ends the search.
			x0, x1 := ly.captionStart(h)-int(2*hl), max(h.box.Max.X, h.box.Min.X+int(4*hl))
			var below []int
			for i, w := range words {
				if w.box.Min.Y < h.box.Min.Y+int(hl/2) || w.box.Max.X < x0 || w.box.Min.X > x1 || ly.inHit(i, h) {
					continue
				}
				below = append(below, i)
			}
			below = ly.byLine(below, h.box.Min.X)
			top := h.box.Max.Y // bottom of the last line passed over
			done := map[int]bool{}
			for _, i := range below {
				w := words[i]
				if done[i] || mark(w, hl) {
					continue
				}
				if dy := w.box.Min.Y - top; float64(dy) > 2.5*math.Max(hl, float64(w.box.Dy())) {
					break
				}
				if owner, ok := ly.claimed[i]; ok {
					if owner == f.Name {
						top = max(top, w.box.Max.Y)
						continue
					}
					// Another field's caption ends the search when it
					// stands under this one; the tail of a caption of the
					// column to the left that reaches into the margin
					// searched (primaire of Identifiant primaire under
					// Identifiant secondaire) does not.
					if ov := min(w.box.Max.X, h.box.Max.X) - max(w.box.Min.X, ly.captionStart(h)); 2*ov >= w.box.Dx() {
						break
					}
					continue
				}
				seg := ly.columnCut(ly.segment(i), h)
				// Words of the run that end left of the search's margin
				// are the column to the left when another field's caption
				// stands over them (08 01 2025, a stray mark, 07 01 2030
				// under DATE OF EXPIRY), and artwork when they are not
				// print of the value's size read with some confidence (w
				// and the portrait's edge before JACQUES KATLEGO). Else
				// they may be the value's start under the caption's other
				// language (01 of 01 JAN 1976 under the Chinese of Date of
				// birth).
				// So are words that follow another field's caption on
				// their line (UTO after Code: left of DL2G36R4VG under
				// Document No, a synth columns card of seed 16).
				for len(seg) > 1 && words[seg[0]].box.Max.X < x0 &&
					(ly.underCaptionOf(words[seg[0]].box, f.Name) || ly.afterCaptionOf(seg[0], f.Name) || !samePrint(words[seg[0]], w)) {
					seg = seg[1:]
				}
				// A line that starts right after another field's caption
				// is that field's row (TANAKA after Surname, under
				// Document No whose value VU12 stands far right of it, on
				// a synth flow card of seed 16).
				if ly.afterCaptionOf(seg[0], f.Name) {
					break
				}
				if prose(ly.textOf(seg)) {
					for _, s := range seg {
						done[s] = true
						top = max(top, words[s].box.Max.Y)
					}
					continue
				}
				for n := 1; n < max(f.Lines, 1); n++ {
					seg = append(seg, ly.lineBelow(seg)...)
				}
				seg = ly.columnCut(ly.spacedDate(f, seg), h)
				c := ly.makeCandidate(f, seg, math.Max(0, float64(w.box.Min.Y-h.box.Max.Y))/hl)
				c.label, c.how = h.box, h.how()
				out = append(out, c)
				break
			}
		}
		if len(out) == found {
			// The caption is there and the page reading has no word where
			// its value goes: tesseract's layout analysis drops lone
			// glyphs and faint short values (the F of a sex field on a
			// soft capture). The place the caption points to is read as
			// a crop instead, after every run of words another spelling
			// of the caption points to (Maus under Nom of Numm/Nom/
			// Surname, when the Surname matched has nothing right under
			// it): a crop read as letters was the value only when no
			// word there is.
			for _, c := range ly.blindCandidates(f, h) {
				c.score += blindRank
				out = append(out, c)
			}
		}
	}
	// The MRZ holds no printed value: a caption right over it (the
	// issuing authority of a Kenyan passport page, its value far to its
	// right) would take its first line, below and nearer, for its value.
	if top := ly.mrzTop(); top < ly.pg.h {
		kept := out[:0]
		for _, c := range out {
			if c.box.Max.Y <= top || c.box.Empty() {
				kept = append(kept, c)
			}
		}
		out = kept
	}
	for k := range out {
		// A run with no letter or digit is a glyph read as punctuation
		// at best (the M of a sex read "): tried after every run of
		// letters or digits found for the field (a mark at the photo's
		// edge under SURNAME: ranked before BYARUHANGA right of it).
		if len(out[k].words) > 0 && !hasAlnum(out[k].text) {
			out[k].score += blindRank / 2
		}
	}
	if ly.regionPrior(f) {
		// No caption: the region prior. Unclaimed words whose centre lies
		// in the zone, widened by 3 % of the card (print moves by that
		// much between print runs), each with its line.
		z := valueZone(f.Zone)
		x0, x1 := (z.X-0.03)*float64(ly.pg.w), (z.X+z.W+0.03)*float64(ly.pg.w)
		y0, y1 := (z.Y-0.03)*float64(ly.pg.h), (z.Y+z.H+0.03)*float64(ly.pg.h)
		seen := map[int]bool{}
		for i, w := range words {
			cx, cy := float64(w.box.Min.X+w.box.Max.X)/2, float64(w.box.Min.Y+w.box.Max.Y)/2
			if ly.isClaimed(i) || seen[i] || w.light || cx < x0 || cx > x1 || cy < y0 || cy > y1 {
				continue
			}
			seg := ly.segment(i)
			for _, s := range seg {
				seen[s] = true
			}
			if prose(ly.textOf(seg)) {
				continue
			}
			c := ly.makeCandidate(f, seg, 0)
			c.how = "region"
			out = append(out, c)
		}
	}
	return out
}

// mark: a word that is no print of a value, which is set at least as
// large as its caption (hl its height): under a third of that, or
// smaller than it and holding no letter or digit. A dot of the artwork
// or dust the page reading boxed as a word (a 3-pixel © before
// JINSIA/SEX, taken for the line under the caption, hid MALE; a | left
// of DATE OF ISSUE hid the date under it) is passed over; a value's
// glyph read as punctuation (the M of a sex read ") is not.
func mark(w word, hl float64) bool {
	h := float64(w.box.Dy())
	return 3*h < hl || h < hl && !hasAlnum(w.text)
}

func hasAlnum(t string) bool {
	return strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// captionRest: the word right after a caption is the rest of the
// caption's last word, which the page reading split off (ly of County
// read Count ly, 8 pixels after a caption 8 pixels tall): in lower case,
// no taller than the caption by a third, and within 1.2 of its height
// (a word space is 0.4 to 0.7; another caption set beside it stands
// further off). A value is printed larger, in capitals or capitalised.
func captionRest(w word, caption image.Rectangle) bool {
	hl := float64(caption.Dy())
	return float64(w.box.Min.X-caption.Max.X) <= 1.2*hl && float64(w.box.Dy()) <= 1.33*hl && prose(w.text) &&
		!strings.ContainsAny(w.text, "0123456789")
}

// samePrint: a is print of b's size (within a third) that tesseract read
// with some confidence (50, as minConfidence's neighbourhood).
func samePrint(a, b word) bool {
	return sizeWithin(a.box.Dy(), b.box.Dy()) && a.conf >= 50
}

// sizeWithin: print h pixels tall is of the size of print ref tall,
// within a third (0.75 to 1.33 of it).
func sizeWithin(h, ref int) bool {
	r := float64(h) / float64(max(ref, 1))
	return r >= 0.75 && r <= 1.33
}

// underCaptionOf: a caption of a field other than name stands over r,
// overlapping it across, within three of its heights above.
func (ly *layout) underCaptionOf(r image.Rectangle, name string) bool {
	for f, hs := range ly.hits {
		if f == name {
			continue
		}
		for _, h := range hs {
			if h.box.Max.Y <= r.Min.Y && r.Min.Y-h.box.Max.Y <= 3*h.box.Dy() && h.box.Min.X < r.Max.X && r.Min.X < h.box.Max.X {
				return true
			}
		}
	}
	return false
}

// afterCaptionOf: the nearest word left of word i on its line is a
// caption of a field other than name, less than titleGap of its heights
// away: i starts that field's value.
func (ly *layout) afterCaptionOf(i int, name string) bool {
	r := ly.pg.words[i].box
	best, owner := math.MaxInt, ""
	for j, v := range ly.pg.words {
		if j == i || v.box.Max.X > r.Min.X+r.Dy()/2 || !sameLine(v.box, r) {
			continue
		}
		if g := r.Min.X - v.box.Max.X; g < best {
			best, owner = g, ly.claimed[j]
			if float64(g) > titleGap*float64(v.box.Dy()) {
				owner = ""
			}
		}
	}
	return owner != "" && owner != name
}

// captionRowsAbove returns the lines of h's caption above the line
// matched, nearest first, two at most: print of the caption's size (within
// a third), starting within a height of the caption's left edge and no
// further right than its end, set closer above than half a height (the
// lines of one caption are set tight; the next field's row stands a
// value's height off), and no other field's caption.
func (ly *layout) captionRowsAbove(h labelHit) []image.Rectangle {
	hl := h.box.Dy()
	x := ly.captionStart(h)
	top := h.box.Min.Y
	var rows []image.Rectangle
	for n := 0; n < 2; n++ {
		var row image.Rectangle
		for i, w := range ly.pg.words {
			b := w.box
			if owner, ok := ly.claimed[i]; ok && owner != h.field {
				continue
			}
			if b.Max.Y > top+hl/4 || 2*(top-b.Max.Y) > hl || !sizeWithin(b.Dy(), hl) || b.Min.X < x-hl || b.Min.X > h.box.Max.X {
				continue
			}
			row = row.Union(b)
		}
		if row.Empty() {
			break
		}
		rows = append(rows, row)
		top = row.Min.Y
	}
	return rows
}

// spacedDate runs a date's words on past a wide gap: a date set in
// spaced-out monospaced print (21  FEB  2018) leaves its parts about one
// and a half heights apart, at the edge of wordGap. When the run is no
// date, the next words on its line within dateGap heights, two at most,
// are taken while that makes it one.
func (ly *layout) spacedDate(f idv.FieldDef, seg []int) []int {
	if f.Type != idv.FieldDate || len(seg) == 0 {
		return seg
	}
	if _, ok := Normalize(f, ly.textOf(seg)); ok {
		return seg
	}
	out := slices.Clone(seg)
	for n := 0; n < 2; n++ {
		last := ly.pg.words[out[len(out)-1]]
		next := -1
		for j, b := range ly.pg.words {
			g := b.box.Min.X - last.box.Max.X
			if slices.Contains(out, j) || ly.isClaimed(j) || g < 0 || !sameLine(last.box, b.box) ||
				float64(g) > dateGap*float64(max(last.box.Dy(), b.box.Dy())) {
				continue
			}
			if next < 0 || b.box.Min.X < ly.pg.words[next].box.Min.X {
				next = j
			}
		}
		if next < 0 {
			return seg
		}
		out = append(out, next)
		if _, ok := Normalize(f, ly.textOf(out)); ok {
			return out
		}
	}
	return seg
}

// dateGap is the widest gap between a spaced date's parts, in heights:
// 1.5 on the synth passports' OCR-B dates; two fields on one line stand
// three heights apart and more.
const dateGap = 2.2

// byLine orders words top line first and, within a line, nearest x
// first. A line is the words whose extents overlap its first word's
// (sameLine): a tall mark of artwork beside a value starts higher than
// the value (the Chinese print left of LIN, MEI-HUA, read as PIG) and is
// on its line, not above it.
func (ly *layout) byLine(ws []int, x int) []int {
	words := ly.pg.words
	sort.SliceStable(ws, func(a, b int) bool { return words[ws[a]].box.Min.Y < words[ws[b]].box.Min.Y })
	line := make(map[int]int, len(ws)) // word -> its line's first word's rank
	var heads []int                    // ranks of the lines' first words
	for n, i := range ws {
		line[i] = n
		for _, r := range heads {
			if sameLine(words[ws[r]].box, words[i].box) {
				line[i] = r
				break
			}
		}
		if line[i] == n {
			heads = append(heads, n)
		}
	}
	sort.SliceStable(ws, func(a, b int) bool {
		la, lb := line[ws[a]], line[ws[b]]
		if la != lb {
			return la < lb
		}
		return abs(words[ws[a]].box.Min.X-x) < abs(words[ws[b]].box.Min.X-x)
	})
	return ws
}

// captionStart is the left edge of the caption a hit belongs to: a
// caption printed in several languages (1. Numm/Nom/Surname) is matched
// on one of its spellings, and its value is set under the caption's
// start, not under the spelling matched. The caption runs left over
// words set as close as a caption's words (wordGap), unclaimed or the
// field's own other spellings, and
// printed at its size (within a third), at most six of them.
func (ly *layout) captionStart(h labelHit) int {
	if len(h.words) == 0 {
		return h.box.Min.X
	}
	prev := ly.prev
	x, cur := h.box.Min.X, h.words[0]
	for n := 0; n < 6; n++ {
		p, ok := prev[cur]
		if owner, claimed := ly.claimed[p]; !ok || claimed && owner != h.field {
			break
		}
		if !sizeWithin(ly.pg.words[p].box.Dy(), h.box.Dy()) {
			break
		}
		x, cur = ly.pg.words[p].box.Min.X, p
	}
	return x
}

// blindRank puts the places a caption points to with no word of the
// page reading after every run of words found for the field.
const blindRank = 1000

// blindCandidates are the places a caption points to when no word of
// the page reading is there: the line below it (from half a caption
// height left of it, as wide as the value's zone or, without one, a
// quarter of the side) and the rest of its own line, each ending at the
// first caption of another field. A value printed under a caption stands
// within two of its heights of it, at up to twice its size.
func (ly *layout) blindCandidates(f idv.FieldDef, h labelHit) []candidate {
	hl := max(h.box.Dy(), 1)
	width := ly.pg.w / 4
	if f.HasZone() {
		width = max(width/2, int(f.Zone.W*float64(ly.pg.w)))
	}
	var out []candidate
	clip := func(r image.Rectangle) image.Rectangle {
		// Stop at another field's caption.
		for i, w := range ly.pg.words {
			owner, ok := ly.claimed[i]
			if !ok || owner == f.Name || !w.box.Overlaps(r) {
				continue
			}
			if w.box.Min.Y >= r.Min.Y+hl/2 && w.box.Min.Y < r.Max.Y {
				r.Max.Y = w.box.Min.Y
			} else if w.box.Min.X > h.box.Max.X && w.box.Min.X < r.Max.X {
				r.Max.X = w.box.Min.X
			}
		}
		return r.Intersect(image.Rect(0, 0, ly.pg.w, ly.pg.h))
	}
	if f.Value != idv.ValueRight {
		r := clip(image.Rect(h.box.Min.X-hl/2, h.box.Max.Y, h.box.Min.X+width, h.box.Max.Y+3*hl))
		if r.Dx() >= hl && r.Dy() >= hl {
			out = append(out, candidate{box: r, score: 1, label: h.box, how: h.how()})
		}
	}
	if f.Value != idv.ValueBelow {
		r := clip(image.Rect(h.box.Max.X, h.box.Min.Y-hl/2, h.box.Max.X+width, h.box.Max.Y+hl/2))
		if r.Dx() >= hl && r.Dy() >= hl {
			out = append(out, candidate{box: r, score: 1.5, label: h.box, how: h.how()})
		}
	}
	return out
}

func (ly *layout) textOf(seg []int) string {
	parts := make([]string, len(seg))
	for i, s := range seg {
		parts[i] = ly.pg.words[s].text
	}
	return strings.Join(parts, " ")
}

// prose: most words of the text are in lower case letters only. Values
// on identity documents are printed in capitals or capitalised (Maus);
// lower case words are captions and explanations (date of birth,
// visibles selon l'angle). A word with a digit is no word of prose: it
// is a code tesseract read in lower case (VU12 read vul2, a synth flow
// card of seed 16).
func prose(t string) bool {
	n, lower := 0, 0
	for _, w := range strings.Fields(t) {
		hasUpper, hasLower := false, false
		for _, r := range w {
			hasUpper = hasUpper || unicode.IsUpper(r) || unicode.IsDigit(r)
			hasLower = hasLower || unicode.IsLower(r)
		}
		if !hasUpper && !hasLower {
			continue
		}
		n++
		if hasLower && !hasUpper {
			lower++
		}
	}
	return n > 0 && 2*lower > n
}

// inHit: word w is one of the hit's own words.
func (ly *layout) inHit(w int, h labelHit) bool {
	for _, x := range h.words {
		if x == w {
			return true
		}
	}
	return false
}

// lineBelow is the unclaimed run just under seg, starting under it: the
// next line of a multi-line value.
func (ly *layout) lineBelow(seg []int) []int {
	if len(seg) == 0 {
		return nil
	}
	var b image.Rectangle
	for _, s := range seg {
		b = b.Union(ly.pg.words[s].box)
	}
	best, bestDY := -1, math.MaxInt
	for i, w := range ly.pg.words {
		dy := w.box.Min.Y - b.Max.Y
		if ly.isClaimed(i) || dy < -b.Dy()/3 || float64(dy) > 1.2*float64(b.Dy()) || w.box.Max.X < b.Min.X || w.box.Min.X > b.Max.X {
			continue
		}
		if dy < bestDY {
			best, bestDY = i, dy
		}
	}
	if best < 0 {
		return nil
	}
	return ly.segment(best)
}

func (ly *layout) makeCandidate(f idv.FieldDef, seg []int, dist float64) candidate {
	c := candidate{words: seg, score: dist}
	var parts []string
	codes := ly.codeList(f)
	for _, s := range seg {
		w := ly.pg.words[s]
		c.box = c.box.Union(w.box)
		if codes && w.spaced != "" {
			parts = append(parts, w.spaced)
		} else {
			parts = append(parts, w.text)
		}
		c.conf += w.conf
	}
	if len(seg) > 0 {
		c.conf /= float64(len(seg))
	}
	c.text = strings.Join(parts, " ")
	if f.HasZone() && !c.box.Empty() {
		// The zone prior: a value far from where the definition draws it
		// ranks after a nearer one, one caption height per 10 % of the card.
		// Across, it is measured from the zone's left edge, where a value
		// starts: a zone is drawn as wide as the longest value, and a
		// short one (TUMWINE) starts at its left, not at its middle,
		// where artwork read as letters may lie. Standing outside the
		// zone counts four times more than where in it (a date beside a
		// country's zone starts as near its left edge as the country
		// printed in it: 04 DEC 1966 and RSA).
		zx, zy := f.Zone.X*float64(ly.pg.w), (f.Zone.Y+f.Zone.H/2)*float64(ly.pg.h)
		cx, cy := float64(c.box.Min.X), float64(c.box.Min.Y+c.box.Max.Y)/2
		out := math.Max(0, cx-(f.Zone.X+f.Zone.W)*float64(ly.pg.w)) + math.Max(0, zx-cx)
		c.score += math.Hypot((out+math.Abs(cx-zx)/4)/float64(ly.pg.w), (cy-zy)/float64(ly.pg.h)) / 0.1
	}
	return c
}

// codeList: f's values are lists of short codes set a space apart (a
// licence's classes, B CM): its pattern takes two letters a space apart
// and keeps the space, and refuses six letters as one word, which any
// name or place takes.
// Its words are read as their glyphs stand (word.spaced).
func (ly *layout) codeList(f idv.FieldDef) bool {
	// The side's fields are looked up (newLayout fills ly.codes before the
	// fields are located, in parallel); any other is worked out.
	if v, ok := ly.codes[f.Name]; ok {
		return v
	}
	return codeList(f)
}

func codeList(f idv.FieldDef) bool {
	v, pair := Normalize(f, "A B")
	pair = pair && strings.Contains(v, " ") // not a code whose spaces are dropped (a nationality)
	_, long := Normalize(f, "ABCDEF")
	return pair && !long
}

// fits returns the longest run of the candidate's words whose text is a
// valid value of f (a stray mark before a value, or the next field's
// value set close after it, is left out), with its normalised value;
// of runs as long, the first, or for a candidate of the region prior the
// one nearest the zone. The run is trimmed to the words its value needs.
func (ly *layout) fits(f idv.FieldDef, c candidate) (candidate, string, bool) {
	n := len(c.words)
	for size := n; size >= 1; size-- {
		var best candidate
		var bestV string
		bestD := math.Inf(1)
		for s := 0; s+size <= n; s++ {
			if ly.captionPiece(ly.pg.words[c.words[s]].text) || foreignEnd(f, ly.pg.words[c.words[s]].text) ||
				foreignEnd(f, ly.pg.words[c.words[s+size-1]].text) || ly.foreignInside(f, c.words[s:s+size]) {
				continue
			}
			sub := ly.makeCandidate(f, c.words[s:s+size], 0)
			d := sub.score
			sub.score, sub.label, sub.how = c.score, c.label, c.how
			v, ok := Normalize(f, sub.text)
			if !ok || dropped(f, sub.text) {
				continue
			}
			if c.how != "region" {
				return ly.trimRun(f, sub, v), v, true
			}
			// Found by the region prior, a line may run through other
			// fields' print (04 DEC 1966, its garbled caption, RSA): of
			// the runs that fit, the one nearest the zone.
			if d < bestD {
				best, bestV, bestD = sub, v, d
			}
		}
		if bestD < math.Inf(1) {
			return ly.trimRun(f, best, bestV), bestV, true
		}
	}
	return c, "", false
}

// trimRun leaves out the words at either end of a run that its value
// does not need: a date read out of a line that runs on through the next
// caption and value (04 DEC 1966 Country of Birth RSA) is the date's
// words only, so its box is not taken for the print of the fields beside
// it (oneOwner).
func (ly *layout) trimRun(f idv.FieldDef, c candidate, v string) candidate {
	same := func(ws []int) bool {
		if len(ws) == 0 {
			return false
		}
		u, ok := Normalize(f, ly.textOf(ws))
		return ok && u == v
	}
	ws := c.words
	for len(ws) > 1 && same(ws[:len(ws)-1]) {
		ws = ws[:len(ws)-1]
	}
	for len(ws) > 1 && same(ws[1:]) {
		ws = ws[1:]
	}
	if len(ws) == len(c.words) {
		return c
	}
	out := ly.makeCandidate(f, ws, 0)
	out.score, out.label, out.how = c.score, c.label, c.how
	return out
}

// foreignInside: a word inside the run, of letters or digits, has no
// character of the field's set: it is other print the run went on into
// (22 of the date of issue after Government Of Kenya, an authority's
// value, whose set's filter made GOVERNMENT OF KENYA MAY).
func (ly *layout) foreignInside(f idv.FieldDef, ws []int) bool {
	for _, w := range ws {
		t := ly.pg.words[w].text
		if hasAlnum(t) && foreignEnd(f, t) {
			return true
		}
	}
	return false
}

// foreignEnd: the word has no character of the field's set (1966 for a
// country's letters): a run that starts or ends with it is not the
// value, which the run without it may be (the set's filter would have
// made DEC of 04 DEC 1966).
func foreignEnd(f idv.FieldDef, w string) bool {
	cs := charsetOf(f)
	return cs != "" && !strings.ContainsAny(strings.ToUpper(w), cs)
}

// captionPiece: a word is part of one of the side's captions, as the
// end of a caption the page reading split reads (ICTOF of DISTRICT OF
// BIRTH, NAMES of FULL NAMES): a run starting with it is the caption's
// tail, not a value. Only a piece after a caption's start: one that
// starts a caption (PASSPORT of PASSPORT NO) also starts values
// (PASSPORT OFFICE, the ICAO specimen's authority). Four letters at
// least, no digits: shorter pieces (the T of DISTRICT, ALI in
// NATIONALITY) are also initials and names.
func (ly *layout) captionPiece(text string) bool {
	if strings.ContainsAny(text, "0123456789") {
		return false
	}
	k := docdefs.LabelKey(text)
	if len(k) < 4 {
		return false
	}
	for _, c := range ly.captionKeys {
		if len(c) > 1 && strings.Contains(c[1:], k) {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// levenshtein is the edit distance between two strings of bytes.
func levenshtein(a, b string) int {
	row := editRow(a, b, false)
	return row[len(b)]
}

// editRow is the last row of the edit-distance table of a against b:
// entry j is the distance from a to b[:j], or, with anyStart, to the
// best stretch of b ending at j.
func editRow(a, b string, anyStart bool) []int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	if !anyStart {
		for j := range prev {
			prev[j] = j
		}
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev
}

// captionFragment: the text, letters only, is a stretch of one of the
// side's captions, exactly (A LA UKOO of JINA LA UKOO) or, from eight
// letters, with at most one wrong letter in five (URNAMENOMA): a caption the page reading cut,
// found below or beside the caption's other language. Four letters at
// least: shorter stretches are also initials and names (ALI in
// NATIONALITY). A value word that happens to lie inside a caption is
// not lost by this: the test is on the whole run, and a run of a value
// holds more than one caption's stretch only by chance.
func (ly *layout) captionFragment(text string) bool {
	if strings.ContainsAny(text, "0123456789") {
		return false
	}
	k := docdefs.LabelKey(text)
	if len(k) < 4 {
		return false
	}
	// Misread letters are forgiven only in long runs: against the generic
	// definitions' captions in twenty-odd languages a short name is one
	// edit from some stretch (ERIKA from ERIA of SERIA I NUMER
	// PASZPORTU, on the German specimen), so under eight letters the
	// stretch must match exactly.
	allow := 0
	if len(k) >= 8 {
		allow = labelAllowance(len(k))
	}
	for _, c := range ly.captionKeys {
		if len(c) >= len(k) && infixDistance(k, c) <= allow {
			return true
		}
	}
	return false
}

// captionLike: the text is caption print, not a value (captionWords,
// captionFragment).
func (ly *layout) captionLike(text string) bool {
	return ly.captionWords(text) || ly.captionFragment(text)
}

// captionRun: the candidate's text is caption-like and it is not printed
// at a value's size (valuePrint): ID of a document type, right of Type:,
// is a word of the caption ID No. of the same card, but printed twice the
// height of its captions (a synth columns card of seed 16).
func (ly *layout) captionRun(c candidate) bool {
	return ly.captionLike(c.text) && !ly.valuePrint(c)
}

// valuePrint: every word of the candidate is printed at least 1.5 times
// as tall as the side's captions (three found at least). Captions are
// printed at 0.4 to 0.65 of their values on the synth corpus and the
// specimens looked at (largestPrint), so this is a value's size.
func (ly *layout) valuePrint(c candidate) bool {
	if ly.captionH == 0 || len(c.words) == 0 {
		return false
	}
	for _, w := range c.words {
		if 2*ly.pg.words[w].box.Dy() < 3*ly.captionH {
			return false
		}
	}
	return true
}

// infixDistance is the least edit distance between a and any stretch of
// b.
func infixDistance(a, b string) int {
	best := len(a)
	for _, v := range editRow(a, b, true) {
		best = min(best, v)
	}
	return best
}

// looseCaptions finds the captions of fields the page reading garbled
// past the allowance (GATE OF BATH for DATE OF BIRTH, SURE for SURNAME on
// a soft capture), by where they stand and by which caption they are
// nearest. A run of unclaimed words without digits that sits right over,
// or just left of, print at least as large (a value) is a caption when it
// is within 45 % of the letters of some caption of a field of the side
// whose caption was not found, and clearly nearer that field's spellings
// than any other field's: nearer by 15 % of the letters and more. Each
// such field takes its nearest run. The 45 % and 15 % were chosen on
// synth tuning families (seed 12) and the HTML dev style; a caption of
// another document does not sit over a value of this one's pattern often
// enough to matter, and its value must still fit the field.
func (ly *layout) looseCaptions(d *idv.DocumentDefinition, side string, keys []string) {
	type spell struct {
		field string
		key   string
	}
	var spells []spell
	missing := map[string]bool{}
	for _, f := range d.Fields {
		if f.Zone.Side != side || f.Fixed != "" || len(f.AllLabels()) == 0 {
			continue
		}
		if len(ly.hits[f.Name]) == 0 {
			missing[f.Name] = true
		}
		for _, l := range docdefs.Spellings(f) {
			if k := docdefs.LabelKey(l); len(k) >= 3 {
				spells = append(spells, spell{f.Name, k})
			}
		}
	}
	if len(missing) == 0 {
		return
	}
	type cand struct {
		field string
		words []int
		dist  float64
	}
	var cands []cand
	pg := ly.pg
	for i := range pg.words {
		if keys[i] == "" || ly.isClaimed(i) {
			continue
		}
		acc, idx := "", []int{}
		var box image.Rectangle
		for j := i; j >= 0 && len(idx) < 5; j = ly.next[j] {
			if ly.isClaimed(j) || strings.ContainsAny(pg.words[j].text, "0123456789") {
				break
			}
			acc += keys[j]
			idx = append(idx, j)
			box = box.Union(pg.words[j].box)
			if len(acc) < 3 || !ly.aboveValue(idx, box) && !ly.leftOfValue(idx, box) {
				continue
			}
			// The whole run of caption print, not a piece of a longer
			// caption of another field (Mahali pa of Mahali pa Kuzaliwa,
			// place of birth in Kiswahili, is not Mamlaka, authority).
			if n := ly.next[j]; n >= 0 && !ly.isClaimed(n) && !strings.ContainsAny(pg.words[n].text, "0123456789") &&
				10*pg.words[n].box.Dy() < 13*box.Dy() {
				continue
			}
			if p, ok := ly.prev[i]; ok && !ly.isClaimed(p) && !strings.ContainsAny(pg.words[p].text, "0123456789") &&
				10*pg.words[p].box.Dy() < 13*box.Dy() {
				continue
			}
			best, second, bestField := math.Inf(1), math.Inf(1), ""
			perField := map[string]float64{}
			for _, sp := range spells {
				if abs(len(acc)-len(sp.key)) > max(2, len(sp.key)/3) {
					continue
				}
				dd := float64(levenshtein(acc, sp.key)) / float64(len(sp.key))
				if v, ok := perField[sp.field]; !ok || dd < v {
					perField[sp.field] = dd
				}
			}
			for f, dd := range perField {
				switch {
				case dd < best:
					second, best, bestField = best, dd, f
				case dd < second:
					second = dd
				}
			}
			// A generic definition's several hundred spellings hold a
			// near miss for much of any print (the Slovenian back's
			// garbled NOMEN near NOMES): only long captions, closely.
			limit := 0.45
			if ly.generic {
				limit = 0.3
				if len(acc) < 8 {
					continue
				}
			}
			// The print may be the rest of another field's caption whose
			// first letters were lost (t Name of First Name, TNAME, three
			// edits from LAST NAME and whole inside FIRST NAMES): a reading
			// found as closely inside another field's longer spelling is
			// no field's.
			if bestField == "" || !missing[bestField] || best > limit || second-best < 0.15 {
				continue
			}
			piece := false
			for _, sp := range spells {
				if sp.field != bestField && len(sp.key) > len(acc) && float64(infixDistance(acc, sp.key)) <= best*float64(len(acc)) {
					piece = true
					break
				}
			}
			if !piece {
				cands = append(cands, cand{bestField, append([]int(nil), idx...), best})
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].dist < cands[b].dist })
	for _, c := range cands {
		if !missing[c.field] {
			continue
		}
		free := true
		for _, w := range c.words {
			if ly.isClaimed(w) {
				free = false
			}
		}
		if !free {
			continue
		}
		h := labelHit{field: c.field, words: c.words, key: "", dist: 99, loose: true}
		for _, w := range c.words {
			ly.claimed[w] = c.field
			h.box = h.box.Union(pg.words[w].box)
		}
		ly.hits[c.field] = append(ly.hits[c.field], h)
		ly.loose++
		delete(missing, c.field)
	}
}

// leftOfValue: the words idx (boxed in box) stand left of print at least
// as large on their line (a caption with its value to the right): the
// nearest word right of them on the line, within a third of the side's
// width (the value column of a caption-and-value table stands apart), is
// no caption and no smaller.
func (ly *layout) leftOfValue(idx []int, box image.Rectangle) bool {
	best, bestX := -1, math.MaxInt
	for i, w := range ly.pg.words {
		if slices.Contains(idx, i) || w.box.Min.X < box.Max.X || !sameLine(box, w.box) {
			continue
		}
		if g := w.box.Min.X - box.Max.X; g < bestX && 3*g <= ly.pg.w {
			best, bestX = i, g
		}
	}
	if best < 0 || ly.isClaimed(best) {
		return false
	}
	o := ly.pg.words[best]
	return 10*o.box.Dy() >= 9*box.Dy() && o.conf >= 50
}

// aboveValue: right under the words idx (boxed in box), starting no
// further left than a glyph before them and no further right than their
// end, lies print taller than theirs (a caption over its value).
func (ly *layout) aboveValue(idx []int, box image.Rectangle) bool {
	var hs []int
	for _, w := range idx {
		hs = append(hs, ly.pg.words[w].box.Dy())
	}
	slices.Sort(hs)
	h := hs[len(hs)/2]
	for i, w := range ly.pg.words {
		b := w.box
		if slices.Contains(idx, i) || ly.isClaimed(i) || b.Min.Y < box.Max.Y-h/2 || b.Min.Y-box.Max.Y > 3*b.Dy()/2 {
			continue
		}
		if b.Max.X < box.Min.X-h || b.Min.X > box.Max.X {
			continue
		}
		if 10*b.Dy() >= 11*h && b.Dy() <= 4*h && w.conf >= 50 {
			return true
		}
	}
	return false
}

// columnCut ends a run of words found under caption h where the next
// column begins: at the first word that starts under or past the start
// of another field's caption printed on h's line to its right (KENJI
// MICHAEL, then UTO under Nationality in a two-column layout, read as one
// line). The run's words left of i, where it began, stay.
func (ly *layout) columnCut(seg []int, h labelHit) []int {
	edge := math.MaxInt
	for f, hs := range ly.hits {
		if f == h.field {
			continue
		}
		for _, o := range hs {
			if sameLine(h.box, o.box) && o.box.Min.X > h.box.Max.X {
				edge = min(edge, ly.captionStart(o))
			}
		}
	}
	if edge == math.MaxInt {
		return seg
	}
	slack := h.box.Dy() / 2
	for k, w := range seg {
		if k > 0 && ly.pg.words[w].box.Min.X >= edge-slack {
			return seg[:k]
		}
	}
	return seg
}
