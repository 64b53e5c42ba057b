package ocr

import (
	"context"
	"fmt"
	"image"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/checks/internal/mrzdata"
	"github.com/tambua/tambua/idv"
	mrzpkg "github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

// zoneHeight is the height, in pixels, a value zone is scaled to before
// tesseract reads it: glyphs then stand about 30 px tall, where its LSTM
// model is most accurate.
const zoneHeight = 64

// uprightDoubt is the layout margin below which the half-turned card is
// read as well and the better reading kept.
const uprightDoubt = 0.35

// pageTrust is the mean word confidence of the page reading at and above
// which a valid value is taken without reading its box again: the box
// reading costs about 20 ms a field. Chosen on the base synth corpus
// (seed 1): page words read at 93 or more were the box reading's value
// in all but a few fields.
var pageTrust = 93.0

// pageFallback is the mean word confidence a page reading needs to be
// kept when the precise reading of its box did not validate: the two
// readings disagree, so only a confident page reading stands. Values on
// the synth cards read at 90 and more in the page; on the Luxembourg
// specimen a caption's fragments (N° of "N° du passeport") read at 67
// passed minConfidence and were presented as the issuing state.
const pageFallback = 80.0

// precise: fields whose page reading is not trusted alone. Codes mixing
// letters and digits are where the free page reading confuses O and 0,
// I and 1, which the field's character set and pattern settle.
func precise(f idv.FieldDef) bool {
	return f.Type == idv.FieldNumber || f.Type == idv.FieldText && strings.ContainsAny(f.Charset, "0123456789")
}

// minConfidence is the mean word confidence (0..100) below which a read
// value is discarded. Clean print reads at 85 to 96; noise that passes a
// free-text pattern reads well under 50.
const minConfidence = 55

// blindConf is the confidence a reading of a place with no word of the
// page reading needs (blindCandidates): on tuning seed 12 (columns, base,
// flow, type; easy and medium) such reads that were values read 82 and
// more, nearly all 99 or 100; artwork under a caption read as A TS, 56.
const blindConf = 75

// mrzLikeness (0..1) is how much text looks like the MRZ of d: the right
// number of lines of about the right length, with fillers.
func mrzLikeness(text string, d *idv.DocumentDefinition) float64 {
	// The format's own shape: a visa's MRV-B is 2 x 36 like TD2.
	want, width, ok := mrzpkg.Shape(d.MRZ.Format)
	if !ok {
		want, width = 2, 44
	}
	lines := strings.Fields(text)
	good := 0
	for _, l := range lines {
		if len(l) >= width-4 && len(l) <= width+2 && strings.Contains(l, "<") {
			good++
		}
	}
	if good > want {
		good = want
	}
	return float64(good) / float64(want)
}

type fieldRead struct {
	// box is where the value was found on the rectified side (empty when
	// read from its zone).
	box   image.Rectangle
	label image.Rectangle
	how   string // label, region or zone
	raw   string
	value string
	valid bool
	conf  float64
}

// extractAs reads the captures as definition d, front already rectified.
func (k *Check) extractAs(ctx context.Context, d *idv.DocumentDefinition, front *vision.Card, backImg image.Image, mrz *idv.MRZData, now time.Time) (*Extraction, error) {
	ex := &Extraction{Definition: d, Fields: map[string]string{}, Raw: map[string]string{},
		Cards: map[string]*vision.Card{}, Capture: map[string]vision.Quality{},
		Located: map[string]Located{}, Words: map[string][]Word{}}
	cards := map[string]*vision.Card{"front": front}
	if d.HasSide("back") && backImg != nil {
		bc, err := rectifyBack(backImg, d)
		if err != nil {
			ex.Reasons = appendUnique(ex.Reasons, "back_"+reasonFor(err))
		} else {
			cards["back"] = bc
		}
	}
	reads := map[string]fieldRead{}
	lys := map[string]*layout{} // the reading of each side whose reads were taken
	// Sides in a fixed order, the MRZ's side first: a generic layout looks
	// for the MRZ on the other side only when its own side has none.
	sides := sideOrder(d, cards)
	mrzSide, mrzLike := "", 0.0
	if d.MRZ != nil {
		mrzSide = d.MRZ.Zone.Side
	}
	var unmatched, foreign []string
	// captioned holds, per side that did not read as its layout, the
	// values found next to their captions: for a generic definition these
	// are the issuer's print, read where it is, whatever the ICAO order.
	captioned := map[string]map[string]fieldRead{}
	// dated holds, per such side, the dates given out by their order
	// (datesByOrder): kept only where the trusted MRZ confirms the order.
	dated := map[string]map[string]fieldRead{}
	vouched := false
	shows := map[string]bool{} // the side shows half its captions or more
	// unmatchedLys are the layouts of the sides that did not read as their
	// definition: on a generic definition with a trusted MRZ, the MRZ's
	// names are looked for in their print there too (locatedByMRZ).
	unmatchedLys := map[string]*layout{}
	// A side read before the side that vouched for the document, that
	// neither showed its captions nor was known, is read again once
	// vouched for (a front whose faint captions were all lost, before a
	// back that shows its own): its zones, shapes and columns then count.
	var pending []string
	for round, todo := 0, sides; len(todo) > 0; round, todo = round+1, pending {
		pending = nil
		for _, side := range todo {
			if round > 0 {
				unmatched = slices.DeleteFunc(unmatched, func(s string) bool { return s == side })
				foreign = slices.DeleteFunc(foreign, func(s string) bool { return s == side })
				delete(captioned, side)
				delete(dated, side)
			}
			card := cards[side]
			settled := card.UprightMargin >= uprightDoubt
			mrzSettled := false
			var band *mrzBand
			// A generic layout does not know which side an issuer prints its
			// MRZ on (a TD1 card's back sent alone, a card with the MRZ on
			// its front): the other side is searched when the named one gave
			// no MRZ-shaped text.
			if d.MRZ != nil && (side == mrzSide || (d.Generic() && mrzLike < 0.5)) {
				// The MRZ is the strongest evidence of which way up a card
				// is: read the way up that makes it look like an MRZ.
				t0, b0, err := k.readMRZ(ctx, d, card)
				if err != nil {
					return nil, err
				}
				s0 := mrzLikeness(t0, d)
				if s0 < 1 {
					turned := card.Turn()
					t1, b1, err := k.readMRZ(ctx, d, turned)
					if err != nil {
						return nil, err
					}
					if s1 := mrzLikeness(t1, d); s1 > s0 {
						card, t0, s0, b0 = turned, t1, s1, b1
					}
				}
				if s0 >= 0.5 {
					settled, mrzSettled = true, true
					band = b0
				}
				if ex.MRZText == "" || s0 > mrzLike {
					ex.MRZText, mrzLike = t0, s0
				}
			}
			if mrzLike >= 0.5 {
				// An MRZ of the definition's shape was read: this is the
				// document, whatever its captions show.
				vouched = true
			}
			var st *sideText
			if band != nil && k.labels {
				// The MRZ's lines are taken as the template reader read
				// them, not read again by tesseract (mrzBand).
				st = &sideText{card: card, grey: pageGrey(card.Image), mrz: band}
			}
			if !mrzSettled && k.labels {
				// Without an MRZ the print itself says which way up the side
				// is; the layout prior (vision.Upright) only when it cannot.
				st = textOf(card)
				turn, sure, err := k.tess().textUpright(ctx, st)
				if err != nil {
					return nil, err
				}
				if sure {
					if turn {
						card = card.Turn()
					}
					settled = true
				}
			}
			ly, err := k.pageOf(ctx, d, side, card, st)
			if err != nil {
				return nil, err
			}
			ly.vouched = vouched
			var rs map[string]fieldRead
			// A page that shows at least half its captions upright is
			// upright: the same print read upside down gives tesseract no
			// word of a caption. Only a page that does not say so is read
			// the other way up too (a page reading is most of a side's cost).
			if !settled && ly.confirmed() {
				settled = true
			}
			if !settled {
				// The layout did not settle which way up the card is: let the
				// text decide, first by the captions found each way up, and
				// when they do not tell, by the fields read.
				turned := card.Turn()
				lt, err := k.pageOf(ctx, d, side, turned, nil)
				if err != nil {
					return nil, err
				}
				lt.vouched = vouched
				switch a, b := ly.captions(), lt.captions(); {
				case b > a:
					card, ly = turned, lt
				case a == b:
					rt, err := k.readFields(ctx, d, side, turned, lt)
					if err != nil {
						return nil, err
					}
					if rs, err = k.readFields(ctx, d, side, card, ly); err != nil {
						return nil, err
					}
					if sideScore(rt) > sideScore(rs) {
						rs, card, ly = rt, turned, lt
					}
				}
			}
			if rs == nil {
				if rs, err = k.readFields(ctx, d, side, card, ly); err != nil {
					return nil, err
				}
			}
			dropUnlikely(d, rs)
			if ly.known() {
				datesByOrder(d, side, ly, rs)
				if !d.Generic() {
					byPattern(d, side, ly, rs)
					byStack(d, side, ly, rs)
					byRow(d, side, ly, rs)
					byLone(d, side, ly, rs)
					byOrder(d, side, ly, rs)
				}
			}
			oneOwner(rs)
			if d.Generic() {
				genericChecks(d, ly, rs)
				if err := k.genericOrder(ctx, d, card, ly, rs); err != nil {
					return nil, err
				}
				if err := k.genericPlaces(ctx, d, card, ly, rs); err != nil {
					return nil, err
				}
			}
			openZeros(d, ly, rs)
			pg := ly.pg
			// A side that shows its captions or titles identifies the
			// document for the sides read after it (a card's back often
			// prints only values and faint captions).
			vouched = vouched || ly.confirmed() || ly.titled(rs) && sideCredible(rs)
			shows[side] = ly.confirmed()
			cards[side] = card
			ex.Words[side] = pg.export()
			for n, r := range rs {
				ex.Located[n] = r.located(side, pg)
			}
			if !sideCredible(rs) {
				// Most of the side did not read as its definition says: the
				// outline or the orientation is wrong, or this is another
				// document. Whatever did fit a pattern there is chance, not a
				// reading, and is not presented.
				unmatched = append(unmatched, side)
				unmatchedLys[side] = ly
				for n, r := range rs {
					if r.valid && (r.how == "label" || r.how == "order") {
						if captioned[side] == nil {
							captioned[side] = map[string]fieldRead{}
						}
						captioned[side][n] = r
					}
					if r.valid && r.how == "chronology" {
						if dated[side] == nil {
							dated[side] = map[string]fieldRead{}
						}
						dated[side][n] = r
					}
				}
				if ly.foreign() {
					foreign = append(foreign, side)
				}
				if round == 0 && !ly.known() {
					pending = append(pending, side)
				}
				continue
			}
			for n, r := range rs {
				reads[n] = r
			}
			lys[side] = ly
		}
		if !vouched {
			pending = nil
		}
	}
	ex.Cards = cards
	if ex.MRZText != "" {
		// ocr_extraction runs before mrz_parsing: parse what was read here
		// so the printed fields can be held against it now.
		if m, err := mrzpkg.ParseText(ex.MRZText, mrzpkg.Options{Now: now, Repair: true}); err == nil {
			ex.MRZ = mrzdata.From(m)
			ex.mrzMatch = mrzOfDefinition(d, ex.MRZ)
		}
	}
	if mrz == nil {
		mrz = ex.MRZ
	}
	otherDoc := otherDocument(d, ex.MRZ)
	for _, side := range unmatched {
		if !otherDoc && keepsUnmatched(d, side, mrz, ex.mrzMatch) {
			// What was read next to its captions is kept (and held
			// against the MRZ below), and the dates given out by an order
			// the MRZ confirms; the other MRZ-backed fields come from the
			// trusted MRZ.
			for n, r := range captioned[side] {
				reads[n] = r
			}
			if orderConfirmed(d, mrz, dated[side]) {
				for n, r := range dated[side] {
					if _, ok := reads[n]; !ok {
						reads[n] = r
					}
				}
			}
			if d.Generic() {
				// An issuer's layout that is not the ICAO order still
				// prints the names the MRZ carries: locatedByMRZ may find
				// their print on this side.
				lys[side] = unmatchedLys[side]
			}
			switch {
			case !d.Generic():
				ex.Reasons = appendUnique(ex.Reasons, side+"_unreadable")
			case len(captioned[side]) == 0:
				ex.Reasons = appendUnique(ex.Reasons, side+"_layout_unmatched")
			}
			continue
		}
		if d.Generic() && !otherDoc && shows[side] && len(captioned[side]) > 0 {
			// No trusted MRZ, but the side shows the captions of most of
			// its fields: the values found next to them are the print's
			// (genericUnvouched, generic.go).
			genericUnvouched(reads, captioned[side])
			ex.Reasons = appendUnique(ex.Reasons, side+"_layout_unmatched")
			continue
		}
		ex.Reasons = appendUnique(ex.Reasons, side+"_unreadable")
	}
	if otherDoc {
		// The card's own MRZ, every check digit passing, says it is a
		// document of another format (an MRV-A visa read as a passport or
		// a card): none of its print is this definition's fields.
		for _, side := range sides {
			ex.Reasons = appendUnique(ex.Reasons, side+"_unreadable")
		}
		reads = map[string]fieldRead{}
		ex.Reasons = appendUnique(ex.Reasons, vision.ReasonWrongDocument)
	}
	if len(foreign) > 0 && len(foreign) == len(unmatched) && !ex.mrzMatch {
		// Text was read, but none of it is this document's: no caption,
		// no title. A card of another type, not a poor capture of this one.
		ex.Reasons = appendUnique(ex.Reasons, vision.ReasonWrongDocument)
	}
	if !otherDoc && mrzTrusted(d, mrz) {
		for _, n := range locatedByMRZ(d, mrz, lys, reads) {
			f, _ := d.Field(n)
			ex.Located[n] = reads[n].located(f.Zone.Side, lys[f.Zone.Side].pg)
		}
	}
	for _, side := range sides {
		q := vision.Measure(cards[side], d, side)
		ex.Capture[side] = q
		ex.Reasons = appendUnique(ex.Reasons, q.Reasons...)
	}
	var confSum float64
	var nConf int
	var read, total int
	for _, f := range d.Fields {
		if f.Fixed != "" {
			ex.Fields[f.Name] = f.Fixed
			continue
		}
		total++
		r := reads[f.Name]
		ex.Raw[f.Name] = r.raw
		if r.valid {
			ex.Fields[f.Name] = r.value
			read++
			confSum += r.conf
			nConf++
		} else {
			ex.Fields[f.Name] = ""
		}
	}
	if nConf > 0 {
		ex.conf = confSum / float64(nConf) / 100
	}
	crossCheck(ex, d, mrz)
	for _, f := range d.Fields {
		if f.Fixed == "" && ex.Fields[f.Name] == "" {
			ex.Quality.Unread = append(ex.Quality.Unread, f.Name)
		}
	}
	read = total - len(ex.Quality.Unread)
	if total > 0 {
		ex.Quality.Coverage = float64(read) / float64(total)
	} else {
		ex.Quality.Coverage = 1
	}
	agree := ex.Quality.Agreement
	if mrz == nil {
		agree = ex.Quality.Coverage
		ex.noMRZ = true
	}
	ex.Quality.Score = round3(0.6*ex.Quality.Coverage + 0.25*agree + 0.15*ex.conf)
	ex.Quality.Coverage = round3(ex.Quality.Coverage)
	ex.Quality.Agreement = round3(ex.Quality.Agreement)
	if ex.Quality.Conflicts == nil {
		ex.Quality.Conflicts = []string{}
	}
	if ex.Quality.Unread == nil {
		ex.Quality.Unread = []string{}
	}
	return ex, nil
}

// sideOrder lists the captured sides, the MRZ's side first.
func sideOrder(d *idv.DocumentDefinition, cards map[string]*vision.Card) []string {
	var out []string
	if d.MRZ != nil && cards[d.MRZ.Zone.Side] != nil {
		out = append(out, d.MRZ.Zone.Side)
	}
	for _, s := range []string{"front", "back"} {
		if cards[s] != nil && (len(out) == 0 || out[0] != s) {
			out = append(out, s)
		}
	}
	return out
}

// mrzOfDefinition: the MRZ is of d's format and, for an issuer's layout,
// of its document code. A generic layout takes any code of its format
// (TD1 cards are I, ID, IR, AC, C1...).
func mrzOfDefinition(d *idv.DocumentDefinition, m *idv.MRZData) bool {
	if d.MRZ == nil || m == nil || m.Format != d.MRZ.Format {
		return false
	}
	return d.Generic() || strings.HasPrefix(m.DocumentCode, d.MRZ.DocumentCode[:1])
}

// otherDocument: the MRZ read on the card passes every check digit and is
// of another format than d's: the card is another kind of document.
func otherDocument(d *idv.DocumentDefinition, m *idv.MRZData) bool {
	return d.MRZ != nil && m != nil && m.AllChecksPass && m.Format != d.MRZ.Format
}

// mrzTrusted: every check digit of the MRZ passes and it is of d's
// format. An MRZ of another format (a visa's MRV-A read as a passport)
// belongs to another document and settles none of d's fields.
func mrzTrusted(d *idv.DocumentDefinition, m *idv.MRZData) bool {
	return m != nil && m.AllChecksPass && d.MRZ != nil && m.Format == d.MRZ.Format
}

// orderConfirmed: the dates a side gave out by their order include one
// the MRZ carries (birth, expiry), and every such date is the MRZ's. The
// order that put those where the MRZ says is then the print's, and the
// date it gave the field the MRZ lacks (the date of issue) is read, even
// where the side's captions were too blurred to read.
func orderConfirmed(d *idv.DocumentDefinition, m *idv.MRZData, rs map[string]fieldRead) bool {
	n := 0
	for _, f := range d.Fields {
		r, ok := rs[f.Name]
		if !ok || f.MRZ == "" {
			continue
		}
		if r.value != MRZValue(m, f.MRZ) {
			return false
		}
		n++
	}
	return n > 0 && n < len(rs)
}

func round3(v float64) float64 { return float64(int(v*1000+0.5)) / 1000 }

// keepsUnmatched: a side that did not read as its definition's layout
// still gives what was read next to its captions and the dates the MRZ
// confirms when the MRZ is trusted and either the definition is generic
// (the print of an unknown issuer is not where the generic zones are,
// which says nothing against the document) or the side carries that MRZ,
// of the definition's own document: it is that document, read the right
// way up, however little of its print read (a Kenyan passport page of the
// HTML dev2 style whose captions were too faint to read, its date of
// issue given out by the order of its dates).
func keepsUnmatched(d *idv.DocumentDefinition, side string, mrz *idv.MRZData, mrzMatch bool) bool {
	if !mrzTrusted(d, mrz) {
		return false
	}
	return d.Generic() || mrzMatch && d.MRZ.Zone.Side == side
}

// wellRead: all the side's fields but one at most were read and valid,
// three at least: more than chance fitting of a page's print to a
// definition's patterns gives.
func wellRead(rs map[string]fieldRead) bool {
	n := validReads(rs)
	return n >= 3 && n+1 >= len(rs)
}

// validReads counts the valid reads of rs.
func validReads(rs map[string]fieldRead) int {
	n := 0
	for _, r := range rs {
		if r.valid {
			n++
		}
	}
	return n
}

// sideCredible: at least half the side's fields were read and valid.
func sideCredible(rs map[string]fieldRead) bool {
	if len(rs) == 0 {
		return true
	}
	return 2*validReads(rs) >= len(rs)
}

func sideScore(rs map[string]fieldRead) float64 {
	s := 0.0
	for _, r := range rs {
		if r.valid {
			s += 1
		}
		s += r.conf / 1000
	}
	return s
}

// pageOf reads one side's page once (readPage) and finds each field's
// captions on it (newLayout); readFields then takes each value from the
// words next to its caption, re-read on its own with the field's
// character set (locateField), several fields at once.
//
// st is the side's grey and lines when the upright test found them for
// this card already, else nil.
func (k *Check) pageOf(ctx context.Context, d *idv.DocumentDefinition, side string, card *vision.Card, st *sideText) (*layout, error) {
	if !k.labels {
		// The zone reader reads no page: an empty one finds no caption.
		return newLayout(&page{}, d, side), nil
	}
	if st == nil || st.card != card {
		st = &sideText{card: card, grey: pageGrey(card.Image)}
	}
	var pg *page
	var err error
	if d.Generic() {
		// An unknown issuer's page: scaled up when its print is small
		// (upscale.go).
		pg, err = k.genericPage(ctx, card, st)
	} else {
		pg, err = k.tess().readText(ctx, st)
	}
	if err != nil {
		return nil, err
	}
	if err := k.tess().completeCaptions(ctx, pg, sideCaptionKeys(d, side)); err != nil {
		return nil, err
	}
	return newLayout(pg, d, side), nil
}

func (k *Check) readFields(ctx context.Context, d *idv.DocumentDefinition, side string, card *vision.Card, ly *layout) (map[string]fieldRead, error) {
	var fields []idv.FieldDef
	for _, f := range d.Fields {
		if f.Zone.Side == side && f.Fixed == "" {
			fields = append(fields, f)
		}
	}
	out := make(map[string]fieldRead, len(fields))
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, k.workers)
	var wg sync.WaitGroup
	for _, f := range fields {
		wg.Add(1)
		sem <- struct{}{}
		go func(f idv.FieldDef) {
			defer wg.Done()
			defer func() { <-sem }()
			var r fieldRead
			var err error
			if k.labels {
				r, err = k.locateField(ctx, f, card, ly)
			} else {
				r, err = k.readField(ctx, f, card)
				r.how = "zone"
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			out[f.Name] = r
		}(f)
	}
	wg.Wait()
	return out, firstErr
}

// rankCandidates orders a field's candidates by their score. For a field
// whose values are words (names, places), a lone glyph is weaker evidence
// than a word of print: it counts one caption height further (a speck
// under Names read A, nearer than TSHEPO DUMISANI beside the caption,
// on a synth columns card of seed 14). A sex's M or a type's P is a
// whole value and keeps its rank.
func rankCandidates(f idv.FieldDef, cands []candidate) []candidate {
	if wordValued(f) {
		for i := range cands {
			if alnumLen(cands[i].text) == 1 {
				cands[i].score++
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score < cands[j].score })
	return cands
}

// wordValued: f's values are words (names, places), not one letter (a
// sex's M, a passport's type P).
func wordValued(f idv.FieldDef) bool {
	_, ok := Normalize(f, "KENYA")
	return ok
}

// locateField reads f from the words found for it on the page: candidates
// in the order of their distance from the caption (and from the zone
// prior), each re-read in its own box with the field's character set;
// the first that validates, in either reading, is the value. When no
// caption of f was found, the region prior is the last resort: the zone
// is read as a crop, unless a caption of another field lies in it (its
// value would be that field's).
func (k *Check) locateField(ctx context.Context, f idv.FieldDef, card *vision.Card, ly *layout) (fieldRead, error) {
	cands := rankCandidates(f, ly.valueCandidates(f))
	var last, blind fieldRead
	var small candidate // the first run of caption-sized print found by a caption
	for _, c := range cands {
		if len(c.words) == 0 {
			// A place a caption points to where the page found no word.
			// Every such place is read, and the surer reading taken: the
			// one under a caption may hold artwork read as letters (A TS
			// at 56 under Nationality) when the value is right of it.
			r, err := k.readBox(ctx, f, card, c.box, 1)
			if err != nil {
				return fieldRead{}, err
			}
			r.box, r.label, r.how = c.box, c.label, c.how
			if r.conf < blindConf {
				r.valid, r.value = false, ""
			}
			if ly.accepts(r) {
				if !blind.valid || r.conf > blind.conf {
					blind = r
				}
				continue
			}
			if last.raw == "" {
				last = r
			}
			continue
		}
		// A caption over its value is told by the whole run's size,
		// before a garbled word boxed with artwork is picked out of it.
		over := c.how == "region" && ly.overValue(c)
		if lp := ly.largestPrint(f, c); len(lp.words) < len(c.words) {
			// The larger print is the value when it is one (RAMADHANI
			// after its garbled caption), not when it is artwork beside
			// a value (a signature's strokes after 29.01.2026).
			if _, _, ok := ly.fits(f, lp); ok {
				c = lp
			}
		}
		sub, v, ok := ly.fits(f, c)
		if !ok {
			sub = c
		}
		// Prose is told on the run that fits: a date's line may run on
		// into the next caption, garbled in lower case (05 03 2024 oxre
		// or exewy 04 03 2029).
		if over || prose(sub.text) || ly.captionRun(c) {
			continue
		}
		if ly.captionSized(f, c) {
			if small.box.Empty() && c.label != (image.Rectangle{}) {
				small = sub
			}
			continue
		}
		// The page reading may have kept only part of the value: when
		// its ink runs on past the words, the whole run is read first.
		partial := false
		if lineCount(ly, sub) == 1 {
			if grown := ly.pg.growToInk(sub.box, c.words); grown.Dx() > sub.box.Dx()+sub.box.Dy()/2 {
				partial = true
				gs := sub
				gs.box = grown
				r, err := k.readBox(ctx, f, card, ly.padded(gs), 1)
				if err != nil {
					return fieldRead{}, err
				}
				if ok {
					reconcile(&r, v)
				}
				if ly.accepts(r) {
					r.box, r.label, r.how = grown, sub.label, sub.how
					return r, nil
				}
			}
		}
		if ok && sub.conf >= pageTrust && !precise(f) && !partial && !ly.tightGap(sub) {
			return fieldRead{raw: fmt.Sprintf("%s|%.0f", sub.text, sub.conf), value: v, valid: true, conf: sub.conf,
				box: sub.box, label: sub.label, how: sub.how}, nil
		}
		r, err := k.readBox(ctx, f, card, ly.padded(sub), lineCount(ly, sub))
		if err != nil {
			return fieldRead{}, err
		}
		r.box, r.label, r.how = sub.box, sub.label, sub.how
		if ok {
			reconcile(&r, v)
		}
		if ly.accepts(r) {
			return r, nil
		}
		if ok && pageStands(f, sub.conf) {
			return fieldRead{raw: fmt.Sprintf("page %s|%.0f", sub.text, sub.conf), value: v, valid: true, conf: sub.conf,
				box: sub.box, label: sub.label, how: sub.how}, nil
		}
		last = r
	}
	if blind.valid {
		return blind, nil
	}
	if !small.box.Empty() {
		// Print of a caption's size that the page read unsurely is
		// garbled caption print as a rule, but a value set small under
		// its caption (GOVERNMENT OF KENYA in small capitals under
		// Authority/Mamlaka, read COATRAMENT OF KENYA at the page's
		// size, on a synth type card of seed 16) reads surely on its
		// own: when nothing else was found, its box is read again and
		// the reading kept only when tesseract is sure of it (sureConf)
		// and it is no caption's print.
		r, err := k.readBox(ctx, f, card, ly.padded(small), lineCount(ly, small))
		if err != nil {
			return fieldRead{}, err
		}
		if r.conf >= sureConf && ly.accepts(r) && !prose(r.raw) {
			r.box, r.label, r.how = small.box, small.label, small.how
			return r, nil
		}
	}
	if ly.regionPrior(f) && !ly.captionIn(valueZone(f.Zone)) {
		r, err := k.readField(ctx, f, card)
		z, b := valueZone(f.Zone), card.Image.Bounds()
		r.how = "zone"
		r.box = image.Rect(int(z.X*float64(b.Dx())), int(z.Y*float64(b.Dy())), int((z.X+z.W)*float64(b.Dx())), int((z.Y+z.H)*float64(b.Dy())))
		if !ly.accepts(r) {
			r.valid, r.value = false, ""
		}
		return r, err
	}
	return last, nil
}

// pageStands: a valid page reading of f at conf is kept when the box
// re-read did not validate. The two readings disagree, so it takes a
// confident page reading (pageFallback), unless the value is of a shape
// no other print takes (a polling station's code, H078759 read at 60 in
// the page and H0O78759 in its box): the shape vouches for it, and it
// needs only the confidence every value needs.
func pageStands(f idv.FieldDef, conf float64) bool {
	return conf >= pageFallback || conf >= minConfidence && shaped(f)
}

// reconcile settles a box re-read of a value against the page's line
// reading of it, when both are valid. The same letters spaced otherwise
// take the page's spaces: the line reading split the words where
// tesseract saw them, which holds on letter-spaced print where the box
// re-read's gap rule joins them (ANNAMARIA for ANNA MARIA). A re-read
// that lost a glyph or two at an end of a word the line read whole takes
// the line's reading: the box re-read trims a narrow last letter as an
// edge (BUNDESDRUCKERE for BUNDESDRUCKEREI on the German specimen). A
// separate word at the end of the line's reading (MAKUENI A) is not
// such a glyph, and the re-read that left it out stands; a re-read that
// adds a word at an edge took it from the box's padding, and the line's
// reading stands.
func reconcile(r *fieldRead, page string) {
	if !r.valid || r.value == page {
		return
	}
	if strings.ReplaceAll(r.value, " ", "") == strings.ReplaceAll(page, " ", "") {
		r.value = page
		return
	}
	// A word more at an edge came from the box's padding, half a glyph
	// high, where no word of the value fits: the end of a faint caption
	// (S-I of Sub-location: before KIKUYU) or artwork.
	if strings.HasSuffix(r.value, " "+page) || strings.HasPrefix(r.value, page+" ") {
		r.value = page
		return
	}
	// A glyph trimmed at an edge is the end of a longer word: a one- or
	// two-letter re-read (P, a passport's type) is whole, and the line's
	// longer reading joined it to other print (PP).
	if len(page)-len(r.value) > 2 || len(r.value) < 3 {
		return
	}
	if rest, ok := strings.CutPrefix(page, r.value); ok && !strings.HasPrefix(rest, " ") {
		r.value = page
	} else if rest, ok := strings.CutSuffix(page, r.value); ok && !strings.HasSuffix(rest, " ") {
		r.value = page
	}
}

// accepts: a re-read value is valid and is not caption print read out of
// a box or zone that held a caption the page reading missed (URNAMENOM
// of SURNAME/NOM in a surname's zone).
func (ly *layout) accepts(r fieldRead) bool {
	return r.valid && !ly.captionLike(r.value)
}

// lineCount is how many text lines a candidate spans.
func lineCount(ly *layout, c candidate) int {
	n, bottom := 0, math.MinInt
	for _, w := range c.words {
		b := ly.pg.words[w].box
		if b.Min.Y >= bottom {
			n++
			bottom = b.Max.Y
		}
	}
	return max(n, 1)
}

// captionIn: a caption of some field lies in the zone.
func (ly *layout) captionIn(z idv.Zone) bool {
	r := image.Rect(int(z.X*float64(ly.pg.w)), int(z.Y*float64(ly.pg.h)), int((z.X+z.W)*float64(ly.pg.w)), int((z.Y+z.H)*float64(ly.pg.h)))
	for _, hs := range ly.hits {
		for _, h := range hs {
			if h.box.Overlaps(r) {
				return true
			}
		}
	}
	return false
}

// padded is a candidate's box a little enlarged (tesseract's word boxes
// are tight, and the line preparation wants whole glyphs and some paper
// around them), but never into a neighbouring word on its line.
func (ly *layout) padded(c candidate) image.Rectangle {
	box := c.box
	h := box.Dy() / lineCount(ly, c)
	r := image.Rect(box.Min.X-h/2, box.Min.Y-h/4, box.Max.X+h/2, box.Max.Y+h/4)
	mine := map[int]bool{}
	for _, w := range c.words {
		mine[w] = true
	}
	for i, w := range ly.pg.words {
		if mine[i] || !sameLine(box, w.box) {
			continue
		}
		if w.box.Max.X <= box.Min.X && w.box.Max.X > r.Min.X {
			r.Min.X = (w.box.Max.X + box.Min.X) / 2
		}
		if w.box.Min.X >= box.Max.X && w.box.Min.X < r.Max.X {
			r.Max.X = (w.box.Min.X + box.Max.X) / 2
		}
	}
	return r
}

// readBox re-reads a value's box.
func (k *Check) readBox(ctx context.Context, f idv.FieldDef, card *vision.Card, r image.Rectangle, lines int) (fieldRead, error) {
	r = r.Intersect(card.Image.Bounds())
	if r.Empty() {
		return fieldRead{}, nil
	}
	return k.readCrop(ctx, f, imaging.Crop(card.Image, r), lines)
}

// valueZone widens a value zone a little: print is not always exactly
// where the definition says, and tesseract needs the whole glyphs. Upwards
// it grows less, because the label sits just above. Leftwards it grows
// most (2.2 % of the card): values are left-aligned, and an outline found
// a little inside the card cuts their first letter (ATRICK for PATRICK).
func valueZone(z idv.Zone) idv.Zone {
	return idv.Zone{Side: z.Side, X: z.X - 0.022, Y: z.Y - 0.05*z.H, W: z.W + 0.034, H: z.H * 1.25}
}

// readField reads f's zone as a crop: the region prior, for a field whose
// caption the page did not show.
func (k *Check) readField(ctx context.Context, f idv.FieldDef, card *vision.Card) (fieldRead, error) {
	return k.readCrop(ctx, f, vision.Crop(card.Image, valueZone(f.Zone)), max(f.Lines, 1))
}

// readCrop reads one value from a crop of the card holding it.
func (k *Check) readCrop(ctx context.Context, f idv.FieldDef, crop image.Image, lines int) (fieldRead, error) {
	psm := f.PSM
	if lines > 1 && psm == 7 {
		psm = 6
	}
	img := prepare(crop, zoneHeight*lines)
	if img == nil {
		return fieldRead{}, nil
	}
	r, err := k.tess().read(ctx, img, whitelist(f), psm)
	if err != nil {
		return fieldRead{}, err
	}
	v, ok := Normalize(f, r.Text)
	if !ok || r.Conf < minConfidence {
		// A whitelist sometimes leaves tesseract with nothing it likes
		// (a lone capital): read again free and let Normalize filter.
		r2, err := k.tess().read(ctx, img, "", psm)
		if err != nil {
			return fieldRead{}, err
		}
		// Cards print capitals: lower case read freely is something else.
		if v2, ok2 := Normalize(f, r2.Text); ok2 && r2.Conf >= minConfidence && strings.ToUpper(r2.Text) == r2.Text {
			r, v, ok = r2, v2, ok2
		}
	}
	if (!ok || r.Conf < minConfidence) && singleGlyph(img) {
		// Tesseract's line mode often finds no text at all in a lone
		// letter (the M of a sex field on a slightly blurred capture), and so
		// does its single character mode; read as a raw line it is found.
		r3, err := k.tess().read(ctx, img, whitelist(f), 13)
		if err != nil {
			return fieldRead{}, err
		}
		if v3, ok3 := Normalize(f, r3.Text); ok3 && r3.Conf >= minConfidence {
			r, v, ok = r3, v3, ok3
		}
	}
	// A value tesseract itself doubts is not presented as read, even when
	// it happens to fit the pattern (free text patterns admit noise).
	return fieldRead{raw: fmt.Sprintf("%s|%.0f", r.Text, r.Conf), value: v, valid: ok && r.Conf >= minConfidence, conf: r.Conf}, nil
}

// singleGlyph tells whether a prepared zone (cut to its inked columns,
// with a white margin) holds about one character: it is not much wider
// than tall.
func singleGlyph(img *image.Gray) bool {
	b := img.Bounds()
	return b.Dx() < 2*b.Dy()
}

// whitelist is the field's charset, widened where the printed form differs
// from the normalised one (separators of dates, month names, sex words).
func whitelist(f idv.FieldDef) string {
	switch f.Type {
	case idv.FieldDate:
		if f.Format == "DD MMM YYYY" {
			return "0123456789ABCDEFGJLMNOPRSTUVY/ "
		}
		if f.Format == dateAny {
			return anyDateChars
		}
		return "0123456789./- "
	case idv.FieldSex:
		return "MFXALE/"
	}
	return f.Charset
}

// readMRZ reads the MRZ band: OCR-B capitals, digits and fillers. The
// mrz package's template reader goes first: it reads every specimen MRZ
// exactly in about 45 ms, where tesseract reads 13 of 20 in about 500 ms
// and turns runs of fillers into K (docs/mrz.md). A reading it finds only
// turned (the card is upside down here) gives "", so the caller tries the
// card turned, where it reads upright. Tesseract is the fallback when the
// template reader finds no MRZ at all (a font or print it cannot match).
//
// band is the template reader's band and lines on the card, for the page
// reading (mrzBand); nil when it did not read the band upright.
func (k *Check) readMRZ(ctx context.Context, d *idv.DocumentDefinition, card *vision.Card) (text string, band *mrzBand, err error) {
	// A little wider than the zone: a line starts right at its edge, and a
	// first character cut by a pixel of outline error is read as nothing.
	z := d.MRZ.Zone
	z.X, z.W = max(0, z.X-0.015), min(1, z.X+z.W+0.015)-max(0, z.X-0.015)
	crop := vision.Crop(card.Image, z)
	rd, err := k.mrz.Read(ctx, crop)
	switch {
	case err == nil && rd.Rotation == 0:
		return strings.Join(rd.Lines, "\n"), bandOn(card, z, rd), nil
	case err == nil && rd.Rotation == 180:
		return "", nil, nil
	case ctx.Err() != nil:
		return "", nil, ctx.Err()
	}
	n := 2
	if d.MRZ.Format == idv.MRZTD1 {
		n = 3
	}
	img := prepare(crop, zoneHeight*n)
	if img == nil {
		return "", nil, nil
	}
	r, err := k.tess().read(ctx, img, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<", 6)
	if err != nil {
		return "", nil, err
	}
	return strings.ReplaceAll(r.Text, " ", ""), nil, nil
}

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		dup := false
		for _, h := range list {
			if h == it {
				dup = true
			}
		}
		if !dup && it != "" {
			list = append(list, it)
		}
	}
	return list
}
