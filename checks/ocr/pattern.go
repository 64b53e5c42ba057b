package ocr

import (
	"fmt"
	"image"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/tambua/tambua/idv"
)

// byPattern reads, on a side known to be the document's, a field whose
// caption was not found and whose value has a shape no name or place
// has (a number with its grouping, a date, a sex) from the one run of
// the side's print that has that shape. Captions printed small and
// light are the first thing a soft capture loses, while its values stay
// legible; the value's own shape then says which field it is, as long
// as nothing else on the side has it too. Nothing is given when two runs
// fit, when the run fits two open fields, or when the run is taken by a
// field already read.
//
// Dates are given here only on a side that carries one date field:
// several are datesByOrder's, which also checks their order.
func byPattern(d *idv.DocumentDefinition, side string, ly *layout, rs map[string]fieldRead) {
	var open []idv.FieldDef
	dates := 0
	for _, f := range d.Fields {
		if f.Zone.Side != side || f.Fixed != "" {
			continue
		}
		if f.Type == idv.FieldDate {
			dates++
		}
		if rs[f.Name].valid || ly.captionFound(f.Name) || !shaped(f) {
			continue
		}
		open = append(open, f)
	}
	if dates > 1 {
		open = slices.DeleteFunc(open, func(f idv.FieldDef) bool { return f.Type == idv.FieldDate })
	}
	if len(open) == 0 {
		return
	}
	taken := map[string]bool{}
	var used []fieldRead
	for _, r := range rs {
		// A field read only from its zone or the words in it has not
		// taken its print: on another layout that is a guess (MALE in
		// the zone of the full name), which oneOwner drops for the
		// stronger reading by shape.
		if !weakRead(r) {
			taken[r.value] = true
			if !r.box.Empty() {
				used = append(used, r)
			}
		}
	}
	type fit struct {
		c     candidate
		value string
		run   int // the run's first word
	}
	fits := map[string][]fit{} // field -> runs of the side that fit it
	owners := map[int]int{}    // first word of a run -> open fields it fits
	for _, seg := range ly.runs() {
		i := seg[0]
		if ly.pg.words[i].light {
			continue
		}
		for _, f := range open {
			sub, v, ok := ly.fits(f, ly.makeCandidate(f, seg, 0))
			if !ok || taken[v] || sub.conf < shapeConf || !plain(f, sub.text, v) || overlapsAny(sub.box, used) {
				continue
			}
			fits[f.Name] = append(fits[f.Name], fit{sub, v, i})
			owners[i]++
		}
	}
	for _, f := range open {
		fs := fits[f.Name]
		if len(fs) != 1 || owners[fs[0].run] != 1 {
			continue
		}
		c := fs[0].c
		rs[f.Name] = fieldRead{box: c.box, how: "shape", raw: fmt.Sprintf("by its shape %s|%.0f", c.text, c.conf),
			value: fs[0].value, valid: true, conf: c.conf}
	}
}

// plain: the print says the value as it is, without the repairs
// Normalize makes for a value found by its caption (letters read for
// digits, a sex guessed from a stray "of"): a value given by its shape
// alone has nothing else behind it. A number's letters and digits are
// the value's; a sex is a word of its own, MALE or FEMALE (a lone M or F
// is read from artwork too: an F from a portrait taken for the card); a
// date is one Normalize could read as a real day.
func plain(f idv.FieldDef, raw, v string) bool {
	switch f.Type {
	case idv.FieldDate:
		return true
	case idv.FieldSex:
		for _, w := range strings.Fields(strings.ToUpper(raw)) {
			w = strings.Trim(w, ".,:;")
			if (w == "MALE" || w == "FEMALE") && w[:1] == v {
				return true
			}
		}
		return false
	}
	return alnum(raw) == alnum(v)
}

func alnum(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToUpper(r)
		}
		return -1
	}, s)
}

// shapeConf is the word confidence a value found by its shape or place
// alone needs: on the tuning runs the right ones read 85 and more, the
// one wrong (a NIN of a columns card, letters for digits) 38.
const shapeConf = 60

// shaped: no name, place or word of a caption is a valid value of f, so
// a run of print that is one is f's (a NIN's digit groups, a date, a
// sex). Tried on words as such text reads, in capitals as Normalize
// sees them.
func shaped(f idv.FieldDef) bool {
	for _, probe := range []string{"A", "AB", "JOHN", "OMARI", "NAIROBI", "JOHN SMITH", "ST MARTIN", "MARY-ANNE", "O'NEIL", "P", "KE", "KEN", "UGA", "CITIZEN"} {
		if _, ok := Normalize(f, probe); ok {
			return false
		}
	}
	return true
}

func overlapsAny(b image.Rectangle, rs []fieldRead) bool {
	for _, r := range rs {
		if b.Overlaps(r.box) {
			return true
		}
	}
	return false
}

// byStack reads a column of fields whose captions were not found from
// the column of values the side prints, by the definition's order: the
// fields stacked one under another in the definition (first name, middle
// name, surname), between fields already read in the same column, are
// the lines of print stacked at that column's left edge between those
// fields' values, top down. The column's edge is the printed value of a
// field read around them, not the definition's zone, so a layout that
// moves the column (the photo on the other side) keeps it. Nothing is
// given unless the lines there are exactly as many as the fields and
// each fits its field.
func byStack(d *idv.DocumentDefinition, side string, ly *layout, rs map[string]fieldRead) {
	st := stacker{ly: ly, rs: rs}
	for _, f := range d.Fields {
		if f.Zone.Side == side && f.Fixed == "" && f.HasZone() {
			st.fs = append(st.fs, f)
		}
	}
	fs := st.fs
	sort.SliceStable(fs, func(a, b int) bool {
		if fs[a].Zone.Y != fs[b].Zone.Y {
			return fs[a].Zone.Y < fs[b].Zone.Y
		}
		return fs[a].Zone.X < fs[b].Zone.X
	})
	var used []fieldRead
	for _, r := range rs {
		if firmRead(r) {
			used = append(used, r)
		}
	}
	st.lines = ly.stackLines(used)
	// First the columns between fields read, then what is left, each run
	// of open fields in the definition's reading order (a grid of the
	// definition printed as one column on another layout).
	// A run placed gives the runs before it anchors (a NIN placed between
	// the date of birth and the card number shows, with the date, the
	// column the names above them stand in): the anchored pass is run
	// again while it places fields.
	for range st.fs {
		if !st.pass(true) {
			break
		}
	}
	st.pass(false)
}

// stacker is byStack's work on one side: the side's fields in the
// definition's reading order, the reads so far, and the lines of print a
// column may hold.
type stacker struct {
	ly    *layout
	fs    []idv.FieldDef
	rs    map[string]fieldRead
	lines []candidate
	// placed counts the fields placed so far.
	placed int
}

// weakRead: not read, or read only from its zone or the words in it; on
// a layout other than the definition's drawing those are guesses, and
// the field is open to byStack.
func weakRead(r fieldRead) bool { return !r.valid || r.how == "zone" || r.how == "region" }

// firmRead: read by more than its zone, with the box of its print: a
// field a column can be anchored on.
func firmRead(r fieldRead) bool { return !weakRead(r) && !r.box.Empty() }

// regriddable: a field a run of the card's own column may take: unread,
// or a date read only from its zone's words (its line then stands in the
// column with the others and must fit it again).
func (st *stacker) regriddable(f idv.FieldDef) bool {
	r := st.rs[f.Name]
	if f.Type == idv.FieldDate && r.valid && r.how == "region" {
		return !st.ly.captionFound(f.Name)
	}
	return st.unread(f)
}

// unread: read only weakly, no caption of it found, and a field a column
// line can hold (one line, not a date: dates are placed by their order).
// A field of a shape counts too: byPattern refuses what its shape alone
// cannot vouch for (a lone M, the sex, could be artwork), which its
// place in the column between two firm reads does.
func (st *stacker) unread(f idv.FieldDef) bool {
	return weakRead(st.rs[f.Name]) && !st.ly.captionFound(f.Name) && f.Type != idv.FieldDate && max(f.Lines, 1) == 1
}

// sameColumn: drawn at one left edge, within 5 % of the card (the
// definitions' zones of one column share their x exactly).
func sameColumn(a, b idv.FieldDef) bool { return math.Abs(a.Zone.X-b.Zone.X) < 0.05 }

// anchor is the read of the field of col's column nearest the k-th in
// the reading order, going by step (-1 up, +1 down), when it was read
// with a box by more than its zone. In a grid (village | parish,
// sub-county | county) the field above county in its column is parish,
// two places back.
func (st *stacker) anchor(k, step int, col idv.FieldDef) (fieldRead, bool) {
	for ; k >= 0 && k < len(st.fs); k += step {
		if sameColumn(st.fs[k], col) {
			r := st.rs[st.fs[k].Name]
			return r, firmRead(r)
		}
	}
	return fieldRead{}, false
}

// cardColumn: the fields before and after a run, in the definition's
// reading order, were read firmly and stand one under the other at one
// left edge of the card (within the upper value's height), though the
// definition draws them in other columns: the card prints the
// definition's grid as one column (village, parish, sub-county, county,
// district down one edge), and the run's lines are between them. A run
// that opens the side's order has only a field after it: the two fields
// after it, drawn in two columns by the definition and standing at one
// edge on the card, show the column (surname, given name, nationality
// and sex over a date of birth and a NIN that the definition draws side
// by side); a run that closes it likewise by the two fields before it.
func (st *stacker) cardColumn(a, b int) (above, below fieldRead, hasAbove, hasBelow bool) {
	at := func(k int) (fieldRead, bool) {
		if k < 0 || k >= len(st.fs) {
			return fieldRead{}, false
		}
		r := st.rs[st.fs[k].Name]
		return r, firmRead(r)
	}
	oneEdge := func(up, down fieldRead) bool {
		return up.box.Max.Y <= down.box.Min.Y && abs(up.box.Min.X-down.box.Min.X) <= up.box.Dy()
	}
	// regridded: the firm reads of fields x and x+1 stand at one edge of
	// the card where the definition draws them in two columns.
	regridded := func(x int) bool {
		up, ok1 := at(x)
		down, ok2 := at(x + 1)
		return ok1 && ok2 && !sameColumn(st.fs[x], st.fs[x+1]) && oneEdge(up, down)
	}
	above, hasAbove = at(a)
	below, hasBelow = at(b)
	switch {
	case hasAbove && hasBelow:
		ok := oneEdge(above, below)
		return above, below, ok, ok
	case a < 0 && hasBelow:
		return above, below, false, regridded(b)
	case b >= len(st.fs) && hasAbove:
		return above, below, regridded(a - 1), false
	}
	return above, below, false, false
}

// pass gives out each run of open fields: between anchors of their
// column when anchored, by a column of their own when not. It says
// whether it placed any.
func (st *stacker) pass(anchored bool) bool {
	fs, before := st.fs, st.placed
	for i := 0; i < len(fs); {
		if !st.unread(fs[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(fs) && st.unread(fs[j]) && (!anchored || sameColumn(fs[j], fs[i])) {
			j++
		}
		if !anchored {
			// No field of the column was read: the column is its own
			// evidence when exactly one left edge of the side starts as
			// many lines as the column has fields, three or more (the
			// back of a card whose captions are all lost: district,
			// division, location, sub-location).
			if j-i >= 3 {
				st.place(fs[i:j], st.ly.oneColumn(st.lines, j-i))
			}
			i = j
			continue
		}
		// The run's lines: between anchors of its column in the
		// definition; else between the fields around it in reading order
		// when the card prints them at one edge; else, the card printing
		// the definition's grid as one column, the run grown to every
		// unread field in reading order whatever its drawn column.
		above, hasAbove := st.anchor(i-1, -1, fs[i])
		below, hasBelow := st.anchor(j, 1, fs[i])
		if (hasAbove || hasBelow) && st.place(fs[i:j], st.between(above, below, hasAbove, hasBelow)) {
			i = j
			continue
		}
		if st.place(fs[i:j], st.between(st.cardColumn(i-1, j))) {
			i = j
			continue
		}
		k := i + 1
		for k < len(fs) && st.regriddable(fs[k]) {
			k++
		}
		if k > j && st.place(fs[i:k], st.between(st.cardColumn(i-1, k))) {
			j = k
		}
		i = j
	}
	return st.placed > before
}

// between lists the lines of print between a column's anchors, at the
// left edge of the one above (else the one below).
func (st *stacker) between(above, below fieldRead, hasAbove, hasBelow bool) []candidate {
	if !hasAbove && !hasBelow {
		return nil
	}
	edge := below.box
	if hasAbove {
		edge = above.box
	}
	top, bottom := 0, st.ly.pg.h
	if hasAbove {
		top = above.box.Max.Y
	}
	if hasBelow {
		bottom = below.box.Min.Y
	}
	var lines []candidate
	for _, c := range st.lines {
		if c.box.Min.Y >= top && c.box.Max.Y <= bottom && abs(c.box.Min.X-edge.Min.X) <= edge.Dy() {
			lines = append(lines, c)
		}
	}
	return lines
}

// place gives run's fields the lines top down when there are exactly as
// many and each fits its field surely; it says whether it did.
func (st *stacker) place(run []idv.FieldDef, lines []candidate) bool {
	if len(lines) != len(run) || len(run) == 0 {
		return false
	}
	sort.Slice(lines, func(a, b int) bool { return lines[a].box.Min.Y < lines[b].box.Min.Y })
	reads := make([]fieldRead, len(run))
	for k, f := range run {
		sub, v, fit := st.ly.fits(f, lines[k])
		if !fit || len(sub.words) != len(lines[k].words) || sub.conf < shapeConf {
			return false
		}
		reads[k] = fieldRead{box: sub.box, how: "stack", raw: fmt.Sprintf("by its place %s|%.0f", sub.text, sub.conf),
			value: v, valid: true, conf: sub.conf}
	}
	for k, f := range run {
		st.rs[f.Name] = reads[k]
	}
	st.placed += len(run)
	return true
}

// stackLines lists the lines of print a column of values may hold: each
// run from each of its words on (a caption's remains before a value, a
// light caption read as stray letters, are not the value's), every word
// read surely, leaving out captions and values already read.
func (ly *layout) stackLines(used []fieldRead) []candidate {
	var out []candidate
	for w := range ly.pg.words {
		if ly.isClaimed(w) || ly.pg.words[w].light {
			continue
		}
		seg := ly.segment(w)
		k := slices.Index(seg, w)
		if k < 0 {
			continue
		}
		sure := true
		for _, i := range seg[k:] {
			sure = sure && ly.pg.words[i].conf >= shapeConf
		}
		// No field's zone ranks these: the column's fields each fit
		// their line afterwards (fits).
		c := ly.makeCandidate(idv.FieldDef{}, seg[k:], 0)
		// A run with no letter or digit is artwork read as marks (an
		// emblem read "=" at the column's edge), never a value.
		if !sure || !hasAlnum(c.text) || ly.captionWords(c.text) || overlapsAny(c.box, used) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// oneColumn returns the n lines starting at one left edge (within half
// a line's height), when that edge is the only one of the side that
// starts exactly n lines.
func (ly *layout) oneColumn(lines []candidate, n int) []candidate {
	var found []candidate
	seen := map[int]bool{}
	for i, l := range lines {
		if seen[i] {
			continue
		}
		var col []candidate
		for j, o := range lines {
			if abs(o.box.Min.X-l.box.Min.X) <= l.box.Dy()/2 {
				col = append(col, o)
				seen[j] = true
			}
		}
		if len(col) == n {
			if found != nil {
				return nil
			}
			found = col
		}
	}
	return found
}
