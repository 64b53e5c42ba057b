package ocr

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/otiai10/gosseract/v2"
)

// pool holds tesseract clients. A client is not safe for concurrent use, so
// each zone read borrows one; the pool is as large as the number of
// workers that may read at once.
type pool struct {
	clients chan *gosseract.Client
	all     []*gosseract.Client
}

func newPool(n int) *pool {
	p := &pool{clients: make(chan *gosseract.Client, n)}
	for i := 0; i < n; i++ {
		c := gosseract.NewClient()
		// Tesseract reads a line it is unsure of a second time inverted
		// (light on dark). Zones reach it already dark on white (prepare),
		// so the second read only costs time: about 5 % of the reading
		// time on synth zones, where 2 of 400 raw readings changed and no
		// field of 78 cards did.
		c.SetVariable("tessedit_do_invert", "0")
		// Tesseract prints its own diagnostics ("Bottom=0, top=69 ...",
		// "Total count=0") on the process's standard error, which is the
		// server's JSON log stream: send them nowhere (issue 14).
		c.SetVariable("debug_file", os.DevNull)
		// Tesseract is initialised on a client's first recognition, and
		// initialising resets the page segmentation mode: the first read
		// of every client ran in mode 6 whatever it asked for (a side's
		// page read as one block). Initialise it now on a blank image.
		blank := image.NewGray(image.Rect(0, 0, 8, 8))
		for i := range blank.Pix {
			blank.Pix[i] = 255
		}
		if c.SetImageFromBytes(spix(blank)) == nil {
			_, _ = c.Text()
		}
		p.clients <- c
		p.all = append(p.all, c)
	}
	return p
}

func (p *pool) close() error {
	var first error
	for _, c := range p.all {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// reading is what tesseract made of one zone.
type reading struct {
	Text string
	// Conf is the mean word confidence (0..100).
	Conf float64
}

// read runs tesseract on a grey image with a whitelist and a page
// segmentation mode.
func (p *pool) read(ctx context.Context, img *image.Gray, whitelist string, psm int) (reading, error) {
	var c *gosseract.Client
	select {
	case c = <-p.clients:
	case <-ctx.Done():
		return reading{}, ctx.Err()
	}
	defer func() { p.clients <- c }()
	defer lockSingleThread()()
	if psm == 0 {
		psm = 7
	}
	if err := c.SetPageSegMode(gosseract.PageSegMode(psm)); err != nil {
		return reading{}, err
	}
	if err := c.SetWhitelist(whitelist); err != nil {
		return reading{}, err
	}
	if err := c.SetImageFromBytes(spix(img)); err != nil {
		return reading{}, err
	}
	boxes, err := c.GetBoundingBoxes(gosseract.RIL_SYMBOL)
	if err != nil {
		return reading{}, fmt.Errorf("ocr: tesseract: %w", err)
	}
	return assemble(boxes, psm != 6), nil
}

// assemble builds text from tesseract's symbols: lines from vertical
// overlap, spaces from horizontal gaps. Tesseract's own word breaks are
// unreliable on tightly set card print (it joins "A EB" and splits
// "M UTUA"); gaps measured against the line's own letter spacing are not.
// In a single-line read (every mode but 6) the symbols are one line:
// tesseract's symbol boxes on a soft capture are sometimes far too wide
// (a 170 px "E" in a 27 px line), and the symbol after one of them looked
// like the start of a new line ("KATER\nEGGA").
func assemble(boxes []gosseract.BoundingBox, singleLine bool) reading {
	var syms []sym
	var heights []int
	for _, b := range boxes {
		t := strings.TrimSpace(b.Word)
		if t == "" {
			continue
		}
		syms = append(syms, sym{b.Box, t, b.Confidence})
		heights = append(heights, b.Box.Dy())
	}
	if len(syms) == 0 {
		return reading{}
	}
	sort.Ints(heights)
	hMed := float64(heights[len(heights)/2])
	// Lines: a symbol that starts below the previous one, or well to its
	// left, starts a new line.
	var lines [][]sym
	for i, s := range syms {
		if i == 0 || !singleLine && (s.r.Min.Y >= syms[i-1].r.Max.Y || s.r.Min.X < syms[i-1].r.Min.X-int(hMed)) {
			lines = append(lines, nil)
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], s)
	}
	if singleLine {
		lines[0] = mainGroup(lines[0], hMed)
	}
	var b strings.Builder
	var conf float64
	n := 0
	for li, line := range lines {
		if li > 0 {
			b.WriteByte('\n')
		}
		gaps := make([]float64, 0, len(line))
		for i := 1; i < len(line); i++ {
			gaps = append(gaps, float64(line[i].r.Min.X-line[i-1].r.Max.X))
		}
		// Most gaps are between letters, so a low quantile is the
		// line's letter spacing, and a space is a gap well over it. How
		// far over depends on the print: tight card print sets letters
		// about 0.15 of their height apart and words 0.45 to 0.5
		// (condensed long names: a 16 px space between 6 px letter gaps
		// in a 32 px line); letter-spaced passport print sets letters
		// 0.35 apart at a constant pitch, so a narrow I or J leaves up
		// to 0.3 more either side (KENJ I), and words more than a whole
		// height. Tesseract's boxes on a soft capture may overlap
		// (negative gaps), hence the floor.
		limit := 0.42 * hMed
		if len(gaps) >= 2 {
			letter := quantile(gaps, 0.3)
			k := 0.25 + 0.35*math.Max(0, math.Min(1, (letter/hMed-0.2)/0.15))
			limit = math.Max(limit, letter+k*hMed)
		}
		for i, s := range line {
			if i > 0 && gaps[i-1] > limit {
				b.WriteByte(' ')
			}
			b.WriteString(s.t)
			conf += s.conf
			n++
		}
	}
	return reading{Text: b.String(), Conf: conf / float64(n)}
}

// sym is one symbol tesseract read: its box, text and confidence.
type sym struct {
	r    image.Rectangle
	t    string
	conf float64
}

// mainGroup keeps, of a single line, the run of symbols with the most
// symbols in it, runs being separated by gaps of more than 2.5 glyph
// heights: words of one value are never that far apart (passport print
// spaces them about one height), while a mark at the end of the zone
// (an emblem's edge, the next field's first letter) is ("URIO - Z",
// "MTWAPA CZ").
func mainGroup(line []sym, h float64) []sym {
	best, start := line[:0], 0
	for i := 1; i <= len(line); i++ {
		if i == len(line) || float64(line[i].r.Min.X-line[i-1].r.Max.X) > 2.5*h {
			if i-start > len(best) {
				best = line[start:i]
			}
			start = i
		}
	}
	return best
}

// quantile is the q-quantile of v (nearest rank below).
func quantile(v []float64, q float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}

// spix encodes a grey image in leptonica's own serial form ("spix": a
// header of 32-bit words, then the raster as leptonica holds it, 32-bit
// words with the first pixel in the most significant byte), which
// leptonica reads from memory with one copy. Its PNM reader takes a
// binary PGM a byte at a time through stdio, about 6 % of tesseract's
// time on the line reads. The raster is the one the PGM gives (8 bits,
// no colour map, no resolution), so tesseract reads the same pixels.
func spix(img *image.Gray) []byte {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	wpl := (w + 3) / 4
	out := make([]byte, 0, 4*7+4*wpl*h)
	out = append(out, "spix"...)
	for _, v := range []int{w, h, 8, wpl, 0, 4 * wpl * h} {
		out = binary.NativeEndian.AppendUint32(out, uint32(v))
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):][:w]
		for x := 0; x < 4*wpl; x += 4 {
			var word uint32
			for k := 0; k < 4; k++ {
				word <<= 8
				if x+k < w {
					word |= uint32(row[x+k])
				}
			}
			out = binary.NativeEndian.AppendUint32(out, word)
		}
	}
	return out
}
