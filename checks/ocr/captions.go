package ocr

import (
	"context"
	"sort"
	"strings"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// maxCompletions bounds the captions completed on one side (each costs a
// line reading of about 10 ms).
const maxCompletions = 8

// sideCaptionKeys are the folded spellings of the captions of d's fields
// printed on side.
func sideCaptionKeys(d *idv.DocumentDefinition, side string) []string {
	var keys []string
	for _, f := range d.Fields {
		if f.Zone.Side != side || f.Fixed != "" {
			continue
		}
		for _, l := range docdefs.Spellings(f) {
			if k := docdefs.LabelKey(l); k != "" {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// completeCaptions reads again the captions the page reading cut short.
// Captions are printed small and light; on a soft capture tesseract keeps
// their first, darkest word as a confident word and drops the rest (Date
// of "Date of issue", twice on one synth passport page), so the caption
// matches no field, or the wrong one. A word that starts a caption of the
// side but not the whole of it, and whose ink runs on along its line
// (growToInk), is read again over that ink as one line; the new reading
// replaces it when it matches a caption better.
func (p *pool) completeCaptions(ctx context.Context, pg *page, keys []string) error {
	if len(keys) == 0 || pg.grey == nil {
		return nil
	}
	type cut struct {
		i    int
		dist int // edit distance of the word's key to its nearest caption
	}
	var cuts []cut
	for i, w := range pg.words {
		k := docdefs.LabelKey(w.text)
		if len(k) < 2 || strings.ContainsAny(w.text, "0123456789") {
			continue
		}
		whole, starts := false, false
		for _, c := range keys {
			if c == k {
				whole = true
				break
			}
			starts = starts || (len(c) >= len(k)+3 && strings.HasPrefix(c, k))
		}
		if starts && !whole {
			cuts = append(cuts, cut{i: i, dist: nearest(k, keys)})
		}
	}
	// Left to right, top to bottom: the order does not matter for the
	// result but keeps it the same from run to run.
	sort.Slice(cuts, func(a, b int) bool {
		pa, pb := pg.words[cuts[a].i].box.Min, pg.words[cuts[b].i].box.Min
		if pa.Y != pb.Y {
			return pa.Y < pb.Y
		}
		return pa.X < pb.X
	})
	drop := map[int]bool{}
	var add []word
	done := 0
	for _, c := range cuts {
		if done == maxCompletions {
			break
		}
		if drop[c.i] {
			continue
		}
		w := pg.words[c.i]
		grown := pg.growToInk(w.box, []int{c.i})
		if grown.Dx() <= w.box.Dx()+w.box.Dy()/2 {
			continue
		}
		done++
		pad := max(2, grown.Dy()/6)
		box := grown.Inset(-pad).Intersect(pg.grey.Bounds())
		// Stretched, not thresholded: prepare's threshold (made for
		// values) turns faint captions to specks. Paper at the 80th
		// percentile: the box is tight around faint print.
		rd, err := p.read(ctx, lineImage(pg.grey, box, 0.8), "", 7)
		if err != nil {
			return err
		}
		parts := strings.Fields(rd.Text)
		k := docdefs.LabelKey(rd.Text)
		if len(parts) == 0 {
			continue
		}
		d := nearest(k, keys)
		if d > labelAllowance(len(k)) {
			// Too far from every caption to match as read; when one
			// caption is still clearly the nearest (within a third of the
			// letters, and two edits nearer than any other), the words are
			// that caption printed too faint to read letter by letter
			// (Date of issue read "Dateof sawe", 3 edits from DATE OF
			// ISSUE and 5 from DATE OF BIRTH and DATE OF EXPIRY).
			// The snap needs the word the page reading was sure of to
			// lead the new reading (DATE of DATEOFSAWE): tiny print read
			// as letters at random came near enough to some caption of
			// the generic definitions' many spellings otherwise.
			best, ok := clearlyNearest(k, keys)
			if !ok || !strings.HasPrefix(k, docdefs.LabelKey(w.text)) || !strings.HasPrefix(best, docdefs.LabelKey(w.text)) {
				continue
			}
			parts, d = []string{best}, 0
		}
		if d >= c.dist {
			continue
		}
		// The caption's other words, where the page reading had them in
		// pieces, give way to the new reading.
		for j, o := range pg.words {
			if j == c.i || (o.box.In(grown.Inset(-2)) && sameLine(w.box, o.box)) {
				drop[j] = true
			}
		}
		add = append(add, spread(parts, grown, rd.Conf)...)
	}
	if len(drop) == 0 {
		return nil
	}
	kept := pg.words[:0:0]
	for i, w := range pg.words {
		if !drop[i] {
			kept = append(kept, w)
		}
	}
	for _, w := range add {
		kept = append(kept, splitWord(w)...)
	}
	pg.words = kept
	return nil
}

// clearlyNearest is the caption k is nearest to, when it is within a
// third of k's letters and at least two edits nearer than any other.
func clearlyNearest(k string, keys []string) (string, bool) {
	best, second, which := len(k)+1, len(k)+1, ""
	for _, c := range keys {
		d := levenshtein(k, c)
		switch {
		case c == which:
		case d < best:
			best, second, which = d, best, c
		case d < second:
			second = d
		}
	}
	return which, which != "" && 3*best <= len(k) && second >= best+2
}

// nearest is the edit distance from k to the closest of keys.
func nearest(k string, keys []string) int {
	best := len(k)
	for _, c := range keys {
		best = min(best, levenshtein(k, c))
	}
	return best
}
