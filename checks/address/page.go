package address

import (
	"image"
	"sort"
	"strings"
)

// Line is a run of words printed together: one row of one column. Its
// box is in page pixels (for PDF text, in character cells).
type Line struct {
	Text string          `json:"text"`
	Box  image.Rectangle `json:"box"`
}

// Page is what was read from a proof-of-address document.
type Page struct {
	Lines []Line
	// Source is how it was read: photo, scan (an image that is the page),
	// pdf_text (a PDF's text layer) or pdf_scan (a rasterised PDF).
	Source string
	// Pages is the document's page count (1 for an image).
	Pages int
	// Screen, when not empty, says why the image is a screenshot of an
	// app rather than a page.
	Screen []string
}

// Texts returns the lines' text in reading order.
func (p *Page) Texts() []string {
	out := make([]string, len(p.Lines))
	for i, l := range p.Lines {
		out[i] = l.Text
	}
	return out
}

// word is one recognised word and its box.
type word struct {
	text string
	box  image.Rectangle
}

// gapFactor: words further apart than this many text heights belong to
// different columns. A space is about a third of the text height and
// tab-aligned columns on the bills seen start two heights or more apart;
// chosen on the synthetic bills' tuning layouts.
const gapFactor = 1.6

// linesOf groups words into rows by vertical overlap, splits each row at
// wide gaps into column segments, and returns the segments row by row,
// left to right.
func linesOf(words []word) []Line {
	sort.Slice(words, func(i, j int) bool {
		ci := words[i].box.Min.Y + words[i].box.Dy()/2
		cj := words[j].box.Min.Y + words[j].box.Dy()/2
		return ci < cj
	})
	var rows [][]word
	for _, w := range words {
		cy := w.box.Min.Y + w.box.Dy()/2
		placed := false
		for r := len(rows) - 1; r >= 0 && r >= len(rows)-3; r-- {
			top, bot := rowSpan(rows[r])
			if cy > top && cy < bot {
				rows[r] = append(rows[r], w)
				placed = true
				break
			}
		}
		if !placed {
			rows = append(rows, []word{w})
		}
	}
	var lines []Line
	for _, row := range rows {
		sort.Slice(row, func(i, j int) bool { return row[i].box.Min.X < row[j].box.Min.X })
		h := medianHeight(row)
		seg := []word{row[0]}
		flush := func() {
			var parts []string
			box := seg[0].box
			for _, w := range seg {
				parts = append(parts, w.text)
				box = box.Union(w.box)
			}
			lines = append(lines, Line{Text: strings.Join(parts, " "), Box: box})
		}
		for _, w := range row[1:] {
			if float64(w.box.Min.X-seg[len(seg)-1].box.Max.X) > gapFactor*float64(h) {
				flush()
				seg = nil
			}
			seg = append(seg, w)
		}
		flush()
	}
	return lines
}

func rowSpan(row []word) (top, bot int) {
	top, bot = row[0].box.Min.Y, row[0].box.Max.Y
	for _, w := range row[1:] {
		top, bot = min(top, w.box.Min.Y), max(bot, w.box.Max.Y)
	}
	return top, bot
}

func medianHeight(row []word) int {
	hs := make([]int, len(row))
	for i, w := range row {
		hs[i] = w.box.Dy()
	}
	sort.Ints(hs)
	return max(1, hs[len(hs)/2])
}

// rowOverlap: two boxes on the same printed row.
func rowOverlap(a, b image.Rectangle) bool {
	lo, hi := max(a.Min.Y, b.Min.Y), min(a.Max.Y, b.Max.Y)
	return hi-lo > min(a.Dy(), b.Dy())/2
}

// rightOf returns the line printed to the right of line i on its row.
func rightOf(lines []Line, i int) int {
	best := -1
	for j, l := range lines {
		if j != i && rowOverlap(lines[i].Box, l.Box) && l.Box.Min.X >= lines[i].Box.Max.X {
			if best < 0 || l.Box.Min.X < lines[best].Box.Min.X {
				best = j
			}
		}
	}
	return best
}

// leftOf returns the line printed to the left of line i on its row.
func leftOf(lines []Line, i int) int {
	best := -1
	for j, l := range lines {
		if j != i && rowOverlap(lines[i].Box, l.Box) && l.Box.Max.X <= lines[i].Box.Min.X {
			if best < 0 || l.Box.Max.X > lines[best].Box.Max.X {
				best = j
			}
		}
	}
	return best
}

// above returns the line whose nearest line below is i.
func above(lines []Line, i int) int {
	best := -1
	for j := range lines {
		if j != i && below(lines, j) == i && (best < 0 || lines[j].Box.Max.Y > lines[best].Box.Max.Y) {
			best = j
		}
	}
	return best
}

// below returns the nearest line under line i that shares columns with
// it, within two and a half line heights.
func below(lines []Line, i int) int {
	a := lines[i].Box
	best := -1
	for j, l := range lines {
		b := l.Box
		if j == i || b.Min.Y < a.Max.Y-a.Dy()/3 || b.Min.Y-a.Max.Y > a.Dy()*5/2 {
			continue
		}
		if min(a.Max.X, b.Max.X)-max(a.Min.X, b.Min.X) <= 0 && absInt(a.Min.X-b.Min.X) > a.Dy() {
			continue
		}
		if best < 0 || b.Min.Y < lines[best].Box.Min.Y {
			best = j
		}
	}
	return best
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// textLines turns pdftotext -layout output into lines: each row split at
// runs of three or more spaces, boxes in character cells (10 x 20).
func textLines(text string) []Line {
	var out []Line
	for y, row := range strings.Split(strings.ReplaceAll(text, "\f", "\n"), "\n") {
		x := 0
		for _, cell := range splitColumns(row) {
			start := strings.Index(row[x:], cell) + x
			out = append(out, Line{Text: cell, Box: image.Rect(start*10, y*20, (start+len(cell))*10, y*20+16)})
			x = start + len(cell)
		}
	}
	return out
}

func splitColumns(row string) []string {
	var out []string
	for _, part := range strings.Split(row, "   ") {
		if t := strings.TrimSpace(part); t != "" {
			out = append(out, t)
		}
	}
	return out
}
