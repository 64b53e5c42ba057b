package mrzbench

import (
	"image"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/mrz"
)

var td3 = []string{
	"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
	"L898902C36UTO7408122F1204159ZE184226B<<<<<10",
}

func TestScoreAdd(t *testing.T) {
	var s Score
	s.Add("exact", td3, td3, time.Millisecond)
	s.Add("one line off", []string{td3[0], "L898902C36UTO7408122F1204159ZE184226B<<<<<11"}, td3, 2*time.Millisecond)
	s.Add("not found", nil, td3, 3*time.Millisecond)
	s.Add("line missing", td3[1:], td3, 4*time.Millisecond)
	want := Score{Exact: 1, Total: 4, Times: []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond},
		Misses: []string{"one line off", "not found", "line missing"}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v, want %+v", s, want)
	}
}

func TestLinesOf(t *testing.T) {
	ocr := "PASSPORT\n\nP<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\n l898902c36 UTO7408122F1204159ZE184226B<<<<<10 \nshort<<<\n"
	for _, tc := range []struct {
		name string
		n    int
		want []string
	}{
		{"both lines, spaces out, upper case", 2, td3},
		{"the last one", 1, td3[1:]},
		{"fewer than asked", 3, td3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LinesOf(ocr, tc.n); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LinesOf(n=%d) = %q, want %q", tc.n, got, tc.want)
			}
		})
	}
	if got := LinesOf("no MRZ here\nÉ<<<<<<<<<<<<<<<<<<<<<<<<<<<\n", 1); len(got) != 0 {
		t.Errorf("non-MRZ text gave %q", got)
	}
}

// TestCasesFromFiles: the line crops; the specimens' listing is
// bench.MRZSpecimens (TestMRZSpecimens).
func TestCasesFromFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := Crops(dir); err == nil {
		t.Error("Crops of a folder without crops: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, "l1.gt.txt"), []byte(td3[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cr, err := Crops(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bench.MRZCase{{Name: "l1", Path: filepath.Join(dir, "l1.tif"), Lines: td3[1:]}}; !reflect.DeepEqual(cr, want) {
		t.Errorf("Crops = %+v, want %+v", cr, want)
	}
	if _, err := Run(t.Context(), Options{Dir: t.TempDir()}); err == nil || !bench.IsInput(err) {
		t.Errorf("Run without test data: %v, want an input error", err)
	}
}

// TestReadLines reads the first specimen image of the shared test data
// with the real reader, and a blank image in which there is no MRZ.
func TestReadLines(t *testing.T) {
	sp, err := bench.MRZSpecimens(fixtures.Dir(t))
	if err != nil || len(sp) == 0 {
		t.Fatalf("specimens: %v (%d)", err, len(sp))
	}
	img, err := bench.DecodeFile(sp[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	r := mrz.NewReader()
	got, raw, err := ReadLines(t.Context(), r, img)
	if err != nil {
		t.Fatal(err)
	}
	var s Score
	s.Add(sp[0].Name, got, sp[0].Lines, 0)
	if s.Exact != 1 || len(raw) != len(sp[0].Lines) {
		t.Errorf("%s: read %q (as read %q), want %q", sp[0].Name, got, raw, sp[0].Lines)
	}
	got, raw, err = ReadLines(t.Context(), r, image.NewGray(image.Rect(0, 0, 600, 400)))
	if err != nil || got != nil || raw != nil {
		t.Errorf("blank image: %q, %q, %v; want nothing and no error", got, raw, err)
	}
}
