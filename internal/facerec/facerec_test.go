package facerec

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// JohnsDir is where libdlib19.1 ships its 5 x 11 test faces.
const JohnsDir = "/usr/share/doc/libdlib19.1/examples/johns"

func johns(tb testing.TB) map[string][]string {
	tb.Helper()
	fixtures.Need(tb, JohnsDir, "dlib johns photos (apt-get install libdlib-dev)")
	people, err := os.ReadDir(JohnsDir)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string][]string{}
	for _, p := range people {
		files, _ := filepath.Glob(filepath.Join(JohnsDir, p.Name(), "*.jpg"))
		sort.Strings(files)
		out[p.Name()] = files
	}
	return out
}

func load(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestJohnsOneFaceEach(t *testing.T) {
	r, err := Shared(fixtures.Models(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, files := range johns(t) {
		for _, f := range files {
			img, err := Decode(load(t, f))
			if err != nil {
				t.Fatal(err)
			}
			faces, err := r.Detect(context.Background(), img)
			if err != nil {
				t.Fatal(err)
			}
			if len(faces) != 1 {
				t.Errorf("%s %s: %d faces, want 1", name, filepath.Base(f), len(faces))
				continue
			}
			if !faces[0].Rect.In(img.Bounds().Inset(-20)) || faces[0].Rect.Dx() < 40 {
				t.Errorf("%s: face rect %v implausible for %v", f, faces[0].Rect, img.Bounds())
			}
		}
	}
}
