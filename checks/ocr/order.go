package ocr

import (
	"image"
	"sort"

	"github.com/tambua/tambua/idv"
)

// byOrder reads fields whose captions were lost from the side's lines of
// print in reading order, left to right and row by row: the definition
// lists a side's fields in the order the document prints them, and a card
// set in two columns (first name | middle name, surname | date of birth)
// still prints them in that order across its rows, where byStack, which
// walks one column, finds none of them. Between two fields read firmly
// (by a caption, a shape, their dates' order) and standing in the
// definition's order on the card, the open fields take the lines of value
// print between those two reads, one each in order, only when there are
// exactly as many and each fits its field surely; else nothing is given.
func byOrder(d *idv.DocumentDefinition, side string, ly *layout, rs map[string]fieldRead) {
	st := newStacker(d, side, ly, rs)
	lines := orderLines(st.lines)
	if len(lines) == 0 {
		return
	}
	// The reading order of every line of print and every firm read.
	type item struct {
		box   image.Rectangle
		field int // index into st.fs of a firm read, -1 for a line
		line  int // index into lines
	}
	var items []item
	anchored := map[int]bool{}
	for k, f := range st.fs {
		if r, ok := st.settled(f); ok {
			items = append(items, item{box: r.box, field: k, line: -1})
			anchored[k] = true
		}
	}
	for i, l := range lines {
		items = append(items, item{box: l[0].box, field: -1, line: i})
	}
	items = readingOrder(items, func(it item) image.Rectangle { return it.box })
	if len(anchored) == 0 {
		// No field of the side was read firmly: a side of three fields
		// and more, every one open, takes its lines of print in order
		// when they are as many and of one print size (a Kenyan back's
		// district | division, location | sub-location, all four
		// captions lost, on a synth columns card of seed 14).
		if len(st.fs) < 3 || len(items) != len(st.fs) || !oneSize(lines) {
			return
		}
		for _, f := range st.fs {
			if !st.unread(f) {
				return
			}
		}
		var all [][]candidate
		for _, it := range items {
			all = append(all, lines[it.line])
		}
		st.placeEach(st.fs, all, "by reading order", inOrderLine)
		return
	}
	if len(anchored) < 2 {
		// One read gives no order to hold the card's against the
		// definition's, nor a print size for its values (valueSized).
		return
	}
	pos := map[int]int{} // field index to its place in items
	for i, it := range items {
		if it.field >= 0 {
			pos[it.field] = i
		}
	}
	for i := 0; i < len(st.fs); {
		if anchored[i] || !st.unread(st.fs[i]) {
			i++
			continue
		}
		j := i
		for j < len(st.fs) && !anchored[j] && st.unread(st.fs[j]) {
			j++
		}
		// The run is bounded by firm reads, or by the side's ends; a
		// field neither read firmly nor open (a caption found, its value
		// not) leaves the run's lines unknown.
		from, to := 0, len(items)
		ok := true
		if i > 0 {
			p, has := pos[i-1]
			ok = has
			from = p + 1
		}
		if j < len(st.fs) {
			p, has := pos[j]
			ok = ok && has
			to = p
		}
		if ok && from <= to {
			var between [][]candidate
			for _, it := range items[from:to] {
				if it.field >= 0 {
					ok = false
					break
				}
				between = append(between, lines[it.line])
			}
			if ok {
				st.placeEach(st.fs[i:j], between, "by reading order", inOrderLine)
			}
		}
		i = j
	}
}

// orderLines groups stackLines' candidates by the line of print they
// belong to (each run from each of its words on shares the run's last
// word), the whole run first.
func orderLines(cs []candidate) [][]candidate {
	by := map[int][]candidate{}
	var keys []int
	for _, c := range cs {
		k := c.words[len(c.words)-1]
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], c)
	}
	var out [][]candidate
	for _, k := range keys {
		g := by[k]
		sort.SliceStable(g, func(a, b int) bool { return len(g[a].words) > len(g[b].words) })
		out = append(out, g)
	}
	return out
}

// inOrderLine: a line byOrder may give f, besides fitting it surely:
// every letter and digit in f's set, and no lone glyph for a field whose
// values are words (a speck read 'T before a Tanzanian's middle name, on
// a synth columns card of seed 12, hard).
func inOrderLine(f idv.FieldDef, c candidate) bool {
	return inCharset(f, c.text) && !(wordValued(f) && alnumLen(c.text) == 1)
}

// oneSize: the lines' heights differ by less than half (valueSized's
// bound).
func oneSize(lines [][]candidate) bool {
	lo, hi := 1<<30, 0
	for _, l := range lines {
		lo, hi = min(lo, l[0].box.Dy()), max(hi, l[0].box.Dy())
	}
	return 2*hi < 3*lo
}

// readingOrder sorts xs left to right and row by row: an item is on the
// row of the first item of the row whose band holds its middle.
func readingOrder[T any](xs []T, box func(T) image.Rectangle) []T {
	sort.SliceStable(xs, func(a, b int) bool { return box(xs[a]).Min.Y < box(xs[b]).Min.Y })
	var out []T
	for len(xs) > 0 {
		head := box(xs[0])
		var row, rest []T
		for _, x := range xs {
			m := (box(x).Min.Y + box(x).Max.Y) / 2
			if m >= head.Min.Y && m < head.Max.Y {
				row = append(row, x)
			} else {
				rest = append(rest, x)
			}
		}
		sort.SliceStable(row, func(a, b int) bool { return box(row[a]).Min.X < box(row[b]).Min.X })
		out = append(out, row...)
		xs = rest
	}
	return out
}
