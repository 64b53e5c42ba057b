package face

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimilarityMap(t *testing.T) {
	if got := DistanceAt(DefaultThreshold); math.Abs(got-DefaultDistance) > 1e-12 {
		t.Fatalf("DistanceAt(default) = %v, want %v", got, DefaultDistance)
	}
	tests := []struct {
		threshold, distance float64
	}{
		{0.60, 0.6693},
		{0.75, 0.6000},
		{0.95, 0.4154},
	}
	for _, tc := range tests {
		if got := DistanceAt(tc.threshold); math.Abs(got-tc.distance) > 5e-4 {
			t.Errorf("DistanceAt(%v) = %.4f, want %.4f", tc.threshold, got, tc.distance)
		}
	}
	prev := 2.0
	for d := 0.0; d <= 2.0; d += 0.01 {
		s := Similarity(d)
		if s <= 0 || s >= 1 || s >= prev {
			t.Fatalf("Similarity(%v) = %v: not strictly decreasing in (0,1)", d, s)
		}
		prev = s
		if back := DistanceAt(s); s > 1e-9 && s < 1-1e-9 && math.Abs(back-d) > 1e-6 {
			t.Fatalf("DistanceAt(Similarity(%v)) = %v", d, back)
		}
	}
}

func TestLabelledDecode(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jpg")
	if err := os.WriteFile(bad, []byte("not a JPEG"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (Labelled{Path: bad}).Decode(); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("undecodable file: error %v does not name it", err)
	}
	if _, err := (Labelled{Path: filepath.Join(dir, "none.jpg")}).Decode(); !os.IsNotExist(err) {
		t.Errorf("missing file: error %v", err)
	}
	johns, err := LoadJohns(JohnsDir)
	if err != nil || len(johns) == 0 {
		t.Skipf("no johns photos in %s", JohnsDir)
	}
	img, err := johns[0].Decode()
	if err != nil || img.Bounds().Empty() {
		t.Errorf("%s: %v", johns[0].Path, err)
	}
}

func ExampleSimilarity() {
	fmt.Printf("%.3f %.3f %.3f\n", Similarity(0.3), Similarity(0.6), Similarity(0.9))
	// Output: 0.984 0.750 0.130
}
