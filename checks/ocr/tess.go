package ocr

import (
	"context"
	"fmt"
	"image"
	"math"
	"sort"
	"strconv"
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
	if err := c.SetImageFromBytes(pgm(img)); err != nil {
		return reading{}, err
	}
	boxes, err := c.GetBoundingBoxes(gosseract.RIL_SYMBOL)
	if err != nil {
		return reading{}, fmt.Errorf("ocr: tesseract: %w", err)
	}
	return assemble(boxes), nil
}

// assemble builds text from tesseract's symbols: lines from vertical
// overlap, spaces from horizontal gaps. Tesseract's own word breaks are
// unreliable on tightly set card print (it joins "A EB" and splits
// "M UTUA"); gaps measured against the glyph height are not. Letter-spaced
// print (passports) leaves wide gaps beside narrow letters such as I and
// J, so a gap is a space only when it is also well over the line's usual
// gap between letters.
func assemble(boxes []gosseract.BoundingBox) reading {
	type sym struct {
		r    image.Rectangle
		t    string
		conf float64
	}
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
		if i == 0 || s.r.Min.Y >= syms[i-1].r.Max.Y || s.r.Min.X < syms[i-1].r.Min.X-int(hMed) {
			lines = append(lines, nil)
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], s)
	}
	var b strings.Builder
	var conf float64
	for li, line := range lines {
		if li > 0 {
			b.WriteByte('\n')
		}
		gaps := make([]float64, 0, len(line))
		for i := 1; i < len(line); i++ {
			gaps = append(gaps, float64(line[i].r.Min.X-line[i-1].r.Max.X))
		}
		space := 0.42 * hMed
		if len(gaps) >= 4 {
			// Most gaps are between letters: a low quantile is the
			// letter spacing even when a few word spaces are among them.
			// A short line ("A B", "AB CM") has too few gaps to tell.
			sorted := append([]float64(nil), gaps...)
			sort.Float64s(sorted)
			space = math.Max(space, sorted[int(0.3*float64(len(sorted)-1))]+0.34*hMed)
		}
		for i, s := range line {
			if i > 0 && gaps[i-1] > space {
				b.WriteByte(' ')
			}
			b.WriteString(s.t)
			conf += s.conf
		}
	}
	return reading{Text: b.String(), Conf: conf / float64(len(syms))}
}

// pgm encodes a grey image as binary PNM, which leptonica reads from memory
// without a codec's cost.
func pgm(img *image.Gray) []byte {
	b := img.Bounds()
	head := "P5\n" + strconv.Itoa(b.Dx()) + " " + strconv.Itoa(b.Dy()) + "\n255\n"
	out := make([]byte, 0, len(head)+b.Dx()*b.Dy())
	out = append(out, head...)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		i := img.PixOffset(b.Min.X, y)
		out = append(out, img.Pix[i:i+b.Dx()]...)
	}
	return out
}
