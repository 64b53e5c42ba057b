package sanctions_test

import (
	"context"
	"encoding/json"
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

func TestScreeningCannotRun(t *testing.T) {
	tests := []struct {
		name   string
		w      caseWriter
		params map[string]any
		dir    string
	}{
		{"no lists", caseWriter{fields: map[string]string{"full_name": "A B"}}, nil, t.TempDir()},
		{"no name", caseWriter{fields: map[string]string{"full_name": ""}}, nil, listsDirs(t)},
		{"bad threshold", caseWriter{fields: map[string]string{"full_name": "A B"}}, map[string]any{"threshold": "high"}, listsDirs(t)},
		{"unknown param", caseWriter{fields: map[string]string{"full_name": "A B"}}, map[string]any{"treshold": 0.9}, listsDirs(t)},
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
