package ocr

import (
	"fmt"
	"image"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
)

// want is a date field whose caption was not found, and its dateRank.
type want struct {
	f    idv.FieldDef
	rank int
}

// dateRank is where a date field stands in a document's life: the holder
// is born, then the document is issued (or the holder registered), then
// it expires. -1 for a date that says nothing of the order.
func dateRank(name string) int {
	switch {
	case strings.Contains(name, "birth"):
		return 0
	case strings.Contains(name, "issue"), strings.Contains(name, "registration"):
		return 1
	case strings.Contains(name, "expiry"):
		return 2
	}
	return -1
}

// datesByOrder reads the date fields of a side whose captions were not
// found from the dates printed on it, by the order every identity
// document's dates keep: born before issued, issued before expiring.
// When as many dates stand on the side, not taken by a field found by its
// caption, as there are such fields (two or more, or one beside a date
// read by its caption), they are given out oldest first.
// A date found only in its zone is given up to this (on a layout other
// than the definition's drawing, the zone of the date of birth may hold
// the date of issue); one found by its caption is kept, and its date is
// not given out again. Nothing is done when the counts differ, when two
// dates are the same day, or when the order they give contradicts a
// date read by its caption.
func datesByOrder(d *idv.DocumentDefinition, side string, ly *layout, rs map[string]fieldRead) {
	var open []want
	type fixed struct {
		rank int
		t    time.Time
	}
	var firm []fixed
	taken := map[string]bool{}
	for _, f := range d.Fields {
		r := rank(f, side)
		if r < 0 {
			continue
		}
		fr := rs[f.Name]
		if fr.valid && (fr.how == "label" || fr.how == "loose" || fr.how == "order") {
			taken[fr.value] = true
			if t, err := time.Parse("02.01.2006", fr.value); err == nil {
				firm = append(firm, fixed{r, t})
			}
			continue
		}
		if len(ly.hits[f.Name]) > 0 {
			// Its caption was found: where it points is the value or
			// nothing, never another date of the side.
			continue
		}
		open = append(open, want{f, r})
	}
	// One field's date alone is given out only against a date read by
	// its caption, which the order must then confirm.
	if len(open) == 0 || len(open) == 1 && len(firm) == 0 {
		return
	}
	type dated struct {
		t     time.Time
		value string
		box   image.Rectangle
		conf  float64
	}
	var found []dated
	seen := map[string]bool{}
	for _, seg := range ly.runs() {
		// A run may hold two dates set a word space apart (the issue
		// and expiry dates of a Nigerian card printed on one line, their
		// captions lost): each is found in turn after the one before.
		for len(seg) > 0 {
			c := ly.makeCandidate(open[0].f, seg, 0)
			rest := []int(nil)
			for _, o := range open {
				sub, v, ok := ly.fits(o.f, c)
				if !ok || taken[v] {
					continue
				}
				t, err := time.Parse("02.01.2006", v)
				if err != nil {
					continue
				}
				if !seen[v] && !ly.underCaption(sub.box, open) {
					seen[v] = true
					found = append(found, dated{t, v, sub.box, sub.conf})
				}
				if len(sub.words) > 0 {
					if k := slices.Index(seg, sub.words[len(sub.words)-1]); k >= 0 {
						rest = seg[k+1:]
					}
				}
				break
			}
			seg = rest
		}
	}
	if len(found) != len(open) {
		return
	}
	sort.Slice(found, func(a, b int) bool { return found[a].t.Before(found[b].t) })
	sort.SliceStable(open, func(a, b int) bool { return open[a].rank < open[b].rank })
	for i := 1; i < len(open); i++ {
		if open[i].rank == open[i-1].rank {
			return // two fields of one rank: the order says nothing
		}
	}
	for i, o := range open {
		for _, fx := range firm {
			if fx.rank < o.rank && !fx.t.Before(found[i].t) || fx.rank > o.rank && !found[i].t.Before(fx.t) {
				return
			}
		}
	}
	for i, o := range open {
		rs[o.f.Name] = fieldRead{box: found[i].box, how: "chronology", raw: fmt.Sprintf("by date order %s|%.0f", found[i].value, found[i].conf),
			value: found[i].value, valid: true, conf: found[i].conf}
	}
}

// underCaption: r stands where a caption of a field not among open
// points, right under it or just right of it: that field's value, read or
// not (the date of issue under a caption found whose value was not read
// is not the date of expiry).
func (ly *layout) underCaption(r image.Rectangle, open []want) bool {
	for f, hs := range ly.hits {
		if slices.ContainsFunc(open, func(o want) bool { return o.f.Name == f }) {
			continue
		}
		for _, h := range hs {
			hh := h.box.Dy()
			below := r.Min.Y >= h.box.Max.Y-hh/2 && r.Min.Y-h.box.Max.Y <= 5*hh/2 &&
				r.Min.X < h.box.Max.X && r.Max.X > ly.captionStart(h)-2*hh
			right := sameLine(h.box, r) && r.Min.X >= h.box.Max.X-hh/2 && r.Min.X-h.box.Max.X <= 4*hh
			if below || right {
				return true
			}
		}
	}
	return false
}

// rank is f's dateRank when f is a date printed on side.
func rank(f idv.FieldDef, side string) int {
	if f.Type != idv.FieldDate || f.Zone.Side != side || f.Fixed != "" {
		return -1
	}
	return dateRank(f.Name)
}
