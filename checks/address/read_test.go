package address

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/bills"
)

// pages is a PDF of n pages, each saying one line of text.
func pages(n int, text string) []byte { return bills.TextPages(n, text) }

func TestReadRefuses(t *testing.T) {
	encrypted := bills.PDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>",
		"<< /Filter /Standard /V 1 /R 2 /O (0123456789abcdef0123456789abcdef) /U (0123456789abcdef0123456789abcdef) /P -4 >>"},
		"/Encrypt 3 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]")
	big := bytes.Repeat([]byte("x"), DefaultLimits.PDFBytes+1)
	copy(big, "%PDF-1.4\n")
	var cat bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	img.Set(0, 0, color.NRGBA{255, 0, 0, 255})
	png.Encode(&cat, img)
	for name, tc := range map[string]struct {
		data []byte
		want error
	}{
		"encrypted":     {encrypted, ErrPDFEncrypted},
		"50 pages":      {pages(50, "STATEMENT PAGE"), ErrPDFTooLarge},
		"over the size": {big, ErrPDFTooLarge},
		"truncated":     {pages(1, "WATER BILL")[:200], ErrPDFMalformed},
		"a noise image": {cat.Bytes(), ErrNoText},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Read(context.Background(), tc.data, DefaultLimits)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Read = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestReadTextPDF(t *testing.T) {
	p, err := Read(context.Background(), pages(3, "NAIROBI WATER BILL date 01/03/2026"), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != "pdf_text" || p.Pages != 3 || len(p.Lines) != DefaultLimits.ReadPages {
		t.Fatalf("%+v", p)
	}
}

// TestMissingAndUnreadable: no document part, or one that cannot be read,
// goes to review with a reason, never to accept.
func TestMissingAndUnreadable(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		images map[string]idv.Image
		reason string
	}{
		"no part":        {map[string]idv.Image{idv.SlotFront: {Data: []byte{1}}}, ReasonMissing},
		"encrypted pdf":  {map[string]idv.Image{"utility_bill": {Data: pages(60, "x")}}, ReasonUnreadable},
		"not an image":   {map[string]idv.Image{DefaultSlot: {Data: []byte("hello")}}, ReasonUnreadable},
		"text, no names": {map[string]idv.Image{DefaultSlot: {Data: pages(1, "The quick brown fox jumps over the lazy dog again")}}, ReasonUnreadable},
	} {
		t.Run(name, func(t *testing.T) {
			c := idv.NewCase(tc.images)
			c.Now = now
			c.SetFields([]string{"full_name"}, map[string]string{"full_name": "JOHN KAMAU MWANGI"})
			out, err := New(DefaultLimits).Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != idv.StatusReview || len(out.Reasons) == 0 || out.Reasons[0] != tc.reason {
				t.Fatalf("%+v", out)
			}
		})
	}
}

func TestParams(t *testing.T) {
	for params, ok := range map[string]bool{
		`{}`: true, `{"max_age_days": 30}`: true, `{"max_age_days": 0}`: false, `{"max_age_days": 400}`: false,
		`{"max_age_days": 30.5}`: false, `{"allow_po_box": "yes"}`: false, `{"allow_po_box": true}`: true,
		`{"slot": "utility_bill"}`: true, `{"slot": ""}`: false, `{"colour": 1}`: false,
	} {
		var p map[string]any
		if err := jsonUnmarshal(params, &p); err != nil {
			t.Fatal(err)
		}
		err := (&Check{}).ValidateStep(idv.Step{Params: p})
		if (err == nil) != ok {
			t.Errorf("%s: %v", params, err)
		}
	}
}

// FuzzRead: any bytes give a page or an error, in bounded time, never a
// panic (PDF and image parsing are outside input).
func FuzzRead(f *testing.F) {
	f.Add(pages(1, "WATER BILL"))
	f.Add([]byte("%PDF-1.7\n1 0 obj << >> endobj"))
	f.Add([]byte{0xff, 0xd8, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := DefaultLimits
		lim.ToolTime = 5 * time.Second
		p, err := Read(context.Background(), data, lim)
		if err == nil && p == nil {
			t.Fatal("no page and no error")
		}
	})
}

// FuzzJudge: the text analysis takes any lines.
func FuzzJudge(f *testing.F) {
	f.Add("MR JOHN KAMAU MWANGI\nHouse 4, Ngong Road\nBill Date: 01/02/2026\nKENYA POWER")
	f.Add("Customer Name:\nAddress: P.O. Box 1\n31/31/2026")
	f.Fuzz(func(t *testing.T, text string) {
		lines := textLines(text)
		classify(text)
		holder(lines, []string{"JOHN KAMAU MWANGI"})
		issueDate(lines)
		parseParts(strings.Split(text, "\n"))
		MatchName(text, []string{"JOHN KAMAU"})
	})
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// The top of a page is enough to judge on only when nothing further down
// could change the outcome.
func TestEnoughToJudge(t *testing.T) {
	names := []string{"JOHN KAMAU MWANGI"}
	head := []string{"KENYA POWER AND LIGHTING COMPANY PLC", "ELECTRICITY BILL", "Bill date: 01/10/2026"}
	block := []string{"MR JOHN KAMAU MWANGI", "House No. 4, Ngong Road", "Nairobi 00100"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		lines []string
		names []string
		want  bool
	}{
		{"kind, holder, address and a labelled date", cat(head, block), names, true},
		{"another person's name", cat(head, []string{"MS JANE WANJIRU OTIENO"}, block[1:]), names, false},
		// A labelled name is the one taken, whoever's it is.
		{"another person's labelled name", cat(head, []string{"Customer name: MS JANE WANJIRU OTIENO", "Address: House No. 4, Ngong Road"}), names, true},
		{"a label with its value not yet read", cat(head, []string{"Customer name:"}), names, false},
		{"the ID's name unknown", cat(head, block), nil, false},
		{"no address under the name", cat(head, block[:1]), names, false},
		{"an unlabelled date only", cat(head[:2], []string{"01/10/2026"}, block), names, false},
		{"no date yet", cat(head[:2], block), names, false},
		{"a refused kind's word", cat(head, block, []string{"Airtime purchases 500.00"}), names, false},
		{"no kind yet", cat([]string{"Bill date: 01/10/2026"}, block), names, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := enoughToJudge(tc.names)(column(tc.lines...)); got != tc.want {
				t.Errorf("enough = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestReadPDFBomb: a PDF of 1 MB whose page content inflates to 512 MiB is
// read by the tools under their limits and refused in bounded time, not
// expanded in the server.
func TestReadPDFBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 512 MiB in a child process")
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	chunk := bytes.Repeat([]byte{' '}, 1<<20)
	for i := 0; i < 512; i++ {
		zw.Write(chunk)
	}
	zw.Close()
	pdf := bills.PDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 3 0 R >>",
	}, "")
	lim := DefaultLimits
	lim.ToolTime = 5 * time.Second
	start := time.Now()
	p, err := Read(context.Background(), pdf, lim)
	took := time.Since(start)
	if err == nil {
		t.Fatalf("a page of nothing but blanks was read: %+v", p)
	}
	t.Logf("%d bytes: %v in %v", len(pdf), err, took)
	// Three tools at most, each stopped at ToolTime.
	if took > 3*lim.ToolTime+5*time.Second {
		t.Errorf("took %v, want within the tools' limits", took)
	}
}

func TestScreenEvidence(t *testing.T) {
	flat := func(w, h int, noise bool) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		seed := uint32(1)
		for i := range g.Pix {
			g.Pix[i] = 246
			if noise { // a sensor's: a few levels either side
				seed = seed*1664525 + 1013904223
				g.Pix[i] = uint8(240 + seed>>28)
			}
		}
		for y := h / 10; y < h/10+h/40; y++ { // a line of print
			for x := w / 10; x < w*8/10; x += 3 {
				g.Pix[y*w+x] = 30
			}
		}
		return g
	}
	for _, tc := range []struct {
		name   string
		g      *image.Gray
		screen bool
	}{
		{"a phone screen, 19.5:9", flat(540, 1170, false), true},
		{"a screen turned sideways, 16:9", flat(1280, 720, false), true},
		{"a flat A4 scan", flat(707, 1000, false), false},
		{"US legal", flat(850, 1400, false), false},
		{"a photo filling a 16:9 frame", flat(720, 1280, true), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := screenEvidence(tc.g)
			if (len(ev) > 0) != tc.screen {
				t.Errorf("evidence %v, want screenshot %v", ev, tc.screen)
			}
		})
	}
}

// TestScreenshotRefused: a screenshot of an app showing a bill's text is
// refused as unsupported, whatever its words say.
func TestScreenshotRefused(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := bills.Generate("classic", 1, 3, now)[0]
	page, err := c.Page()
	if err != nil {
		t.Fatal(err)
	}
	// The left half of the drawn page at a phone screen's shape.
	b := page.Bounds()
	crop := page.SubImage(image.Rect(0, 0, b.Dy()*9/19, b.Dy()))
	var buf bytes.Buffer
	if err := png.Encode(&buf, crop); err != nil {
		t.Fatal(err)
	}
	ca := idv.NewCase(map[string]idv.Image{DefaultSlot: {Data: buf.Bytes()}})
	ca.Now = now
	ca.SetFields([]string{"full_name"}, map[string]string{"full_name": c.HolderOnID})
	out, err := New(DefaultLimits).Run(context.Background(), ca)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := ca.Section("address_verification")
	s := v.(*Section)
	if out.Status != idv.StatusFailed || s.DocumentKind != KindScreenshot || len(s.Reasons) == 0 || s.Reasons[0] != ReasonUnsupported {
		t.Fatalf("status %s kind %s evidence %v reasons %v, want failed %s %s", out.Status, s.DocumentKind, s.KindEvidence, s.Reasons, KindScreenshot, ReasonUnsupported)
	}
}
