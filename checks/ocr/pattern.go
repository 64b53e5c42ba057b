package ocr

import (
	"fmt"
	"image"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

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
			// Two runs that end in the same print (a garbled caption
			// read as two runs before the date) are one fit.
			if slices.ContainsFunc(fits[f.Name], func(o fit) bool { return o.c.box == sub.box }) {
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

// alnumLen is how many letters and digits s holds.
func alnumLen(s string) int { return utf8.RuneCountInString(alnum(s)) }

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
// sex, a status of a closed list: CITIZEN or PERMANENT RESIDENT). Tried
// on words as such text reads, in capitals as Normalize sees them.
func shaped(f idv.FieldDef) bool {
	for _, probe := range []string{"A", "AB", "JOHN", "OMARI", "NAIROBI", "JOHN SMITH", "ST MARTIN", "MARY-ANNE", "O'NEIL", "P", "KE", "KEN", "UGA"} {
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
	st := newStacker(d, side, ly, rs)
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
	st.lone()
}

// newStacker sets up byStack's work on one side: the side's fields in
// the definition's reading order and the lines of print left.
func newStacker(d *idv.DocumentDefinition, side string, ly *layout, rs map[string]fieldRead) *stacker {
	st := &stacker{ly: ly, rs: rs}
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
	for _, f := range fs {
		if r, ok := st.settled(f); ok {
			used = append(used, r)
		}
	}
	st.lines = valueSized(ly.stackLines(used), used)
	return st
}

// valueSized keeps the lines of the print size of the side's firm reads,
// when two or more show it: a caption read surely (NIN read Nw over its
// number, taken for a surname) or a speck of the portrait is no value.
// The bounds, two thirds to one and a half times the firm reads' median
// height, were chosen on synth columns seed 14: one card's values differ
// by less than that.
func valueSized(lines []candidate, firm []fieldRead) []candidate {
	if len(firm) < 2 {
		return lines
	}
	hs := make([]int, len(firm))
	for i, r := range firm {
		hs[i] = r.box.Dy()
	}
	slices.Sort(hs)
	h := hs[len(hs)/2]
	return slices.DeleteFunc(lines, func(c candidate) bool {
		d := c.box.Dy()
		return 3*d < 2*h || 2*d > 3*h
	})
}

// byLone gives the one line left in a column its field (lone) once more
// after byRow: a field placed by its row (a licence's sex beside its date
// of birth) makes a column of two firm reads that held none before, with
// the licence's class alone between them.
func byLone(d *idv.DocumentDefinition, side string, ly *layout, rs map[string]fieldRead) {
	newStacker(d, side, ly, rs).lone()
}

// lone gives the one line of print left at the edge of a column of
// values (two firm reads and more stand at it), between its firm reads,
// to the one unread field it fits surely: the sex's M between the other
// names and the polling code of a voter card whose small grey captions
// were lost and whose voter number, above the names, leaves no order to
// place it by.
func (st *stacker) lone() {
	var firm []fieldRead
	for _, f := range st.fs {
		if r, ok := st.settled(f); ok {
			firm = append(firm, r)
		}
	}
	seen := map[int]bool{}
	for _, a := range firm {
		edge, h := a.box.Min.X, a.box.Dy()
		at := 0
		top, bottom := a.box.Min.Y, a.box.Max.Y
		for _, b := range firm {
			if abs(b.box.Min.X-edge) <= h {
				at++
				top, bottom = min(top, b.box.Min.Y), max(bottom, b.box.Max.Y)
			}
		}
		if at < 2 || seen[edge] {
			continue
		}
		seen[edge] = true
		// Lines between the column's firm reads only: a title over the
		// column (NATIONAL ID over a Kenyan card's values) is no line of it.
		var left []candidate
		for _, c := range st.lines {
			if abs(c.box.Min.X-edge) <= h && c.box.Min.Y >= top && c.box.Max.Y <= bottom && !overlapsAny(c.box, firm) {
				left = append(left, c)
			}
		}
		// A run's tail is no line of its own: the B of A B starts within
		// a glyph's height of the column's edge too.
		left = slices.DeleteFunc(left, func(c candidate) bool {
			return slices.ContainsFunc(left, func(o candidate) bool { return o.box != c.box && c.box.In(o.box) })
		})
		if len(left) != 1 {
			continue
		}
		// The line must read as the field's characters, none dropped by
		// the set's filter: FC, the F of a garbled FORENAMES caption, is
		// no sex.
		var fits []idv.FieldDef
		for k, f := range st.fs {
			if _, ok := st.fitRun([]idv.FieldDef{f}, left); st.unread(f) && ok && inCharset(f, left[0].text) && st.inOrder(k, left[0].box, edge, h) {
				fits = append(fits, f)
			}
		}
		if len(fits) == 1 {
			st.place(fits, left)
		}
	}
}

// inOrder: a line at the column's edge may be the k-th field's in the
// reading order: of the fields read at that edge, most of those before it
// in the order stand above the line and most of those after it below.
// A Kenyan front's full name, its line read too unsurely to count, is not
// the place of issue printed under the place of birth (GARISSA, the one
// line left, lay below the date of birth and the place of birth that
// follow the name). One field printed out of the order does not decide
// (a voter card prints its number, after the sex in the definition,
// above the names; the polling code and the registration date, after
// the sex too, stand below it).
func (st *stacker) inOrder(k int, line image.Rectangle, edge, h int) bool {
	var beforeUp, beforeDown, afterUp, afterDown int
	for j, g := range st.fs {
		r, ok := st.settled(g)
		if j == k || !ok || abs(r.box.Min.X-edge) > h {
			continue
		}
		up := r.box.Max.Y <= line.Min.Y+line.Dy()/2
		switch {
		case j < k && up:
			beforeUp++
		case j < k:
			beforeDown++
		case up:
			afterUp++
		default:
			afterDown++
		}
	}
	return beforeDown <= beforeUp && afterUp <= afterDown
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
	// shapes caches shaped by field name.
	shapes map[string]bool
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
	_, settled := st.settled(f)
	return !settled && weakRead(st.rs[f.Name]) && !st.ly.captionFound(f.Name) && f.Type != idv.FieldDate && max(f.Lines, 1) == 1
}

// settled: f was read firmly, or from its zone's words as a value of a
// shape no other print takes, a number of four digits and more (a serial
// number's nine digits, as byPattern would have found it): a field a
// column is anchored on, whose print no other field's run takes. A lone
// letter is not such a value: a sex's F read in its zone was a speck of
// the portrait there.
func (st *stacker) settled(f idv.FieldDef) (fieldRead, bool) {
	r := st.rs[f.Name]
	if firmRead(r) {
		return r, true
	}
	if !r.valid || r.how != "region" || r.box.Empty() || digitCount(r.value) < 4 {
		return r, false
	}
	sh, ok := st.shapes[f.Name]
	if !ok {
		sh = shaped(f)
		if st.shapes == nil {
			st.shapes = map[string]bool{}
		}
		st.shapes[f.Name] = sh
	}
	return r, sh
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
			return st.settled(st.fs[k])
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
// by side). A run that closes the side's order takes the lines under the
// field before it at that field's edge, when they are as many as the run
// and each fits its field (the sub-county, county and district under a
// Ugandan back's parish, whose village above it was read only from its
// region).
func (st *stacker) cardColumn(a, b int) (above, below fieldRead, hasAbove, hasBelow bool) {
	at := func(k int) (fieldRead, bool) {
		if k < 0 || k >= len(st.fs) {
			return fieldRead{}, false
		}
		return st.settled(st.fs[k])
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
		return above, below, true, false
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
	reads, ok := st.fitRun(run, lines)
	if !ok {
		return false
	}
	for k, f := range run {
		st.rs[f.Name] = reads[k]
	}
	st.placed += len(run)
	return true
}

// fitRun reads run's fields from the lines top down, when there are
// exactly as many and each fits its field surely.
func (st *stacker) fitRun(run []idv.FieldDef, lines []candidate) ([]fieldRead, bool) {
	if len(lines) != len(run) || len(run) == 0 {
		return nil, false
	}
	sort.Slice(lines, func(a, b int) bool { return lines[a].box.Min.Y < lines[b].box.Min.Y })
	reads := make([]fieldRead, len(run))
	for k, f := range run {
		sub, v, fit := st.ly.fits(f, lines[k])
		if !fit || len(sub.words) != len(lines[k].words) || sub.conf < shapeConf {
			return nil, false
		}
		reads[k] = fieldRead{box: sub.box, how: "stack", raw: fmt.Sprintf("by its place %s|%.0f", sub.text, sub.conf),
			value: v, valid: true, conf: sub.conf}
	}
	return reads, true
}

// stackLines lists the lines of print a column of values may hold: each
// run from each of its words on (a caption's remains before a value, a
// light caption read as stray letters, are not the value's), every word
// read surely, leaving out captions and values already read.
func (ly *layout) stackLines(used []fieldRead) []candidate {
	var out []candidate
	mrzTop := ly.mrzTop()
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
		// emblem read "=" at the column's edge), never a value; nor is
		// the MRZ, read with its fillers or not (its first line at a
		// Kenyan back's column edge gave IDKYA, the letters a place's
		// set kept of it).
		if !sure || !hasAlnum(c.text) || ly.captionWords(c.text) || overlapsAny(c.box, used) ||
			strings.Contains(c.text, "<") || c.box.Max.Y > mrzTop {
			continue
		}
		out = append(out, c)
	}
	return out
}

// oneColumn returns the n lines starting at one left edge (within a
// line's height, as between takes a column's lines: a value set a little
// in from its neighbours, as a printer's line may be, is in the column),
// when that edge is the only one of the side that starts exactly n lines.
func (ly *layout) oneColumn(lines []candidate, n int) []candidate {
	var found []candidate
	seen := map[int]bool{}
	for i, l := range lines {
		if seen[i] {
			continue
		}
		var col []candidate
		for j, o := range lines {
			if abs(o.box.Min.X-l.box.Min.X) <= l.box.Dy() {
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

// byRow reads fields the definition draws in one row with a read field
// before them, whose captions were not found, from the print on that
// field's line to the right of its value: the nationality's UGA with its
// sex's M beside it under a caption too faint to read, a location's value
// with the sub-location's beside it. The row is the card's own evidence
// (the value read, its line), not the definition's zone; nothing is given
// unless the line holds exactly as many runs of print there as the row
// has fields open, up to the next field of the row read on that line,
// and each fits its field surely.
func byRow(d *idv.DocumentDefinition, side string, ly *layout, rs map[string]fieldRead) {
	st := stacker{ly: ly, rs: rs}
	var fs []idv.FieldDef
	for _, f := range d.Fields {
		if f.Zone.Side == side && f.Fixed == "" && f.HasZone() {
			fs = append(fs, f)
		}
	}
	sort.SliceStable(fs, func(a, b int) bool {
		if !sameRow(fs[a], fs[b]) {
			return fs[a].Zone.Y < fs[b].Zone.Y
		}
		return fs[a].Zone.X < fs[b].Zone.X
	})
	// boxed: a read with the box of its print (a region read is the
	// print in the field's place).
	boxed := func(f idv.FieldDef) (fieldRead, bool) {
		r := rs[f.Name]
		return r, r.hasPrint()
	}
	open := func(f idv.FieldDef) bool {
		_, ok := boxed(f)
		return !ok && st.unread(f)
	}
	for i := 1; i < len(fs); i++ {
		left, ok := boxed(fs[i-1])
		if !ok || !sameRow(fs[i-1], fs[i]) || !open(fs[i]) {
			continue
		}
		j := i + 1
		for j < len(fs) && sameRow(fs[j], fs[i]) && open(fs[j]) {
			j++
		}
		right := image.Rectangle{Min: image.Pt(ly.pg.w, 0), Max: image.Pt(ly.pg.w, ly.pg.h)}
		if j < len(fs) && sameRow(fs[j], fs[i]) {
			if r, ok := boxed(fs[j]); ok && sameLine(left.box, r.box) {
				right = r.box
			}
		}
		st.placeEach(fs[i:j], ly.rowRuns(left.box, right, st.readBoxes()), "by its row", nil)
		i = j - 1
	}
}

// sameRow: drawn on one line of the definition (its zones' tops within 3 %
// of the card; the definitions' zones of one row share their y exactly).
func sameRow(a, b idv.FieldDef) bool { return math.Abs(a.Zone.Y-b.Zone.Y) < 0.03 }

// readBoxes are the boxes of the print of every field read by more than
// its zone.
func (st *stacker) readBoxes() []fieldRead {
	var out []fieldRead
	for _, r := range st.rs {
		if r.hasPrint() {
			out = append(out, r)
		}
	}
	return out
}

// rowRuns lists the runs of print on left's line between left and
// right, each as the candidates it holds from each of its words on (a
// faint caption read before a value is not the value's), longest first.
func (ly *layout) rowRuns(left, right image.Rectangle, used []fieldRead) [][]candidate {
	var out [][]candidate
	for _, seg := range ly.runs() {
		first, last := ly.pg.words[seg[0]].box, ly.pg.words[seg[len(seg)-1]].box
		if !sameLine(left, first) || first.Min.X < left.Max.X || last.Max.X > right.Min.X {
			continue
		}
		// Every word read surely, as stackLines takes a column's: a
		// speck of the portrait beside the row read "i" at 37 is no
		// run of print.
		var cs []candidate
		sure := true
		for k := len(seg) - 1; k >= 0; k-- {
			w := ly.pg.words[seg[k]]
			sure = sure && w.conf >= shapeConf && !w.light
			c := ly.makeCandidate(idv.FieldDef{}, seg[k:], 0)
			if sure && hasAlnum(c.text) && !overlapsAny(c.box, used) {
				cs = append([]candidate{c}, cs...)
			}
		}
		if len(cs) > 0 {
			out = append(out, cs)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a][0].box.Min.X < out[b][0].box.Min.X })
	return out
}

// placeEach gives run's fields one line each, in order, when they are
// as many and each line fits its field surely, whole: the first of a
// line's candidates (longest first: the whole run, then from each of its
// words on) that does and that also accepts, when given. by says how the
// field was found, in the reading's raw text (byRow's row, byOrder's
// reading order).
func (st *stacker) placeEach(run []idv.FieldDef, lines [][]candidate, by string, also func(idv.FieldDef, candidate) bool) {
	if len(lines) != len(run) {
		return
	}
	reads := make([]fieldRead, len(run))
	for k, f := range run {
		found := false
		for _, c := range lines[k] {
			sub, v, fit := st.ly.fits(f, c)
			if fit && len(sub.words) == len(c.words) && sub.conf >= shapeConf && (also == nil || also(f, c)) {
				reads[k] = fieldRead{box: sub.box, how: "stack", raw: fmt.Sprintf("%s %s|%.0f", by, sub.text, sub.conf),
					value: v, valid: true, conf: sub.conf}
				found = true
				break
			}
		}
		if !found {
			return
		}
	}
	for k, f := range run {
		st.rs[f.Name] = reads[k]
	}
	st.placed += len(run)
}

// inCharset: every letter and digit of text is in f's character set (any
// when the field gives none).
func inCharset(f idv.FieldDef, text string) bool {
	cs := charsetOf(f)
	if cs == "" {
		return true
	}
	for _, r := range strings.ToUpper(text) {
		if (unicode.IsLetter(r) || unicode.IsDigit(r)) && !strings.ContainsRune(cs, r) {
			return false
		}
	}
	return true
}
