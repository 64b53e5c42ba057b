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
		if i == 0 || !singleLine && (s.r.Min.Y >= syms[i-1].r.Max.Y || s.r.Min.X < syms[i-1].r.Min.X-int(hMed)) {
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
		// A gap is measured edge to edge in proportional print, where
		// letters are set a constant distance apart, and centre to
		// centre in letter-spaced passport print, which sets them at a
		// constant pitch and so leaves wide gaps beside a narrow I or J.
		centres := make([]float64, len(gaps))
		for i := range centres {
			a, c := line[i].r, line[i+1].r
			centres[i] = float64(c.Min.X+c.Max.X-a.Min.X-a.Max.X) / 2
		}
		space := make([]bool, len(gaps))
		switch {
		case len(gaps) < 2:
			for i, g := range gaps {
				space[i] = g > 0.42*hMed
			}
		case monospaced(gaps, centres):
			// A space adds about a whole pitch.
			pitch := quantile(centres, 0.3)
			for i, c := range centres {
				space[i] = c > pitch+0.4*hMed
			}
		default:
			// Most gaps are between letters, so a low quantile is the
			// letter spacing, and a space is a gap well over it. Tight
			// card print spaces letters by 0.15 of their height and words
			// by 0.5, condensed long names by less (a 16 px space between
			// 6 px letter gaps in a 32 px line).
			letter := quantile(gaps, 0.3)
			for i, g := range gaps {
				space[i] = g > math.Max(0.3*hMed, letter+0.25*hMed)
			}
		}
		for i, s := range line {
			if i > 0 && space[i-1] {
				b.WriteByte(' ')
			}
			b.WriteString(s.t)
			conf += s.conf
		}
	}
	return reading{Text: b.String(), Conf: conf / float64(len(syms))}
}

// monospaced tells whether letters are set at a constant pitch (their
// centres spread less than their gaps), judged on the pairs that are
// likely letters, not words: gaps up to the line's 70th percentile.
func monospaced(gaps, centres []float64) bool {
	limit := quantile(gaps, 0.7)
	var g, c []float64
	for i := range gaps {
		if gaps[i] <= limit {
			g, c = append(g, gaps[i]), append(c, centres[i])
		}
	}
	return len(g) >= 2 && spread(c) < 0.7*spread(g)
}

// quantile is the q-quantile of v (nearest rank below).
func quantile(v []float64, q float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}

// spread is the standard deviation of v.
func spread(v []float64) float64 {
	var sum, sq float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	return math.Sqrt(sq / float64(len(v)))
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
