package archtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tambua/tambua/idv"
)

// TestImportRegistersItsOwnCheck builds, for every package under checks/
// (but checks/internal, which TestLayout holds to registering nothing),
// a fresh program that imports that package alone and prints the checks
// idv has registered. A check package registers its one check, a library
// below a check none, and checks/standard every built-in check. The
// programs exist only in a build overlay: nothing is written to the tree.
func TestImportRegistersItsOwnCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program per check package")
	}
	pkgs := load(t)
	root := filepath.Dir(filepath.Dir(pkgs["internal/archtest"].Dir))
	tmp := t.TempDir()
	overlay := map[string]string{}
	var targets, paths []string
	for path := range pkgs {
		if !under(path, "checks") || under(path, "checks/internal") {
			continue
		}
		name := strings.ReplaceAll(path, "/", "_")
		src := filepath.Join(tmp, name+".go")
		prog := "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\n\t\"" + module + "/idv\"\n\t_ \"" + module + "/" + path + "\"\n)\n\n" +
			"func main() { fmt.Println(strings.Join(idv.Registered(), \" \")) }\n"
		if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
			t.Fatal(err)
		}
		// A folder no package uses; the overlay makes it exist for the build.
		overlay[filepath.Join(root, "internal", "archtest", "zz_probe", name, "main.go")] = src
		targets = append(targets, "./internal/archtest/zz_probe/"+name)
		paths = append(paths, path)
	}
	slices.Sort(paths)
	if len(paths) < 10 {
		t.Fatalf("found %d packages under checks/; the scan is broken", len(paths))
	}
	ov, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	ovFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovFile, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", append([]string{"build", "-overlay", ovFile, "-o", bin + "/"}, targets...)...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var builtin []string
	for _, ci := range idv.Catalog {
		builtin = append(builtin, ci.Name)
	}
	slices.Sort(builtin)
	owner := map[string]string{}
	for _, path := range paths {
		out, err := exec.Command(filepath.Join(bin, strings.ReplaceAll(path, "/", "_"))).Output()
		if err != nil {
			t.Errorf("%s: the program importing it: %v", path, err)
			continue
		}
		got := strings.Fields(string(out))
		t.Logf("%s registers %v", path, got)
		switch rest := strings.TrimPrefix(path, "checks/"); {
		case rest == "standard":
			if !slices.Equal(got, builtin) {
				t.Errorf("checks/standard registers %v, want every built-in check %v", got, builtin)
			}
		case strings.Contains(rest, "/"):
			if len(got) != 0 {
				t.Errorf("%s is a library below a check and registers %v", path, got)
			}
		case len(got) != 1:
			t.Errorf("%s registers %v; importing a check package registers its one check", path, got)
		case owner[got[0]] != "":
			t.Errorf("%s and %s both register %s", path, owner[got[0]], got[0])
		default:
			owner[got[0]] = path
		}
	}
}
