package mrz

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "golang.org/x/image/tiff" // the line crops are TIFF

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// TestReadLineCrops reads the 34 single-line crops of ids/mrz_lines.
func TestReadLineCrops(t *testing.T) {
	r := NewReader(WithFont(fixtures.Need(t, DefaultFont, "OCR-B font (fonts-ocr-b)")))
	gts, _ := filepath.Glob(filepath.Join(fixtures.Path(t, "ids", "mrz_lines"), "*.gt.txt"))
	if len(gts) != 34 {
		t.Fatalf("%d line crops, want 34", len(gts))
	}
	exact := 0
	for _, gt := range gts {
		want, err := os.ReadFile(gt)
		if err != nil {
			t.Fatal(err)
		}
		img := decodeFile(t, strings.TrimSuffix(gt, ".gt.txt")+".tif")
		got, err := r.ReadLine(context.Background(), img)
		if got == strings.TrimSpace(string(want)) {
			exact++
			continue
		}
		t.Logf("%s: %v\n got %s\nwant %s", filepath.Base(gt), err, got, strings.TrimSpace(string(want)))
	}
	t.Logf("exact %d of %d", exact, len(gts))
	if exact < minCropsExact {
		t.Errorf("read %d of %d line crops exactly, want at least %d", exact, len(gts), minCropsExact)
	}
}

const minCropsExact = 29
