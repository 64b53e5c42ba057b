package bench

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	xs := []float64{9, 1, 8, 2, 7, 3, 6, 4, 5, 10}
	for _, tc := range []struct {
		p    int
		want float64
	}{{0, 1}, {50, 6}, {90, 10}, {95, 10}, {99, 10}, {100, 10}, {200, 10}} {
		if got := Percentile(xs, tc.p); got != tc.want {
			t.Errorf("Percentile(p=%d) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if xs[0] != 9 {
		t.Error("Percentile sorted its argument")
	}
	if got := Percentile([]time.Duration(nil), 50); got != 0 {
		t.Errorf("empty: %v", got)
	}
	// nearest rank below: 99 of 100 values leave the largest out
	ds := make([]time.Duration, 100)
	for i := range ds {
		ds[i] = time.Duration(100 - i)
	}
	if got := Percentile(ds, 99); got != 100 {
		t.Errorf("p99 of 1..100 = %v, want 100 (index 99)", got)
	}
	if got := Percentile(ds, 50); got != 51 {
		t.Errorf("p50 of 1..100 = %v, want 51 (index 50)", got)
	}
}

func TestMeanAndMillis(t *testing.T) {
	if got := Mean([]time.Duration{time.Millisecond, 3 * time.Millisecond}); got != 2*time.Millisecond {
		t.Errorf("Mean = %v", got)
	}
	if Mean(nil) != 0 {
		t.Error("Mean(nil) != 0")
	}
	d := 1234567 * time.Nanosecond
	if got := Millis(d); got != 1.234567 {
		t.Errorf("Millis = %v", got)
	}
	if got := MillisMicro(d); got != 1.234 {
		t.Errorf("MillisMicro = %v", got)
	}
}

func TestPct(t *testing.T) {
	for _, tc := range []struct {
		a, b int
		want string
	}{{0, 0, "-"}, {0, 4, "0.0%"}, {1, 3, "33.3%"}, {2, 3, "66.7%"}, {5, 5, "100.0%"}} {
		if got := Pct(tc.a, tc.b); got != tc.want {
			t.Errorf("Pct(%d, %d) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestInputError(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", Inputf("no images under %s", "x"))
	if !IsInput(err) || err.Error() != "wrapped: no images under x" {
		t.Errorf("IsInput(%v) = false", err)
	}
	if IsInput(errors.New("disk full")) {
		t.Error("a plain error counted as input")
	}
}

func TestProcessCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU and memory figures are read on Linux")
	}
	c0 := ProcessCPU()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i % 7
	}
	if c1 := ProcessCPU(); c1 <= c0 || x == 0 {
		t.Errorf("process CPU did not grow: %v then %v", c0, c1)
	}
	if tc, ok := ThreadCPU(); !ok || tc <= 0 {
		t.Errorf("ThreadCPU = %v, %v", tc, ok)
	}
	cur, peak := RSS()
	if cur <= 0 || peak < cur || RSSMB() <= 0 {
		t.Errorf("RSS = %d, peak %d", cur, peak)
	}
	if HeapInUse() <= 0 {
		t.Error("no live heap")
	}
}

func TestDecodeFile(t *testing.T) {
	dir := t.TempDir()
	src := image.NewGray(image.Rect(0, 0, 3, 2))
	src.SetGray(2, 1, color.Gray{Y: 200})
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	good, bad := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	if err := os.WriteFile(good, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("not an image"), 0o600); err != nil {
		t.Fatal(err)
	}
	img, err := DecodeFile(good)
	if err != nil || img.Bounds() != src.Bounds() || color.GrayModel.Convert(img.At(2, 1)).(color.Gray).Y != 200 {
		t.Errorf("DecodeFile(%s) = %v, %v", good, img, err)
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing.png")} {
		if _, err := DecodeFile(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("DecodeFile(%s): error %v does not name the file", path, err)
		}
	}
}

// TestMRZSpecimens: the vectors that name an image, with its path in dir;
// text-only vectors are left out.
func TestMRZSpecimens(t *testing.T) {
	dir := t.TempDir()
	vectors := `{"vectors":[{"id":"uto","lines":["A","B"],"image":"ids/uto.png"},{"id":"text only","lines":["C"],"image":null}]}`
	if err := os.WriteFile(filepath.Join(dir, "mrz_vectors.json"), []byte(vectors), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := MRZSpecimens(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []MRZCase{{"uto", filepath.Join(dir, "ids", "uto.png"), []string{"A", "B"}}}; !reflect.DeepEqual(sp, want) {
		t.Errorf("MRZSpecimens = %+v, want %+v", sp, want)
	}
	if _, err := MRZSpecimens(t.TempDir()); err == nil {
		t.Error("a folder without mrz_vectors.json: no error")
	}
}
