package mrz

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tambua/tambua/internal/testkit/degrade"
	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// TestReadDegraded reads a quarter of the specimen images again after the
// damage a phone capture does (tilt, scale, heavy JPEG): forms of them the
// reader was not tuned on. tambua bench mrz runs all of them.
func TestReadDegraded(t *testing.T) {
	r := NewReader(WithFont(fixtures.Need(t, DefaultFont, "OCR-B font (fonts-ocr-b)")))
	exact, total := 0, 0
	n := 0
	for _, v := range loadVectors(t) {
		if v.Image == nil {
			continue
		}
		if n++; n%4 != 1 {
			continue
		}
		clean := decodeFile(t, filepath.Join(fixtures.Dir(t), *v.Image))
		for _, k := range degrade.Standard {
			img, err := k.Apply(clean)
			if err != nil {
				t.Fatal(err)
			}
			total++
			rd, err := r.Read(context.Background(), img)
			if err == nil {
				if m, perr := Parse(rd.Lines, Options{Now: refNow, Repair: true}); perr == nil && strings.Join(m.Lines, "") == strings.Join(v.Lines, "") {
					exact++
					continue
				}
			}
			t.Logf("%s, %s: missed", v.ID, k.Name)
		}
	}
	t.Logf("exact %d of %d", exact, total)
	if exact*10 < total*8 {
		t.Errorf("read %d of %d degraded specimens exactly, want at least 80 %%", exact, total)
	}
}
