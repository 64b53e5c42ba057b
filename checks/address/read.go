package address

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/disintegration/imaging"
	"github.com/otiai10/gosseract/v2"

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
var DefaultLimits = Limits{PDFBytes: 10 << 20, PDFPages: 30, ReadPages: 2, ToolTime: 10 * time.Second, ToolMemory: 1 << 30}

// Errors of reading, each a reason the document cannot be examined.
var (
	ErrPDFEncrypted = errors.New("address: the PDF is encrypted")
	ErrPDFTooLarge  = errors.New("address: the PDF is too large")
	ErrPDFMalformed = errors.New("address: the PDF cannot be read")
	ErrNoText       = errors.New("address: no text found on the document")
)

// pageSide is the long side, in pixels, a page is read at: A4 at about
// 145 dpi, where 10-point print is 20 px high, in tesseract's good range.
// 2400 px read the same fields of the tuning bills at 1.8 times the CPU.
const pageSide = 2000

// Read reads a proof-of-address document: a PDF (its text layer, or its
// first page rasterised when it has none) or a photo or scan of a page.
func Read(ctx context.Context, data []byte, lim Limits) (*Page, error) {
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		return readPDF(ctx, data, lim)
	}
	img, err := vision.Decode(data)
	if err != nil {
		return nil, err
	}
	page, found := vision.RectifyPage(img, pageSide)
	src := "photo"
	if !found {
		src = "scan"
		page = fit(page, pageSide)
	}
	lines, err := ocrLines(ctx, page)
	if err != nil {
		return nil, err
	}
	return &Page{Lines: lines, Source: src, Pages: 1}, nil
}

// fit scales an image so its long side is at most side pixels (and at
// least half of it: a small scan is enlarged for tesseract).
func fit(img *image.NRGBA, side int) *image.NRGBA {
	b := img.Bounds()
	long := max(b.Dx(), b.Dy())
	if long > side || long < side/2 {
		if b.Dx() >= b.Dy() {
			return imaging.Resize(img, side, 0, imaging.Lanczos)
		}
		return imaging.Resize(img, 0, side, imaging.Lanczos)
	}
	return img
}

// ocrLines reads a page once with tesseract's automatic layout analysis
// and keeps every word with its box.
func ocrLines(ctx context.Context, img image.Image) ([]Line, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer tess.LockSingleThread()()
	c := gosseract.NewClient()
	defer c.Close()
	// The page is grey print on white: tesseract's second, inverted
	// reading of unsure lines finds nothing here and costs time.
	if err := c.SetVariable("tessedit_do_invert", "0"); err != nil {
		return nil, err
	}
	if err := c.SetPageSegMode(gosseract.PSM_AUTO); err != nil {
		return nil, err
	}
	if err := c.SetImageFromBytes(pgm(img)); err != nil {
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
		words = append(words, word{text: t, box: b.Box})
	}
	if len(words) == 0 {
		return nil, ErrNoText
	}
	return linesOf(words), nil
}

func hasAlnum(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

var (
	pagesRe     = regexp.MustCompile(`(?m)^Pages:\s+(\d+)`)
	encryptedRe = regexp.MustCompile(`(?m)^Encrypted:\s+yes`)
)

// readPDF reads a PDF with poppler's tools (Debian poppler-utils): they
// read the PDFs real issuers produce, including damaged ones, and run as
// separate processes bounded in time and memory, so a hostile file cannot
// take the server down with it.
func readPDF(ctx context.Context, data []byte, lim Limits) (*Page, error) {
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
	info, err := tool(ctx, lim, "pdfinfo", file)
	if err != nil {
		if encryptedRe.Match(info) || bytes.Contains(info, []byte("Incorrect password")) {
			return nil, ErrPDFEncrypted
		}
		return nil, fmt.Errorf("%w: %v", ErrPDFMalformed, err)
	}
	if encryptedRe.Match(info) {
		return nil, ErrPDFEncrypted
	}
	m := pagesRe.FindSubmatch(info)
	if m == nil {
		return nil, fmt.Errorf("%w: no page count", ErrPDFMalformed)
	}
	pages, _ := strconv.Atoi(string(m[1]))
	if pages < 1 || pages > lim.PDFPages {
		return nil, fmt.Errorf("%w: %d pages, at most %d", ErrPDFTooLarge, pages, lim.PDFPages)
	}
	last := strconv.Itoa(min(pages, lim.ReadPages))
	text, err := tool(ctx, lim, "pdftotext", "-layout", "-enc", "UTF-8", "-f", "1", "-l", last, file, "-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPDFMalformed, err)
	}
	if letters(text) >= 40 {
		return &Page{Lines: textLines(string(text)), Source: "pdf_text", Pages: pages}, nil
	}
	// No text layer: a scan saved as PDF. Its first page is rasterised at
	// 200 dpi (A4 comes out near pageSide) and read like a photo.
	if _, err := tool(ctx, lim, "pdftoppm", "-r", "200", "-f", "1", "-l", "1", "-singlefile", "-png",
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
	lines, err := ocrLines(ctx, img)
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

// tool runs a poppler command under the limits: prlimit caps its address
// space and CPU time, the context its wall time. It returns stdout, or
// stderr with the error.
func tool(ctx context.Context, lim Limits, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, lim.ToolTime)
	defer cancel()
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%s is not installed (Debian poppler-utils; make setup installs it): %w", name, err)
	}
	argv := append([]string{path}, args...)
	if pl, err := exec.LookPath("prlimit"); err == nil {
		argv = append([]string{pl, "--as=" + strconv.FormatInt(lim.ToolMemory, 10),
			"--cpu=" + strconv.Itoa(int(lim.ToolTime.Seconds())+1), "--"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return stderr.Bytes(), fmt.Errorf("%s took longer than %s", name, lim.ToolTime)
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return append(stdout.Bytes(), stderr.Bytes()...), fmt.Errorf("%s: %v: %s", name, err, msg)
	}
	return stdout.Bytes(), nil
}

// pgm encodes the image's luminance as a binary PGM, which leptonica reads
// without a codec: a fifth of the cost of a PNG round trip.
func pgm(img image.Image) []byte {
	g := imaging.Grayscale(img)
	b := g.Bounds()
	head := "P5\n" + strconv.Itoa(b.Dx()) + " " + strconv.Itoa(b.Dy()) + "\n255\n"
	out := make([]byte, 0, len(head)+b.Dx()*b.Dy())
	out = append(out, head...)
	for y := 0; y < b.Dy(); y++ {
		row := g.Pix[y*g.Stride : y*g.Stride+b.Dx()*4]
		for x := 0; x < len(row); x += 4 {
			out = append(out, row[x])
		}
	}
	return out
}
