package ocr

import (
	"image"
	"strings"

	"github.com/tambua/tambua/idv"
)

// strength orders how a value was found, strongest first: next to its
// caption, then at its place in the ICAO order, by the order of dates or
// its own shape, next to print taken for its caption or at its place in
// a column of values, among the words in its zone.
var strength = map[string]int{"label": 5, "order": 4, "chronology": 3, "shape": 3, "loose": 2, "stack": 2, "region": 1}

// oneOwner gives each piece of print to one field at most: the fields of
// a side are read each on its own, and on a layout other than the
// definition's drawing a field found only in its zone can take the value
// another field found next to its caption (MALE, the sex, read as a full
// name). Of two values read from the same print, the one found the
// weaker way is dropped, and both when they were found the same weaker
// way; two found next to their own captions both stand (a surname and
// given names read from one line, LIN, MEI-HUA).
func oneOwner(rs map[string]fieldRead) {
	drop := map[string]bool{}
	for a, ra := range rs {
		if !ra.hasPrint() {
			continue
		}
		for b, rb := range rs {
			if a == b || !rb.hasPrint() || !sharePrint(ra.box, rb.box) {
				continue
			}
			sa, sb := strength[ra.how], strength[rb.how]
			// Two found the same weaker way: which is right cannot be
			// told, and both are dropped.
			if sa < sb || sa == sb && sa < strength["label"] {
				drop[a] = true
			}
		}
	}
	for a := range drop {
		rs[a] = rs[a].withdrawn()
	}
}

// hasPrint: a valid read with the box of its print. A value read from its
// zone as a crop has the zone for its box, not its print.
func (r fieldRead) hasPrint() bool { return r.valid && !r.box.Empty() && r.how != "zone" }

// withdrawn is r with its value given up: where and how it was found, and
// what was read there, stay for the account.
func (r fieldRead) withdrawn() fieldRead {
	return fieldRead{raw: r.raw, how: r.how, box: r.box, label: r.label, conf: r.conf}
}

// sharePrint: the two boxes cover the same print, most of the smaller.
func sharePrint(a, b image.Rectangle) bool {
	in := a.Intersect(b)
	if in.Empty() {
		return false
	}
	small := min(a.Dx()*a.Dy(), b.Dx()*b.Dy())
	return 2*in.Dx()*in.Dy() >= small
}

// dropUnlikely drops the values read only from a field's zone or the
// words in it (how "zone", "region") that no name or place is: a word of
// two letters or more with no vowel (NM, RR, PN, read from artwork beside
// the value) or with a letter three times running (AWWW, a fingerprint's
// arcs). Found by its caption, its column or its shape, such a reading
// stands: only where nothing but the definition's drawing put it is it
// taken for artwork. Only fields that take a name or a place (NAIROBI)
// are judged, not codes (GBR, SVK). Names and places of the documents
// read are written in Latin letters with vowels (Y counted); a name with
// none (NG) loses only a guess.
func dropUnlikely(d *idv.DocumentDefinition, rs map[string]fieldRead) {
	for n, r := range rs {
		f, ok := d.Field(n)
		if !ok || !r.valid || r.how != "zone" && r.how != "region" || !unlikelyWords(r.value) {
			continue
		}
		if _, named := Normalize(f, "NAIROBI"); !named {
			continue
		}
		rs[n] = r.withdrawn()
	}
}

// unlikelyWords: a word of v of two letters or more has no vowel, or a
// letter three times running.
func unlikelyWords(v string) bool {
	for _, w := range strings.Fields(v) {
		if len(w) >= 2 && !strings.ContainsAny(w, "AEIOUY") {
			return true
		}
		for i := 2; i < len(w); i++ {
			if w[i] == w[i-1] && w[i] == w[i-2] {
				return true
			}
		}
	}
	return false
}
