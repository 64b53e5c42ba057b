package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/tambua/tambua"

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// load lists every package of the module with its imports and transitive
// dependencies (tests excluded: a test may import what its package may not).
func load(t *testing.T) map[string]*pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]*pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		p := &pkg{}
		if err := dec.Decode(p); err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		p.Imports = local(p.Imports)
		p.Deps = local(p.Deps)
		pkgs[p.ImportPath] = p
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; expected the whole module", len(pkgs))
	}
	return pkgs
}

func local(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == module {
			out = append(out, "")
		} else if strings.HasPrefix(p, module+"/") {
			out = append(out, strings.TrimPrefix(p, module+"/"))
		}
	}
	return out
}

var registerCall = regexp.MustCompile(`\bidv\.Register\(`)

// registering returns the packages whose non-test files register a check.
func registering(t *testing.T, pkgs map[string]*pkg) map[string]bool {
	t.Helper()
	reg := map[string]bool{}
	for path, p := range pkgs {
		for _, f := range p.GoFiles {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if registerCall.Match(b) {
				reg[path] = true
			}
		}
	}
	return reg
}

// checkOf names the check a package under checks/ belongs to ("ocr" for
// checks/ocr and checks/ocr/x), or "" outside checks/ and for the shared
// checks/internal.
func checkOf(path string) string {
	rest, ok := strings.CutPrefix(path, "checks/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	if name == "internal" {
		return ""
	}
	return name
}

func under(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }

// TestLayout enforces the rules of docs/layout.md.
func TestLayout(t *testing.T) {
	pkgs := load(t)
	reg := registering(t, pkgs)
	if len(reg) < 5 {
		t.Fatalf("found %d packages registering checks; the scan is broken", len(reg))
	}
	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	// Libraries and the server: they register nothing, neither themselves
	// nor through what they import, and know nothing of the HTTP server
	// unless they are part of it.
	libraries := []string{"idv", "mrz", "vision", "docdefs", "plugins", "server", "checks/internal"}
	for path, p := range pkgs {
		for _, root := range libraries {
			if !under(path, root) {
				continue
			}
			for _, d := range append([]string{path}, p.Deps...) {
				if reg[d] {
					add("%s registers a check through %s; import-for-effect belongs to checks/<name> and checks/standard", path, d)
				}
			}
		}
		name := checkOf(path)
		if name == "" || name == "standard" {
			continue
		}
		for _, d := range p.Deps {
			if under(d, "server") || under(d, "internal/cli") || d == "cmd/tambua" {
				add("check package %s depends on %s", path, d)
			}
			if other := checkOf(d); other != "" && other != name {
				add("check package %s depends on sibling check %s", path, d)
			}
		}
	}
	// The HTTP package is the top of the server: storage backends and the
	// webhook machinery import the domain (server/store), not the HTTP
	// layer with its tokens and metrics.
	for path, p := range pkgs {
		if under(path, "internal/cli") || under(path, "cmd") || path == "server" {
			continue
		}
		for _, d := range p.Deps {
			if d == "server" {
				add("%s depends on the HTTP package server; import server/store instead", path)
			}
		}
	}
	// The command line is the top: only cmd/ imports it, so a harness
	// (internal/bench) or a library never reaches for its flags and
	// printing, and what it does lives where something else can use it.
	for path, p := range pkgs {
		if under(path, "internal/cli") || under(path, "cmd") {
			continue
		}
		for _, d := range p.Deps {
			if under(d, "internal/cli") {
				add("%s depends on the command line %s; move what it needs out of internal/cli", path, d)
			}
		}
	}
	for _, root := range []string{"idv", "mrz"} {
		for _, d := range pkgs[root].Imports {
			add("%s is a leaf library and imports %s", root, d)
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestNoHiddenPackages: every folder holding Go code is a package `go
// list ./...` sees, so go vet and go test cover it. Go's tooling skips
// folders named testdata or starting with . or _; code there is never
// vetted (internal/testdata was such a package).
func TestNoHiddenPackages(t *testing.T) {
	pkgs := load(t)
	listed := map[string]bool{}
	for _, p := range pkgs {
		listed[p.Dir] = true
	}
	root := filepath.Dir(filepath.Dir(pkgs["internal/archtest"].Dir))
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "models" || d.Name() == "data") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !listed[filepath.Dir(path)] {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s is Go code in a folder go list does not see", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestToolingStaysOut: the benchmark harnesses (internal/bench) and the
// test tooling (internal/testkit, internal/pgtest, internal/s3test, and
// the storage conformance suite server/store/storetest, which measures
// with internal/bench and is imported by the backends' tests only) are
// reached only from the command line and from one another, never from
// the libraries, checks, server or examples an embedder builds on.
func TestToolingStaysOut(t *testing.T) {
	pkgs := load(t)
	tooling := []string{"internal/bench", "internal/testkit", "internal/pgtest", "internal/s3test", "server/store/storetest"}
	isTooling := func(path string) bool {
		for _, root := range tooling {
			if under(path, root) {
				return true
			}
		}
		return false
	}
	var problems []string
	for path, p := range pkgs {
		if isTooling(path) || under(path, "internal/cli") || under(path, "cmd") {
			continue
		}
		for _, d := range p.Deps {
			if isTooling(d) {
				problems = append(problems, fmt.Sprintf("%s depends on the test and benchmark tooling %s", path, d))
			}
		}
	}
	if pkgs["internal/bench"] == nil || pkgs["internal/testkit/synth"] == nil {
		t.Fatal("the scan is broken: the tooling packages are not listed")
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}
