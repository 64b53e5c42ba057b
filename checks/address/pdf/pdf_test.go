package pdf

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/tambua/tambua/internal/testkit/bills"
)

// doc is a PDF of n pages, each saying one line of text.
func doc(n int) []byte { return bills.TextPages(n, "WATER BILL") }

func TestCheck(t *testing.T) {
	encrypted := bills.PDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>",
		"<< /Filter /Standard /V 1 /R 2 /O (0123456789abcdef0123456789abcdef) /U (0123456789abcdef0123456789abcdef) /P -4 >>"},
		"/Encrypt 3 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]")
	big := make([]byte, DefaultLimits.Bytes+1)
	copy(big, "%PDF-1.4\n")
	for name, tc := range map[string]struct {
		data  []byte
		pages int
		want  error
	}{
		"two pages":     {doc(2), 2, nil},
		"encrypted":     {encrypted, 0, ErrEncrypted},
		"too many":      {doc(DefaultLimits.Pages + 1), 0, ErrTooLarge},
		"over the size": {big, 0, ErrTooLarge},
		"truncated":     {doc(1)[:200], 0, ErrMalformed},
	} {
		t.Run(name, func(t *testing.T) {
			if !Is(tc.data) {
				t.Fatal("not taken for a PDF")
			}
			n, err := Check(context.Background(), DefaultLimits, tc.data)
			if !errors.Is(err, tc.want) || n != tc.pages {
				t.Fatalf("Check = %d, %v; want %d, %v", n, err, tc.pages, tc.want)
			}
		})
	}
	if Is([]byte("\x89PNG\r\n")) {
		t.Error("a PNG taken for a PDF")
	}
}

// FuzzCheck: whatever bytes arrive as a PDF, Check answers with a page
// count or one of its three reasons, in bounded time, never a crash.
func FuzzCheck(f *testing.F) {
	f.Add(doc(1))
	f.Add(doc(1)[:300])
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	lim := DefaultLimits
	lim.ToolTime = 5 * time.Second
	f.Fuzz(func(t *testing.T, data []byte) {
		data = append([]byte("%PDF-"), data...)
		n, err := Check(context.Background(), lim, data)
		switch {
		case err == nil:
			if n < 1 || n > lim.Pages {
				t.Fatalf("%d pages accepted", n)
			}
		case errors.Is(err, ErrMalformed), errors.Is(err, ErrEncrypted), errors.Is(err, ErrTooLarge):
		default:
			t.Fatalf("Check = %v: not one of its reasons", err)
		}
	})
}

// TestFirstPage: the first page of a statement comes out as a PNG of the
// asked size with the page's text drawn on it (dark pixels on white); a
// truncated PDF is ErrMalformed.
func TestFirstPage(t *testing.T) {
	if !Renderable() {
		if os.Getenv("CI") != "" {
			t.Fatal("pdftoppm is missing: run make setup (Debian poppler-utils)")
		}
		t.Skip("pdftoppm is missing (Debian poppler-utils)")
	}
	out, err := FirstPage(context.Background(), DefaultLimits, doc(3), 400)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dy() != 400 || b.Dx() < 270 || b.Dx() > 290 {
		t.Errorf("page is %dx%d, want A4 proportions 400 px high", b.Dx(), b.Dy())
	}
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
				dark++
			}
		}
	}
	if dark == 0 || dark > b.Dx()*b.Dy()/20 {
		t.Errorf("%d dark pixels: want the line of text, not a blank or black page", dark)
	}
	if _, err := FirstPage(context.Background(), DefaultLimits, doc(1)[:200], 400); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated PDF: %v, want ErrMalformed", err)
	}
}
