package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

func runSanctionsCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: os.Getenv}
	code := Run(context.Background(), env, args)
	return code, out.String(), errb.String()
}

func TestSanctionsScreen(t *testing.T) {
	dirs := fixtures.Path(t, "sanctions", "ofac_sdn_2021-07") + "," + fixtures.Path(t, "sanctions", "un")
	code, out, errs := runSanctionsCLI(t, "Ayman al-Zawahiri\n\nWanjiru Otieno\nIBRAIMA CAMARA\n", "sanctions", "screen", "--lists", dirs, "--dob", "1951-06-19", "--nationality", "EGY")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3 (blank lines skipped):\n%s", len(lines), out)
	}
	type hit struct {
		EntityID    string `json:"entity_id"`
		List, Name  string
		MatchedName string `json:"matched_name"`
		Score       float64
		Pieces      []map[string]any
	}
	var got []struct {
		Query  string
		Alert  bool
		Hits   []hit
		TookUS *int64 `json:"took_us"`
	}
	for _, ln := range lines {
		var v struct {
			Query  string
			Alert  bool
			Hits   []hit
			TookUS *int64 `json:"took_us"`
		}
		if err := json.Unmarshal([]byte(ln), &v); err != nil {
			t.Fatalf("%v: %s", err, ln)
		}
		got = append(got, v)
	}
	if !got[0].Alert || got[0].Hits[0].EntityID != "2676" || got[0].Hits[0].Score != 1 || len(got[0].Hits[0].Pieces) == 0 || got[0].TookUS == nil {
		t.Errorf("zawahiri: %+v", got[0])
	}
	if got[1].Alert || got[1].Query != "Wanjiru Otieno" {
		t.Errorf("ordinary name: %+v", got[1])
	}
	if len(got[2].Hits) == 0 || got[2].Hits[0].EntityID != "GBi.001" {
		t.Errorf("UN entity id as the list gives it: %+v", got[2])
	}
}

func TestSanctionsScreenBadInput(t *testing.T) {
	dir := fixtures.Path(t, "sanctions", "un")
	tests := [][]string{
		{"sanctions", "screen", "--lists", dir, "--dob", "yesterday"},
		{"sanctions", "screen", "--lists", dir, "--nationality", "XYZ"},
		{"sanctions", "screen", "--lists", dir, "--threshold", "2"},
		{"sanctions", "screen", "--lists", dir, "extra"},
		{"lists", "update", "--lists", "nosuchlist", "--out", t.TempDir()},
		{"lists", "update", "--mirror", "http://plain.example", "--out", t.TempDir()},
		{"bench", "sanctions"},
	}
	for _, args := range tests {
		if code, _, errs := runSanctionsCLI(t, "", args...); code != ExitBadInput || errs == "" {
			t.Errorf("%v: exit %d (%q), want %d with a message", args, code, errs, ExitBadInput)
		}
	}
	// A folder without lists is a failure to work, not bad usage.
	if code, _, errs := runSanctionsCLI(t, "x\n", "sanctions", "screen", "--lists", t.TempDir()); code != ExitFailure || !strings.Contains(errs, "lists update") {
		t.Errorf("empty folder: exit %d %q", code, errs)
	}
}

func TestBenchSanctionsSmoke(t *testing.T) {
	dirs := fixtures.Path(t, "sanctions", "ofac_sdn_2021-07") + "," + fixtures.Path(t, "sanctions", "un")
	code, out, errs := runSanctionsCLI(t, "", "bench", "sanctions", "--lists", dirs, "--listed", "120", "--plain", "80")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"true entity top hit", "non-listed queries: 80", "p99", "names/s", "RSS"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestListsUpdateCLIMirror(t *testing.T) {
	// The CLI path end to end is covered in package lists with a TLS test
	// server; here the flags reach the updater: a mirror that refuses
	// connections fails the command and leaves no current snapshot.
	out := t.TempDir()
	code, _, errs := runSanctionsCLI(t, "", "lists", "update", "--out", out, "--lists", "un_sc", "--mirror", "https://127.0.0.1:1", "--timeout", "5s")
	if code != ExitFailure || !strings.Contains(errs, "127.0.0.1:1") {
		t.Errorf("exit %d %q", code, errs)
	}
	if _, err := os.Lstat(filepath.Join(out, "current")); err == nil {
		t.Error("current exists after a failed update")
	}
}

// TestListsUpdateCLI downloads through --mirror from a local HTTPS server
// whose certificate is trusted with --ca-cert, then screens the snapshot.
func TestListsUpdateCLI(t *testing.T) {
	un := fixtures.Path(t, "sanctions", "un", "UN_consolidated.xml")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/lists/un_consolidated.xml" {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, un)
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, errs := runSanctionsCLI(t, "", "lists", "update", "--out", out, "--lists", "un_sc", "--mirror", srv.URL+"/lists", "--ca-cert", ca)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "un_sc") || !strings.Contains(stdout, "1003 entities") {
		t.Errorf("output %q", stdout)
	}
	code, stdout, errs = runSanctionsCLI(t, "ERIC BADEGE\n", "sanctions", "screen", "--lists", out)
	if code != ExitOK || !strings.Contains(stdout, `"entity_id":"CDi.001"`) {
		t.Errorf("screen after update: exit %d %q %q", code, stdout, errs)
	}
	// Without the certificate the same mirror is refused.
	code, _, errs = runSanctionsCLI(t, "", "lists", "update", "--out", t.TempDir(), "--lists", "un_sc", "--mirror", srv.URL+"/lists")
	if code != ExitFailure || !strings.Contains(errs, "certificate") {
		t.Errorf("untrusted mirror: exit %d %q", code, errs)
	}
}
