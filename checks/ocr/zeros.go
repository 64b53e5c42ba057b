package ocr

import (
	"image"
	"sort"
	"strings"

	"github.com/tambua/tambua/idv"
)

// openZeros corrects the 6s tesseract reads for zeros printed with a dot
// or a slash inside (the zeros of monospaced fonts: CM89584909451V read
// CM89584969451V at 99, W8770472 read W8776472 and 02 OCT 2019 read 62
// OCT 2619, on synth cards of the type and columns families, seed 16).
// The glyph says which it is: a 6 is open on its right between its top
// stroke and its bowl, a zero is closed there, whatever is inside it.
// The page's words are corrected once read (zeroWords); a value re-read
// in its box is corrected here, when it is letters and digits only and
// still fits its field after.
func openZeros(d *idv.DocumentDefinition, ly *layout, rs map[string]fieldRead) {
	if ly.pg.grey == nil {
		return
	}
	for name, r := range rs {
		f, ok := d.Field(name)
		if !ok || !r.valid || r.box.Empty() || !strings.Contains(f.Charset, "0") || len(r.value) < 4 {
			continue
		}
		v := zeroed(ly.pg.grey, r.box, r.value)
		if v == r.value {
			continue
		}
		if nv, ok := Normalize(f, v); ok {
			r.raw = "zeros: " + nv + " of " + r.raw
			r.value = nv
			rs[name] = r
		}
	}
}

// zeroWords corrects the page's words as openZeros does its values.
func zeroWords(g *image.Gray, ws []word) {
	for i, w := range ws {
		ws[i].text = zeroed(g, w.box, w.text)
	}
}

// zeroed is text, printed in box r of g, with each 6 whose glyph is
// closed on the right made a 0: only for text of letters and digits
// whose glyphs the ink separates one for one (else the glyphs cannot be
// paired with the letters, and the text is left as read).
func zeroed(g *image.Gray, r image.Rectangle, text string) string {
	if !strings.Contains(text, "6") || !alnumOnly(text) {
		return text
	}
	glyphs := glyphBoxes(g, r)
	if len(glyphs) != len(text) || !oneRow(glyphs) {
		return text
	}
	v := []byte(text)
	for i, c := range v {
		if c == '6' && zeroShaped(g, glyphs[i]) {
			v[i] = '0'
		}
	}
	return string(v)
}

// alnumOnly: s is two or more capital letters and digits, nothing else:
// print of one height, which oneRow can hold the glyphs to.
func alnumOnly(s string) bool {
	if len(s) < 2 {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// oneRow: the glyphs are one row of capitals and digits, each at least
// three quarters of the tallest's height, their tops within a quarter of
// it. Other print in the box (a faint caption PERMIT NO. in a zone read
// whole, whose letters and the value's happened to count as many as the
// value's characters, on a synth flow card of seed 16) pairs glyphs with
// the wrong characters: then nothing is corrected.
func oneRow(gs []glyph) bool {
	tall, top := 0, 1<<30
	for _, g := range gs {
		tall = max(tall, g.box.Dy())
		top = min(top, g.box.Min.Y)
	}
	for _, g := range gs {
		if 4*g.box.Dy() < 3*tall || 4*(g.box.Min.Y-top) > tall {
			return false
		}
	}
	return true
}

// glyph is one character's ink: its box and, row by row from the box's
// top, the rightmost column of ink (-1 for a row with none), relative to
// the box's left edge.
type glyph struct {
	box   image.Rectangle
	right []int
}

// glyphBoxes splits the print in box r of g into its glyphs: the ink
// (darker than the box's Otsu threshold) in 8-connected parts, parts
// whose columns overlap joined (a zero's dot, a broken stroke), specks
// under a third of the tallest part's height dropped, left to right.
func glyphBoxes(g *image.Gray, r image.Rectangle) []glyph {
	r = r.Inset(-2).Intersect(g.Bounds())
	w, h := r.Dx(), r.Dy()
	if w < 4 || h < 6 {
		return nil
	}
	var hist [256]int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for _, v := range g.Pix[y*g.Stride+r.Min.X : y*g.Stride+r.Max.X] {
			hist[v]++
		}
	}
	t := otsu(hist)
	ink := make([]bool, w*h)
	for y := 0; y < h; y++ {
		row := g.Pix[(r.Min.Y+y)*g.Stride+r.Min.X:]
		for x := 0; x < w; x++ {
			ink[y*w+x] = float64(row[x]) < t
		}
	}
	// Label the parts.
	label := make([]int, w*h)
	var parts []image.Rectangle
	var stack []int
	for i := range ink {
		if !ink[i] || label[i] != 0 {
			continue
		}
		parts = append(parts, image.Rectangle{Min: image.Pt(w, h)})
		n := len(parts)
		label[i] = n
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := p%w, p/w
			b := &parts[n-1]
			b.Min.X, b.Min.Y = min(b.Min.X, x), min(b.Min.Y, y)
			b.Max.X, b.Max.Y = max(b.Max.X, x+1), max(b.Max.Y, y+1)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					if q := ny*w + nx; ink[q] && label[q] == 0 {
						label[q] = n
						stack = append(stack, q)
					}
				}
			}
		}
	}
	tallest := 0
	for _, b := range parts {
		tallest = max(tallest, b.Dy())
	}
	// Join parts whose columns overlap by half the narrower, then drop
	// specks.
	group := make([]int, len(parts))
	for i := range group {
		group[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	for i := range parts {
		for j := i + 1; j < len(parts); j++ {
			a, b := parts[i], parts[j]
			ov := min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X)
			if 2*ov >= min(a.Dx(), b.Dx()) {
				group[find(j)] = find(i)
			}
		}
	}
	boxes := map[int]image.Rectangle{}
	for i, b := range parts {
		k := find(i)
		if u, ok := boxes[k]; ok {
			boxes[k] = u.Union(b)
		} else {
			boxes[k] = b
		}
	}
	var out []glyph
	for k, b := range boxes {
		if 3*b.Dy() < tallest {
			continue
		}
		gl := glyph{box: b.Add(r.Min), right: make([]int, b.Dy())}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			gl.right[y-b.Min.Y] = -1
			for x := b.Max.X - 1; x >= b.Min.X; x-- {
				if l := label[y*w+x]; l != 0 && find(l-1) == k {
					gl.right[y-b.Min.Y] = x - b.Min.X
					break
				}
			}
		}
		out = append(out, gl)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].box.Min.X < out[b].box.Min.X })
	return out
}

// closedRight: the glyph's ink reaches its right side in every row from
// a quarter to two fifths of its height, where a 6 is open (its top
// stroke ends above, its bowl starts below). Seven tenths of the width:
// a zero's right side lies at nine tenths and more there, a 6's stem at
// a third, in the print of the synth fonts (DejaVu, Liberation, Free,
// Carlito) and the HTML renderer's.
func closedRight(g glyph) bool {
	h, w := len(g.right), g.box.Dx()
	if h < 8 || w < 3 {
		return false
	}
	for y := h / 4; y <= 2*h/5; y++ {
		if 10*g.right[y] < 7*w {
			return false
		}
	}
	return true
}

// zeroShaped: the glyph is a zero's shape, not a 6's: closed on its right
// (closedRight), and its right side as dark over the upper band as over
// the lower (rightBalance at least 0.85). Blur can close a small 6's
// gap (1969 printed 22 px high on a soft synth type card of seed 16 read
// closed), but its thin top stroke still holds less ink at the right
// than its bowl: 0.62 there, against 0.98 to 1.03 for zeros, dotted or
// not, on that card and a Kenyan passport's W8770472.
func zeroShaped(g *image.Gray, gl glyph) bool {
	return closedRight(gl) && rightBalance(g, gl) >= 0.85
}

// rightBalance is the ink (darkness) in the glyph's right third over its
// rows from a fifth to two fifths of its height, against the same rows
// counted from its bottom.
func rightBalance(g *image.Gray, gl glyph) float64 {
	b := gl.box
	h, w := b.Dy(), b.Dx()
	x0 := b.Min.X + w*65/100
	mass := func(y0, y1 int) float64 {
		s := 0.0
		for y := b.Min.Y + y0; y < b.Min.Y+y1; y++ {
			for x := x0; x < b.Max.X; x++ {
				s += 255 - float64(g.Pix[y*g.Stride+x])
			}
		}
		return s
	}
	up, lo := mass(h/5, 2*h/5), mass(h-2*h/5, h-h/5)
	return up / max(lo, 1)
}
