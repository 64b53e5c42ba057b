package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var backticked = regexp.MustCompile("`([^`]+)`")

// TestReadmeNamesEveryPackage: the README's layout table names every
// package go list sees, by its path, its path's tail (`sanctions/lists`
// in the checks row) or its last element (`mrzdata`), so a newcomer finds
// each folder there.
func TestReadmeNamesEveryPackage(t *testing.T) {
	pkgs := load(t)
	root := filepath.Dir(filepath.Dir(pkgs["internal/archtest"].Dir))
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no ## Layout section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	var names []string
	for _, m := range backticked.FindAllStringSubmatch(table, -1) {
		names = append(names, strings.TrimSuffix(m[1], "/"))
	}
	if len(names) < 20 {
		t.Fatalf("found %d names in the layout table; the scan is broken", len(names))
	}
	for path := range pkgs {
		if path == "" {
			continue
		}
		named := false
		for _, n := range names {
			if n == path || strings.HasSuffix(path, "/"+n) {
				named = true
				break
			}
		}
		if !named {
			t.Errorf("the README's layout table does not name %s", path)
		}
	}
}
