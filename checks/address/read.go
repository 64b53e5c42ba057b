package address

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/otiai10/gosseract/v2"

	"github.com/tambua/tambua/checks/address/pdf"
	"github.com/tambua/tambua/checks/internal/tess"
	"github.com/tambua/tambua/vision"
)

// Limits bound the work one document may cause.
type Limits struct {
	// PDFBytes is the largest PDF accepted.
	PDFBytes int
	// PDFPages is the most pages a PDF may have; only the first ReadPages
	// are read (the holder's name, address and date are on the first).
	PDFPages, ReadPages int
	// ToolTime bounds each run of a PDF tool.
	ToolTime time.Duration
	// ToolMemory bounds each PDF tool's address space, in bytes.
	ToolMemory int64
}

// DefaultLimits: a bank statement of a few months, read in bounded time.
var DefaultLimits = Limits{PDFBytes: pdf.DefaultLimits.Bytes, PDFPages: pdf.DefaultLimits.Pages, ReadPages: 2,
	ToolTime: pdf.DefaultLimits.ToolTime, ToolMemory: pdf.DefaultLimits.ToolMemory}

// tools are the limits the PDF tools run under.
func (lim Limits) tools() pdf.Limits {
	return pdf.Limits{Bytes: lim.PDFBytes, Pages: lim.PDFPages, ToolTime: lim.ToolTime, ToolMemory: lim.ToolMemory}
}

// Errors of reading, each a reason the document cannot be examined.
var (
	ErrPDFEncrypted = pdf.ErrEncrypted
	ErrPDFTooLarge  = pdf.ErrTooLarge
	ErrPDFMalformed = pdf.ErrMalformed
	ErrNoText       = errors.New("address: no text found on the document")
)

// A page is read at the size its print needs, measured on the page
// itself: a probe of probeSide pixels is warped first, the height of its
// body text measured (textHeight), and the page warped again from the
// photo so that this height comes out textTarget pixels. Tesseract's cost
// grows with the pixels it is given while its recognition scales every
// line to its own height anyway, so reading small print large and large
// print small gives the same words for less.
const (
	// probeSide: A4 at about 85 dpi, where 9-point print (the smallest on
	// the tuning bills) is still 7 px high, enough to be measured.
	probeSide = 1000
	// textTarget: the body text's measured height, in pixels, the page is
	// read at. Chosen on the tuning families (seed 7): see docs/address.md.
	textTarget = 17
	// minSide, maxSide bound the long side read, so that a page whose
	// print was mismeasured is still read at a size that was tried: no
	// smaller than the probe, no larger than A4 at 220 dpi (2600 px,
	// where 7-point capitals are 15 px). A page on which no print was
	// measured is read at pageSide.
	minSide, maxSide = 1000, 2600
	// pageSide: the long side a page is read at when its print could not
	// be measured: A4 at about 170 dpi, the size the fields of the tuning
	// bills were first read at (2400 px cost 1.8 times the CPU for the
	// same fields).
	pageSide = 2000
)

// Read reads a proof-of-address document: a PDF (its text layer, or its
// first page rasterised when it has none) or a photo or scan of a page.
func Read(ctx context.Context, data []byte, lim Limits) (*Page, error) {
	return ReadUntil(ctx, data, lim, nil)
}

// ReadUntil is Read that stops reading an image once enough (when not nil)
// says the lines read so far are enough to judge the document; the page is
// read from the top, in parts (a text layer is read whole).
func ReadUntil(ctx context.Context, data []byte, lim Limits, enough func([]Line) bool) (*Page, error) {
	if pdf.Is(data) {
		return readPDF(ctx, data, lim, enough)
	}
	img, err := vision.Decode(data)
	if err != nil {
		return nil, err
	}
	src := "photo"
	q, found := vision.FindPage(img)
	var screen []string
	if !found {
		src, q = "scan", quadOf(img.Bounds())
		screen = screenEvidence(luminance(img))
	}
	lines, err := readImage(ctx, luminance(img), q, found, enough)
	if err != nil {
		return nil, err
	}
	return &Page{Lines: lines, Source: src, Pages: 1, Screen: screen}, nil
}

// Screenshots of apps are refused like the other kinds that do not prove
// an address. An image with no page outline in it is a scan, a tight crop
// or a screenshot; what tells a screenshot is its shape and its flatness.
const (
	// screenAspect: long side over short side from which an image has a
	// phone screen's shape (16:9 is 1.78, 20:9 is 2.22) and no paper's:
	// A4 is 1.41, US letter 1.29, US legal 1.65.
	screenAspect = 1.7
	// screenFlat: the share of pixels at the one most common grey level
	// from which the background was drawn, not photographed: an app draws
	// its background in one exact colour, while sensor noise and the
	// paper's texture spread a photo's (a camera's 16:9 frame filled by a
	// page) over many levels, a few percent at each. Set by that
	// difference, not fitted to samples.
	screenFlat = 0.4
)

// screenEvidence says why an image without a page outline is a screenshot,
// or nil when it is not one.
func screenEvidence(g *image.Gray) []string {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w < 1 || h < 1 {
		return nil
	}
	aspect := float64(max(w, h)) / float64(min(w, h))
	if aspect < screenAspect {
		return nil
	}
	var hist [256]int
	off := g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y)
	for y := 0; y < h; y++ {
		for _, v := range g.Pix[off+y*g.Stride : off+y*g.Stride+w] {
			hist[v]++
		}
	}
	mode := slices.Max(hist[:])
	flat := float64(mode) / float64(w*h)
	if flat < screenFlat {
		return nil
	}
	return []string{fmt.Sprintf("screen shape %.2f:1", aspect), fmt.Sprintf("drawn background %.0f %%", 100*flat)}
}

// readImage warps the quad q of a grey image upright at the size its print
// needs and reads it. a4 says q is a page outline found in a photo (warped
// to A4's shape) rather than the image's own bounds. The page is read in
// parts from the top (see preparePage); when enough is not nil and says
// the lines read so far are enough to judge the document, the rest is not
// read.
func readImage(ctx context.Context, g *image.Gray, q vision.Quad, a4 bool, enough func([]Line) bool) ([]Line, error) {
	parts := preparePage(g, q, a4)
	if len(parts) == 0 {
		return nil, ErrNoText
	}
	var words []word
	for i, p := range parts {
		ws, err := ocrWords(ctx, p.img, p.place)
		if err != nil {
			return nil, err
		}
		words = append(words, ws...)
		if i < len(parts)-1 && enough != nil && len(words) > 0 && enough(linesOf(slices.Clone(words))) {
			break
		}
	}
	if len(words) == 0 {
		return nil, ErrNoText
	}
	return linesOf(words), nil
}

// part is an image tesseract reads and where (when place is not nil) a box
// on it lies on the page.
type part struct {
	img   *image.Gray
	place func(image.Rectangle) image.Rectangle
}

// headShare is how far down the page the first part read reaches: the
// bands of print that start in the top 30 %. A bill's or statement's
// addressee block sits where a window envelope shows it, 45 to 90 mm down
// an A4 page (15 to 30 %), with the issuer, the title and the dates above
// or beside it; tables of charges or transactions, notices and footers
// follow. Not fitted to the synthetic bills: a document whose name, date
// or address is further down is read whole, only slower.
const headShare = 0.30

// headBands is how many of the bands (padded by a print height th, as
// textBands makes them) are read first: those that start above the row
// cut, and after them any that start within four print heights of the last
// one's print. A line up to two and a half line heights under another
// counts as under it (below), and a line with descenders is about 1.3
// print heights, so an address block is never cut in two between the
// parts.
func headBands(bands [][2]int, th, cut float64) int {
	pad := math.Ceil(th)
	n := 0
	for n < len(bands) && float64(bands[n][0]) < cut {
		n++
	}
	for n > 0 && n < len(bands) && float64(bands[n][0]-bands[n-1][1])+2*pad < 4*th {
		n++
	}
	return n
}

// preparePage is what readImage gives tesseract, in reading order: the
// page warped at the size its print needs, its blank stretches left out
// (bands of print stacked), split into the bands that start in the top
// headShare of the page and the others. A page whose print could not be
// measured, or that is printed all over, is one part, read whole.
func preparePage(g *image.Gray, q vision.Quad, a4 bool) []part {
	long, th := pageSide, 0.0
	var bands [][2]int
	var edge margins
	w, h := pageSize(q, probeSide, a4)
	if probe, ok := warpGray(g, q, w, h); ok {
		ink := inkMask(probe)
		edge = edgeSlivers(w, h, ink)
		clearMask(w, h, ink, edge)
		if th = heightOf(w, h, ink); th > 0 {
			long = min(maxSide, max(minSide, int(probeSide*textTarget/th+0.5)))
			bands = textBands(w, h, ink, th)
		}
	}
	pw, ph := pageSize(q, long, a4)
	wp, ok := newWarp(g, q, pw, ph)
	if !ok {
		return nil
	}
	// The edge's slivers, found on the probe, at the page's size: a probe
	// pixel covers up to ceil(f) page pixels, and one more is taken for
	// the sampling's blur.
	fx, fy := float64(pw)/float64(w), float64(ph)/float64(h)
	grow := func(n int, f float64) int {
		if n == 0 {
			return 0
		}
		return int(math.Ceil(float64(n)*f)) + 1
	}
	edge = margins{left: grow(edge.left, fx), right: grow(edge.right, fx), top: grow(edge.top, fy), bottom: grow(edge.bottom, fy)}
	if bands == nil {
		page := image.NewGray(image.Rect(0, 0, pw, ph))
		wp.rows(page, 0, 0, ph)
		paintMargins(page, edge)
		return []part{{img: page}}
	}
	// The bands, found on the probe, at the page's size, within the edge's
	// slivers; only their rows are rendered. The gap between them is three
	// print heights, more than the two and a half within which one line is
	// taken to be under another (below).
	n := headBands(bands, th, headShare*float64(h))
	head := 0
	var kept [][2]int
	for i, b := range bands {
		y0, y1 := max(edge.top, int(float64(b[0])*fy)), min(ph-edge.bottom, int(math.Ceil(float64(b[1])*fy)))
		if y1 <= y0 {
			continue
		}
		kept = append(kept, [2]int{y0, y1})
		if i < n {
			head = len(kept)
		}
	}
	gap := int(3*th*fy + 0.5)
	var parts []part
	for _, bs := range [][][2]int{kept[:head], kept[head:]} {
		if len(bs) > 0 {
			st := stackRows(pw, bs, gap, wp.rows)
			paintMargins(st.img, margins{left: edge.left, right: edge.right})
			parts = append(parts, part{st.img, st.toPage})
		}
	}
	return parts
}

// clients keeps initialised tesseract clients between documents: loading
// the model costs about 120 ms of CPU, a fifth of reading a page. At most
// one per core is kept; more may exist while documents are read at once.
var clients = make(chan *gosseract.Client, runtime.GOMAXPROCS(0))

func client() (*gosseract.Client, error) {
	select {
	case c := <-clients:
		return c, nil
	default:
	}
	c := gosseract.NewClient()
	for _, v := range [][2]string{
		// The page is grey print on light paper: tesseract's second,
		// inverted reading of unsure lines finds nothing here and costs
		// time.
		{"tessedit_do_invert", "0"},
		// Tesseract's diagnostics ("Line cannot be recognized!!") go to
		// standard error, the server's JSON log stream (issue 14).
		{"debug_file", os.DevNull},
	} {
		if err := c.SetVariable(gosseract.SettableVariable(v[0]), v[1]); err != nil {
			c.Close()
			return nil, err
		}
	}
	// Tesseract initialises on a client's first reading, which resets the
	// page segmentation mode: initialise it now, on a blank image, so the
	// mode set for each page holds.
	blank := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range blank.Pix {
		blank.Pix[i] = 255
	}
	if err := c.SetImageFromBytes(grayPGM(blank)); err != nil {
		c.Close()
		return nil, err
	}
	if _, err := c.Text(); err != nil {
		c.Close()
		return nil, fmt.Errorf("address: tesseract: %w", err)
	}
	return c, nil
}

func release(c *gosseract.Client) {
	select {
	case clients <- c:
	default:
		c.Close()
	}
}

// pageMode is tesseract's page segmentation: the page as one block of
// text, whose rows tesseract finds across columns; linesOf splits them at
// wide gaps. It is what the first version ran (tesseract's initialisation
// had reset the automatic mode it asked for), and automatic layout analysis
// cost more for the same fields on the tuning bills.
const pageMode = gosseract.PSM_SINGLE_BLOCK

// ocrWords reads an image once and keeps every word with its box, moved
// by place (when not nil) to where it is on the page.
func ocrWords(ctx context.Context, img *image.Gray, place func(image.Rectangle) image.Rectangle) ([]word, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer tess.LockSingleThread()()
	c, err := client()
	if err != nil {
		return nil, err
	}
	defer release(c)
	if err := c.SetPageSegMode(pageMode); err != nil {
		return nil, err
	}
	if err := c.SetImageFromBytes(grayPGM(img)); err != nil {
		return nil, err
	}
	boxes, err := c.GetBoundingBoxes(gosseract.RIL_WORD)
	if err != nil {
		return nil, fmt.Errorf("address: tesseract: %w", err)
	}
	var words []word
	for _, b := range boxes {
		t := strings.TrimSpace(b.Word)
		// Words tesseract is least sure of are mostly artwork and noise;
		// 30 keeps every word of the tuning bills' print.
		// Slivers at the page's edge (its border, the desk) are no print;
		// punctuation standing alone ("-" in "BOX 1 - 00100") is kept when
		// tesseract is sure of it.
		if t == "" || b.Confidence < 30 || b.Box.Dx() < 3 || !hasAlnum(t) && b.Confidence < 60 {
			continue
		}
		box := b.Box
		if place != nil {
			box = place(box)
		}
		words = append(words, word{text: t, box: box})
	}
	return words, nil
}

func hasAlnum(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// readPDF reads a PDF with poppler's tools (Debian poppler-utils): they
// read the PDFs real issuers produce, including damaged ones, and run as
// separate processes bounded in time and memory, so a hostile file cannot
// take the server down with it.
func readPDF(ctx context.Context, data []byte, lim Limits, enough func([]Line) bool) (*Page, error) {
	if len(data) > lim.PDFBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrPDFTooLarge, len(data), lim.PDFBytes)
	}
	dir, err := os.MkdirTemp("", "tambua-pdf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return nil, err
	}
	pages, err := pdf.Pages(ctx, lim.tools(), file)
	if err != nil {
		return nil, err
	}
	last := strconv.Itoa(min(pages, lim.ReadPages))
	text, err := pdf.Tool(ctx, lim.tools(), "pdftotext", "-layout", "-enc", "UTF-8", "-f", "1", "-l", last, file, "-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPDFMalformed, err)
	}
	if letters(text) >= 40 {
		return &Page{Lines: textLines(string(text)), Source: "pdf_text", Pages: pages}, nil
	}
	// No text layer: a scan saved as PDF. Its first page is rasterised in
	// grey at 200 dpi, no larger than pageSide (A4 comes out near it), and
	// read like a scan.
	if _, err := pdf.Tool(ctx, lim.tools(), "pdftoppm", "-r", "200", "-f", "1", "-l", "1", "-singlefile", "-png", "-gray",
		"-scale-to", strconv.Itoa(pageSide), file, filepath.Join(dir, "page")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPDFMalformed, err)
	}
	raster, err := os.ReadFile(filepath.Join(dir, "page.png"))
	if err != nil {
		return nil, fmt.Errorf("%w: no page image", ErrPDFMalformed)
	}
	img, err := png.Decode(bytes.NewReader(raster))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPDFMalformed, err)
	}
	lines, err := readImage(ctx, luminance(img), quadOf(img.Bounds()), false, enough)
	if err != nil {
		return nil, err
	}
	return &Page{Lines: lines, Source: "pdf_scan", Pages: pages}, nil
}

func letters(b []byte) int {
	n := 0
	for _, r := range string(b) {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
