package ocr

import (
	"context"
	"fmt"
	"image"
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
// "M UTUA"); gaps measured against the glyph height are not.
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
	var b strings.Builder
	var conf float64
	for i, s := range syms {
		if i > 0 {
			p := syms[i-1]
			switch {
			case s.r.Min.Y >= p.r.Max.Y || s.r.Min.X < p.r.Min.X-int(hMed):
				b.WriteByte('\n')
			case float64(s.r.Min.X-p.r.Max.X) > 0.42*hMed:
				b.WriteByte(' ')
			}
		}
		b.WriteString(s.t)
		conf += s.conf
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
