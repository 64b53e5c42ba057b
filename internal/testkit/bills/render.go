package bills

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/tambua/tambua/internal/testkit/cardtest"
)

// The page is A4 at 200 dpi.
const (
	pageW, pageH = 1654, 2339
	dpi          = 200.0
)

// Fonts from Debian's fonts-dejavu-core and fonts-liberation2 (make setup
// installs them).
const (
	sans      = "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"
	sansBold  = "/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf"
	serif     = "/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf"
	serifBold = "/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf"
	dejavu    = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
)

// item is one run of text on the page: its baseline origin in pixels, its
// size in points.
type item struct {
	x, y  int
	size  float64
	font  string
	text  string
	color color.NRGBA
}

// document is a page: text items and ruled boxes.
type document struct {
	items []item
	boxes []image.Rectangle
	tint  color.NRGBA
}

var ink = color.NRGBA{20, 20, 30, 255}

// layout places the case's content as its family does.
func layout(r *rand.Rand, family string, c Case, is issuerDef) document {
	d := document{tint: color.NRGBA{255, 255, 255, 255}}
	add := func(x, y int, size float64, f, text string) {
		d.items = append(d.items, item{x, y, size, f, text, ink})
	}
	reg, bold := sans, sansBold
	account := fmt.Sprintf("%d%07d", 1+r.IntN(9), r.IntN(10000000))
	due := c.IssueDate.AddDate(0, 0, 14+r.IntN(10))
	amount := fmt.Sprintf("%d,%03d.%02d", 1+r.IntN(9), r.IntN(1000), r.IntN(100))
	jitter := func(v int) int { return v + r.IntN(41) - 20 }
	switch family {
	case "classic":
		add(jitter(120), jitter(170), 20, bold, is.name)
		add(jitter(120), 240, 14, reg, is.title)
		y := jitter(430)
		add(120, y, 12, bold, c.PrintedName)
		for i, l := range c.Address {
			add(120, y+50*(i+1), 12, reg, l)
		}
		x := jitter(1000)
		for i, kv := range [][2]string{{"Account No:", account}, {"Bill Date:", c.IssueDate.Format("02/01/2006")},
			{"Due Date:", due.Format("02/01/2006")}, {"Amount Due:", amount}} {
			add(x, y+50*i, 11, reg, kv[0]+" "+kv[1])
		}
		ty := y + 450
		for i, l := range is.extra {
			add(120, ty+55*i, 11, reg, l)
		}
		d.boxes = append(d.boxes, image.Rect(100, ty-60, pageW-100, ty+55*len(is.extra)+20))
	case "statement":
		add(jitter(120), jitter(170), 18, bold, is.name)
		add(120, 250, 13, bold, is.title)
		y := jitter(400)
		add(120, y, 11, reg, "Account Name:")
		add(420, y, 11, bold, c.PrintedName)
		add(120, y+55, 11, reg, "Address:")
		for i, l := range c.Address {
			add(420, y+55*(i+1), 11, reg, l)
		}
		x := jitter(1150)
		add(x, y, 10, reg, "Statement Date")
		add(x, y+45, 11, bold, c.IssueDate.Format("2 January 2006"))
		add(x, y+110, 10, reg, "Payment due")
		add(x, y+155, 11, reg, due.Format("2 January 2006"))
		ty := y + 55*(len(c.Address)+2) + 60
		add(120, ty, 11, reg, "Account No: "+account)
		for i, l := range is.extra {
			add(120, ty+60*(i+1), 11, reg, l)
		}
	case "compact":
		add(jitter(140), jitter(160), 16, bold, is.name)
		add(140, 230, 12, reg, is.title)
		y := jitter(380)
		rows := [][2]string{{"Customer Name", c.PrintedName}, {"Account Number", account},
			{"Date of Issue", c.IssueDate.Format("2006-01-02")}, {"Service Address", c.Address[0]}}
		for i, kv := range rows {
			add(140, y+60*i, 11, reg, kv[0])
			add(620, y+60*i, 11, reg, kv[1])
		}
		for i, l := range c.Address[1:] {
			add(620, y+60*(len(rows)+i), 11, reg, l)
		}
		ty := y + 60*(len(rows)+len(c.Address)) + 40
		add(140, ty, 11, reg, "Pay by "+due.Format("2006-01-02")+"   Total "+amount)
		for i, l := range is.extra {
			add(140, ty+60*(i+1), 11, reg, l)
		}
	default: // heldout: serif, centred header, addressee block on the right,
		// bilingual labels, month-first dates, the due date printed first.
		reg, bold = serif, serifBold
		d.tint = color.NRGBA{250, 248, 240, 255}
		add(jitter(pageW/2-14*len(is.name)), jitter(190), 19, bold, is.name)
		add(pageW/2-10*len(is.title), 265, 13, reg, is.title)
		y := jitter(420)
		add(120, y, 11, reg, "Tarehe ya mwisho / Due date: "+due.Format("January 2, 2006"))
		add(120, y+55, 11, reg, "Tarehe ya bili / Bill date: "+c.IssueDate.Format("January 2, 2006"))
		add(120, y+110, 11, reg, "Akaunti / Account: "+account)
		x := jitter(930)
		add(x, y, 12, bold, strings.ToUpper(c.PrintedName))
		for i, l := range c.Address {
			add(x, y+50*(i+1), 11, reg, titleCase(l))
		}
		ty := y + 420
		d.boxes = append(d.boxes, image.Rect(100, ty-60, pageW-100, ty+60*len(is.extra)+40))
		for i, l := range is.extra {
			add(130, ty+60*i, 11, reg, l)
		}
		add(130, ty+60*len(is.extra)+110, 10, reg, "Asante kwa kulipa kwa wakati. Thank you for paying on time.")
	}
	add(120, pageH-150, 9, reg, fmt.Sprintf("%s - customer care 0800 %03d %03d", is.name, r.IntN(1000), r.IntN(1000)))
	return d
}

var (
	faceMu sync.Mutex
	fonts  = map[string]*opentype.Font{}
	faces  = map[string]font.Face{}
)

func face(path string, size float64) (font.Face, error) {
	faceMu.Lock()
	defer faceMu.Unlock()
	key := fmt.Sprintf("%s@%g", path, size)
	if f, ok := faces[key]; ok {
		return f, nil
	}
	f, ok := fonts[path]
	if !ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("bills: font %s (make setup installs fonts-liberation2): %w", path, err)
		}
		if f, err = opentype.Parse(b); err != nil {
			return nil, err
		}
		fonts[path] = f
	}
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: dpi, Hinting: font.HintingFull})
	if err != nil {
		return nil, err
	}
	faces[key] = fc
	return fc, nil
}

// Page renders the case's document flat, as printed.
func (c Case) Page() (*image.NRGBA, error) {
	img := image.NewNRGBA(image.Rect(0, 0, pageW, pageH))
	draw.Draw(img, img.Bounds(), image.NewUniform(c.doc.tint), image.Point{}, draw.Src)
	for _, b := range c.doc.boxes {
		for x := b.Min.X; x < b.Max.X; x++ {
			for t := 0; t < 2; t++ {
				img.Set(x, b.Min.Y+t, ink)
				img.Set(x, b.Max.Y-t, ink)
			}
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for t := 0; t < 2; t++ {
				img.Set(b.Min.X+t, y, ink)
				img.Set(b.Max.X-t, y, ink)
			}
		}
	}
	for _, it := range c.doc.items {
		fc, err := face(it.font, it.size)
		if err != nil {
			return nil, err
		}
		dr := font.Drawer{Dst: img, Src: image.NewUniform(it.color), Face: fc, Dot: fixed.P(it.x, it.y)}
		dr.DrawString(it.text)
	}
	return img, nil
}

// Bytes renders the case in its format: a phone photo (JPEG) of the
// printed page, a PDF with a text layer, or a PDF holding a scan.
func (c Case) Bytes(seed uint64) ([]byte, error) {
	switch c.Format {
	case "pdf_text":
		return c.textPDF(), nil
	}
	page, err := c.Page()
	if err != nil {
		return nil, err
	}
	if c.Format == "pdf_scan" {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, page, &jpeg.Options{Quality: 80}); err != nil {
			return nil, err
		}
		return imagePDF(b.Bytes(), pageW, pageH), nil
	}
	r := rand.New(rand.NewPCG(seed, hash(c.ID)))
	data, _, err := cardtest.Photo(page, cardtest.Scene{Width: 1800, Height: 2400, Fill: 0.86 + 0.06*r.Float64(),
		Angle: r.Float64()*6 - 3, Tilt: 0.03 * r.Float64(), Blur: 0.4 + 0.5*r.Float64(), Seed: seed ^ hash(c.ID), Quality: 85})
	return data, err
}

// textPDF writes the document as a one-page PDF whose text is a text
// layer in Helvetica, the way billing systems print to PDF.
func (c Case) textPDF() []byte {
	var content bytes.Buffer
	for _, it := range c.doc.items {
		x := float64(it.x) * 72 / dpi
		y := (pageH - float64(it.y)) * 72 / dpi
		f := "/F1"
		if strings.Contains(it.font, "Bold") {
			f = "/F2"
		}
		fmt.Fprintf(&content, "BT %s %.1f Tf %.2f %.2f Td (%s) Tj ET\n", f, it.size, x, y, pdfEscape(it.text))
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()),
	}
	return PDF(objs, "")
}

// imagePDF writes a one-page PDF showing a JPEG, as a scanner saves one.
func imagePDF(jpg []byte, w, h int) []byte {
	content := "q 595 0 0 842 0 0 cm /Im1 Do Q"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream",
			w, h, len(jpg), jpg),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	return PDF(objs, "")
}

// TextPages is a PDF of n pages, each saying one line of text in
// Helvetica: the shape of a statement download, for tests of PDF intake.
func TextPages(n int, text string) []byte {
	kids := make([]string, n)
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	for i := range n {
		content := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", pdfEscape(text))
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", len(objs)))
		kids[i] = fmt.Sprintf("%d 0 R", len(objs))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return PDF(objs, "")
}

// PDF assembles a PDF file from object bodies (numbered from 1, the
// first the catalogue) with extra trailer entries.
func PDF(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return b.Bytes()
}

func pdfEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	return r.Replace(s)
}
