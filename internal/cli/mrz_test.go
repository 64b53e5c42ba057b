package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

func TestMRZCommand(t *testing.T) {
	const td3 = "P<GBRUK<SPECIMEN<<ANGELA<ZOE<<<<<<<<<<<<<<<<\n9250764733GBR88O9117F2007162<<<<<<<<<<<<<<08\n"
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		pass  bool
		nrep  int
	}{
		{"repairs O for 0", td3, []string{"mrz"}, 0, true, 1},
		{"as printed", td3, []string{"mrz", "--no-repair"}, 0, false, 0},
		{"failing checks still exit 0", "IDAUT10000999<6<<<<<<<<<<<<<<<\n7109094F1112315AUT<<<<<<<<<<<6\nMUSTERFRAU<<ISOLDE<<<<<<<<<<<<\n", []string{"mrz"}, 0, false, 0},
		{"not an MRZ", "hello\n", []string{"mrz"}, 2, false, 0},
		{"missing file", "", []string{"mrz", "/nonexistent/mrz.txt"}, 2, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errs)
			}
			if code != 0 {
				if strings.Count(strings.TrimSpace(errs), "\n") != 0 || errs == "" {
					t.Errorf("stderr should be one line: %q", errs)
				}
				return
			}
			var m struct {
				AllChecksPass bool              `json:"all_checks_pass"`
				Checks        map[string]bool   `json:"checks"`
				Repaired      []json.RawMessage `json:"repaired"`
				Lines         []string          `json:"lines"`
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if m.AllChecksPass != tc.pass || len(m.Repaired) != tc.nrep || m.Lines != nil || len(m.Checks) == 0 {
				t.Errorf("output %s", out)
			}
		})
	}
}

func TestMRZCommandImage(t *testing.T) {
	img := fixtures.Path(t, "ids", "passeye_100_id-si.jpg")
	fixtures.Need(t, "/usr/share/fonts/opentype/ocr-b/OCRB.otf", "OCR-B font")
	code, out, errs := runCLI(t, "", "mrz", "--image", img)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var m struct {
		DocumentNumber string   `json:"document_number"`
		Lines          []string `json:"lines"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m.DocumentNumber != "099991001" || len(m.Lines) != 3 {
		t.Errorf("output %s", out)
	}
	if code, _, _ := runCLI(t, "", "mrz", "--image", filepath.Join(fixtures.Dir(t), "mrz_vectors.json")); code != 2 {
		t.Errorf("a non-image exits %d, want 2", code)
	}
}
