package sanctions_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tambua/tambua/checks/sanctions"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// caseWriter stands in for OCR and MRZ parsing: it leaves on the Case
// what those checks would have read from a document.
type caseWriter struct {
	fields map[string]string
	mrz    *idv.MRZData
}

func (caseWriter) Name() string { return idv.CheckOCR }
func (caseWriter) Cost() int    { return 2 }
func (w caseWriter) Run(_ context.Context, c *idv.Case) (idv.Outcome, error) {
	schema := make([]string, 0, len(w.fields))
	for k := range w.fields {
		schema = append(schema, k)
	}
	sort.Strings(schema)
	c.SetFields(schema, w.fields)
	if w.mrz != nil {
		c.SetMRZ(w.mrz)
	}
	return idv.Passed(1), nil
}

type defs map[string]*idv.DocumentDefinition

func (d defs) Definition(c string) (*idv.DocumentDefinition, bool) { v, ok := d[c]; return v, ok }

// checks holds one loaded check per lists folder across tests: loading
// the lists is the slow part and the check is built to be shared.
var checks = map[string]*sanctions.Check{}

func verify(t *testing.T, w caseWriter, params map[string]any, settingsDir string) *idv.Result {
	t.Helper()
	opts := []idv.Option{
		idv.WithDefinitions(defs{"ke_passport": {Config: "ke_passport", FieldSchema: []string{"full_name", "date_of_birth"}}}),
		idv.WithChecks(w),
		// The registered factory reads the folder from the settings.
		idv.WithSettings(idv.Settings{sanctions.SettingListsDir: settingsDir}),
	}
	if strings.Contains(settingsDir, ",") {
		if checks[settingsDir] == nil {
			checks[settingsDir] = sanctions.New(settingsDir)
		}
		opts = append(opts, idv.WithChecks(checks[settingsDir]))
	}
	eng := idv.New(opts...)
	defer eng.Close()
	wf := &idv.Workflow{Name: "screening", DocumentTypes: []string{"ke_passport"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckSanctions, Params: params}}}
	p, err := eng.Prepare(wf)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Verify(context.Background(), idv.Input{Config: "ke_passport"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func listsDirs(t *testing.T) string {
	return fixtures.Path(t, "sanctions", "ofac_sdn_2021-07") + "," + fixtures.Path(t, "sanctions", "un") + "," +
		fixtures.Path(t, "sanctions", "opensanctions")
}

func TestScreeningVerdicts(t *testing.T) {
	dirs := listsDirs(t)
	tests := []struct {
		name     string
		w        caseWriter
		params   map[string]any
		decision idv.Decision
		reasons  string
		status   string
	}{
		{"listed name from MRZ", caseWriter{mrz: &idv.MRZData{Surname: "AL ZAWAHIRI", GivenNames: "AYMAN", DateOfBirth: "1951-06-19",
			Nationality: "EGY", AllChecksPass: true}}, nil, idv.Review, "sanctions_hit", sanctions.StatusPossibleMatch},
		{"misspelt listed name from OCR", caseWriter{fields: map[string]string{"full_name": "Aleyda Ruis Zavala", "date_of_birth": "10.05.1962"}},
			nil, idv.Review, "sanctions_hit", sanctions.StatusPossibleMatch},
		{"PEP", caseWriter{fields: map[string]string{"full_name": "MARIA GARCIA LOPEZ", "date_of_birth": "22.07.1970"}},
			nil, idv.Review, "pep_hit", sanctions.StatusPossibleMatch},
		{"ordinary Kenyan name", caseWriter{fields: map[string]string{"full_name": "Wanjiru Achieng Otieno", "date_of_birth": "01.01.1990"}},
			nil, idv.Accept, "", sanctions.StatusClear},
		{"MRZ failing check digits falls back to OCR", caseWriter{fields: map[string]string{"full_name": "Brian Kiprop Korir"},
			mrz: &idv.MRZData{Surname: "AL ZAWAHIRI", GivenNames: "AYMAN", AllChecksPass: false}}, nil, idv.Accept, "", sanctions.StatusClear},
		{"threshold raised per workflow", caseWriter{fields: map[string]string{"full_name": "Aleyda Ruis Zavala"}},
			map[string]any{"threshold": 0.99}, idv.Accept, "", sanctions.StatusClear},
		{"PEP list left out by params", caseWriter{fields: map[string]string{"full_name": "MARIA GARCIA LOPEZ"}},
			map[string]any{"lists": []any{"ofac_sdn", "un_sc"}}, idv.Accept, "", sanctions.StatusClear},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := verify(t, tc.w, tc.params, dirs)
			if res.Decision != tc.decision || strings.Join(res.DecisionReasons, ",") != tc.reasons {
				t.Fatalf("decision %s %v, want %s %q; checks %+v", res.Decision, res.DecisionReasons, tc.decision, tc.reasons, res.CheckResults)
			}
			sec, ok := res.Sections["sanctions_screening"].(sanctions.Section)
			if !ok {
				t.Fatalf("section %#v", res.Sections["sanctions_screening"])
			}
			if sec.Status != tc.status || sec.TotalHits != sec.OFAC.TotalHits+sec.PEP.TotalHits {
				t.Errorf("section %+v", sec)
			}
		})
	}
}

// TestSectionShape: the section has exactly the spec's keys and every
// hit says which list, which entity and why.
func TestSectionShape(t *testing.T) {
	res := verify(t, caseWriter{fields: map[string]string{"full_name": "Ayman al-Zawahiri"}}, nil, listsDirs(t))
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		S map[string]json.RawMessage `json:"sanctions_screening"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range out.S {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "ofac,pep,status,total_hits" {
		t.Errorf("section keys %v", keys)
	}
	var ofac struct {
		Hits []map[string]any `json:"hits"`
	}
	if err := json.Unmarshal(out.S["ofac"], &ofac); err != nil || len(ofac.Hits) == 0 {
		t.Fatalf("ofac %s: %v", out.S["ofac"], err)
	}
	h := ofac.Hits[0]
	for _, k := range []string{"list", "entity_id", "name", "matched_name", "score", "pieces", "programs"} {
		if _, ok := h[k]; !ok {
			t.Errorf("hit lacks %s: %v", k, h)
		}
	}
	if h["entity_id"] != "2676" || h["list"] != "ofac_sdn" {
		t.Errorf("top hit %v", h)
	}
}

// TestScreeningCannotRun: a screening that cannot run at verification
// time (no lists in the folder, no name on the document) goes to review
// with sanctions_unavailable, never to accept. Bad params no longer reach
// a verification: TestParamsRefusedAtPrepare.
func TestScreeningCannotRun(t *testing.T) {
	tests := []struct {
		name   string
		w      caseWriter
		params map[string]any
		dir    string
	}{
		{"no lists", caseWriter{fields: map[string]string{"full_name": "A B"}}, nil, t.TempDir()},
		{"no lists in the params' folder", caseWriter{fields: map[string]string{"full_name": "A B"}},
			map[string]any{"lists_dir": filepath.Join(t.TempDir(), "missing")}, listsDirs(t)},
		{"no name", caseWriter{fields: map[string]string{"full_name": ""}}, nil, listsDirs(t)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := verify(t, tc.w, tc.params, tc.dir)
			if res.Decision != idv.Review || strings.Join(res.DecisionReasons, ",") != "sanctions_unavailable" {
				t.Errorf("decision %s %v, want review sanctions_unavailable", res.Decision, res.DecisionReasons)
			}
		})
	}
}

// TestParamsRefusedAtPrepare: a bad or unknown param fails Prepare with
// an invalid-input error naming the step (idv.StepValidator), instead of
// preparing and sending every verification to review; good params prepare.
func TestParamsRefusedAtPrepare(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		want   string // "" when the workflow prepares
	}{
		{"no params", nil, ""},
		{"every param", map[string]any{"threshold": 0.9, "lists_dir": "/var/lib/tambua/lists", "lists": []any{"ofac_sdn", "un_sc", "pep"}}, ""},
		{"threshold 1", map[string]any{"threshold": 1}, ""},
		{"lists as Go strings", map[string]any{"lists": []string{"eu_fsf"}}, ""},
		{"threshold as text", map[string]any{"threshold": "high"}, "params.threshold"},
		{"threshold zero", map[string]any{"threshold": 0.0}, "params.threshold"},
		{"threshold negative", map[string]any{"threshold": -0.5}, "params.threshold"},
		{"threshold above one", map[string]any{"threshold": 1.5}, "params.threshold"},
		{"threshold as percent", map[string]any{"threshold": 80}, "params.threshold"},
		{"threshold NaN", map[string]any{"threshold": math.NaN()}, "params.threshold"},
		{"unknown param", map[string]any{"treshold": 0.9}, `unknown param "treshold"`},
		{"empty lists_dir", map[string]any{"lists_dir": ""}, "params.lists_dir"},
		{"lists_dir not text", map[string]any{"lists_dir": 7}, "params.lists_dir"},
		{"lists not a list", map[string]any{"lists": "ofac_sdn"}, "params.lists"},
		{"lists empty", map[string]any{"lists": []any{}}, "params.lists"},
		{"list name not text", map[string]any{"lists": []any{"ofac_sdn", 3}}, "params.lists"},
		{"misspelt list", map[string]any{"lists": []any{"ofac_sdn", "un"}}, `unknown list "un"`},
	}
	eng := idv.New(idv.WithDefinitions(defs{"ke_passport": {Config: "ke_passport", FieldSchema: []string{"full_name"}}}),
		idv.WithChecks(caseWriter{}), idv.WithSettings(idv.Settings{sanctions.SettingListsDir: t.TempDir()}))
	defer eng.Close()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wf := &idv.Workflow{Name: "screening", DocumentTypes: []string{"ke_passport"},
				Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckSanctions, Params: tc.params}}}
			_, err := eng.Prepare(wf)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Prepare: %v", err)
				}
				return
			}
			if err == nil || idv.ErrorCode(err) != idv.EInvalid {
				t.Fatalf("Prepare error %v, want an invalid-input error", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "checks[1] sanctions_screening") || !strings.Contains(msg, tc.want) {
				t.Errorf("Prepare error %q, want the step and %q", msg, tc.want)
			}
			// The check refuses the same params itself (ValidateStep),
			// and Run keeps refusing them for a Case built by hand.
			ch := sanctions.New(t.TempDir())
			if err := ch.ValidateStep(idv.Step{Name: idv.CheckSanctions, Params: tc.params}); err == nil {
				t.Error("ValidateStep accepted the params")
			}
			c := idv.NewCase(nil)
			c.Step = idv.Step{Name: idv.CheckSanctions, Params: tc.params}
			if _, err := ch.Run(context.Background(), c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRegisteredCost(t *testing.T) {
	found := false
	for _, n := range idv.Registered() {
		found = found || n == idv.CheckSanctions
	}
	if !found {
		t.Fatal("sanctions_screening is not registered")
	}
	if c := sanctions.New("x"); c.Cost() != 1 || c.Name() != idv.CheckSanctions {
		t.Errorf("%s costs %d", c.Name(), c.Cost())
	}
}

// TestSettingsFolder goes through the registered factory: the lists
// folder comes from the engine settings (lists_dir).
func TestSettingsFolder(t *testing.T) {
	res := verify(t, caseWriter{fields: map[string]string{"full_name": "Eric Badege"}}, nil, fixtures.Path(t, "sanctions", "un"))
	if res.Decision != idv.Review || strings.Join(res.DecisionReasons, ",") != "sanctions_hit" {
		t.Fatalf("decision %s %v", res.Decision, res.DecisionReasons)
	}
	sec := res.Sections["sanctions_screening"].(sanctions.Section)
	if sec.OFAC.Hits[0].EntityID != "CDi.001" || sec.OFAC.Hits[0].List != "un_sc" {
		t.Errorf("hit %+v", sec.OFAC.Hits[0])
	}
}

// TestFollowsSnapshotSwap: after the current link moves to another
// snapshot, the next run screens against the new lists.
func TestFollowsSnapshotSwap(t *testing.T) {
	root := t.TempDir()
	link := func(snap string, files map[string]string) {
		if err := os.MkdirAll(filepath.Join(root, "snapshots", snap), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, target := range files {
			if err := os.Symlink(target, filepath.Join(root, "snapshots", snap, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	link("a", map[string]string{"un.xml": fixtures.Path(t, "sanctions", "un", "UN_consolidated.xml")})
	link("b", map[string]string{"peps.json": fixtures.Path(t, "sanctions", "opensanctions", "peps_senzing.json")})
	point := func(snap string) {
		tmp := filepath.Join(root, ".next")
		if err := os.Symlink(filepath.Join("snapshots", snap), tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(root, "current")); err != nil {
			t.Fatal(err)
		}
	}
	ch := sanctions.New(root)
	point("a")
	idx, err := ch.Index(root)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := idx.Len(); n != 1003 {
		t.Fatalf("%d entities from snapshot a", n)
	}
	if again, _ := ch.Index(root); again != idx {
		t.Error("reloaded without a swap")
	}
	point("b")
	idx, err = ch.Index(root)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := idx.Len(); n != 3 {
		t.Errorf("%d entities after the swap to snapshot b, want 3", n)
	}
}
