package lists

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want Date
		ok   bool
	}{
		{"10 Dec 1948", Date{Year: 1948, Month: 12, Day: 10}, true},
		{"1946", Date{Year: 1946}, true},
		{"Jun 1970", Date{Year: 1970, Month: 6}, true},
		{"circa 1966", Date{Year: 1965, YearTo: 1967}, true},
		{"1960 to 1962", Date{Year: 1960, YearTo: 1962}, true},
		{"1965-03-15", Date{Year: 1965, Month: 3, Day: 15}, true},
		{"15.03.1965", Date{Year: 1965, Month: 3, Day: 15}, true},
		{"1965-13-01", Date{}, false},
		{"Giza, Egypt", Date{}, false},
		{"", Date{}, false},
		{"1962 to 1960", Date{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := ParseDate(tc.in)
			if ok != tc.ok || got != tc.want {
				t.Errorf("ParseDate(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func ExampleParseDate() {
	d, _ := ParseDate("DOB circa 1966"[4:])
	fmt.Println(d)
	d, _ = ParseDate("19 Jun 1951")
	fmt.Println(d)
	// Output:
	// 1965..1967
	// 1951-06-19
}

func TestCountryCode(t *testing.T) {
	tests := map[string]string{
		"Iran": "IR", "KEN": "KE", "NGA": "NG", "D": "DE", "GBR": "GB", "Democratic Republic of the Congo": "CD",
		"United Republic of Tanzania": "TZ", "Korea, North": "KP", "Russia": "RU", "Côte d'Ivoire": "CI",
		"Syrian Arab Republic": "SY", "Kenyan": "KE", "ES": "ES", "Atlantis": "", "": "",
	}
	for in, want := range tests {
		if got := CountryCode(in); got != want {
			t.Errorf("CountryCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func dir(t *testing.T, sub string) string {
	t.Helper()
	return fixtures.Path(t, "sanctions", sub)
}

func find(t *testing.T, s *Snapshot, list, id string) *Entity {
	t.Helper()
	for _, e := range s.Entities {
		if e.List == list && e.ID == id {
			return e
		}
	}
	t.Fatalf("%s %s not found", list, id)
	return nil
}

func TestLoadOFACSDN(t *testing.T) {
	s, err := Load(dir(t, "ofac_sdn_2021-07"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entities) != 8976 {
		t.Errorf("%d entities, want 8976 (sdn.csv rows)", len(s.Entities))
	}
	z := find(t, s, OFACSDN, "2676")
	if z.Name != "AL ZAWAHIRI, Dr. Ayman" || z.Kind != Person {
		t.Errorf("2676: %+v", z)
	}
	if len(z.DOBs) != 1 || z.DOBs[0] != (Date{Year: 1951, Month: 6, Day: 19}) {
		t.Errorf("2676 DOBs %v", z.DOBs)
	}
	if strings.Join(z.Passports, ",") != "1084010,19820215" {
		t.Errorf("2676 passports %v", z.Passports)
	}
	if y := find(t, s, OFACSDN, "28542"); strings.Join(y.Countries, ",") != "IR" {
		t.Errorf("28542 countries %v", y.Countries)
	}
	// The comments file continues remark 12300 cut at the field limit.
	if c := find(t, s, OFACSDN, "12300"); len(c.DOBs) != 3 {
		t.Errorf("12300 DOBs %v", c.DOBs)
	}
	var people, aliases int
	for _, e := range s.Entities {
		if e.Kind == Person {
			people++
		}
		aliases += len(e.Aliases)
	}
	if people != 4620 {
		t.Errorf("%d individuals, want 4620", people)
	}
	if aliases < 11000 {
		t.Errorf("%d aliases, want about 11,900", aliases)
	}
}

func TestLoadOthers(t *testing.T) {
	tests := []struct {
		sub      string
		counts   map[string]int
		list, id string
		check    func(t *testing.T, e *Entity)
	}{
		{"un", map[string]int{UN: 1003}, UN, "CDi.001", func(t *testing.T, e *Entity) {
			if e.Name != "ERIC BADEGE" || e.DOBs[0].Year != 1971 || e.Countries[0] != "CD" {
				t.Errorf("%+v", e)
			}
		}},
		{"eu", map[string]int{EU: 3}, EU, "EU.3886.3", func(t *testing.T, e *Entity) {
			if e.Name != "Abu Zayd Umar DORDA" || e.Passports[0] != "FK117RK0" || e.DOBs[0] != (Date{Year: 1944, Month: 4, Day: 4}) {
				t.Errorf("%+v", e)
			}
		}},
		{"ofac_nonsdn_cons_2025-12", map[string]int{OFACCons: 442}, OFACCons, "9639", func(t *testing.T, e *Entity) {
			if len(e.Aliases) != 2 || e.DOBs[0].Year != 1962 {
				t.Errorf("%+v", e)
			}
		}},
		{"us_csl_dpl", map[string]int{USCSL: 113, BISDPL: 487}, USCSL, "8124", func(t *testing.T, e *Entity) {
			if e.Name != "2904977 CANADA, INC." || len(e.Aliases) != 2 {
				t.Errorf("%+v", e)
			}
		}},
		{"opensanctions", map[string]int{PEP: 3}, PEP, "Q789012", func(t *testing.T, e *Entity) {
			if e.Name != "Maria Garcia Lopez" || e.Countries[0] != "ES" || e.Kind != Person {
				t.Errorf("%+v", e)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.sub, func(t *testing.T) {
			s, err := Load(dir(t, tc.sub))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, src := range s.Sources {
				got[src.List] += src.Entities
			}
			for l, n := range tc.counts {
				if got[l] != n {
					t.Errorf("%s: %d entities, want %d", l, got[l], n)
				}
			}
			tc.check(t, find(t, s, tc.list, tc.id))
		})
	}
}

// TestGoldenSmallFixture pins the whole entity model of the small OFAC
// fixture; run with -update after a deliberate change.
func TestGoldenSmallFixture(t *testing.T) {
	s, err := Load(dir(t, "ofac_small_fixture"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(s.Entities, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "ofac_small_fixture.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("entities differ from %s; run go test -update and review the diff", golden)
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name  string
		parse func() error
		file  string
		line  int
	}{
		{"ofac short row", func() error {
			_, err := ParseOFAC(OFACSDN, OFACFiles{Prim: NamedData{"sdn.csv", []byte("1,\"A\",-0- ,\"X\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n2,\"B\",-0-\n")}})
			return err
		}, "sdn.csv", 2},
		{"ofac bad quote", func() error {
			_, err := ParseOFAC(OFACSDN, OFACFiles{Prim: NamedData{"sdn.csv", []byte("1,\"A\",-0- ,\"X\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n\n3,\"B \"x\" y\"\n")}})
			return err
		}, "sdn.csv", 3},
		{"ofac alias not numeric", func() error {
			_, err := ParseOFAC(OFACSDN, OFACFiles{
				Prim: NamedData{"sdn.csv", []byte("1,\"A\",-0- ,\"X\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n")},
				Alt:  NamedData{"alt.csv", []byte("1,2,\"aka\",\"B\",-0- \nx,3,\"aka\",\"C\",-0- \n")}})
			return err
		}, "alt.csv", 2},
		{"un broken xml", func() error {
			_, err := ParseUN("un.xml", []byte("<CONSOLIDATED_LIST>\n<INDIVIDUALS>\n<INDIVIDUAL><FIRST_NAME>A</FIRST_NAME>\n</INDIVIDUALS>"))
			return err
		}, "un.xml", 4},
		{"un without name", func() error {
			_, err := ParseUN("un.xml", []byte("<CONSOLIDATED_LIST>\n<INDIVIDUALS>\n<INDIVIDUAL><REFERENCE_NUMBER>X</REFERENCE_NUMBER></INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>"))
			return err
		}, "un.xml", 3},
		{"eu wrong root", func() error {
			_, err := ParseEU("eu.xml", []byte("<?xml version=\"1.0\"?>\n<other/>"))
			return err
		}, "eu.xml", 2},
		{"senzing bad line", func() error {
			_, err := ParseSenzing("p.json", []byte("{\"RECORD_ID\":\"1\",\"NAME_FULL\":\"A B\"}\n{\"RECORD_ID\":\n"))
			return err
		}, "p.json", 2},
		{"senzing array no id", func() error {
			_, err := ParseSenzing("p.json", []byte("[\n {\"RECORD_ID\":\"1\",\"NAME_FULL\":\"A\"},\n {\"NAME_FULL\":\"B\"}\n]"))
			return err
		}, "p.json", 3},
		{"csl missing column", func() error {
			_, err := ParseCSL("csl.csv", []byte("foo,bar\n1,2\n"))
			return err
		}, "csl.csv", 1},
		{"dpl empty name", func() error {
			_, err := ParseDPL("dpl.txt", []byte("\"Name\"\t\"Effective_Date\"\n\"A\"\t\"01/01/2020\"\n\"\"\t\"01/01/2020\"\n"))
			return err
		}, "dpl.txt", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse()
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
			if pe.File != tc.file || pe.Line != tc.line {
				t.Errorf("error at %s:%d, want %s:%d (%v)", pe.File, pe.Line, tc.file, tc.line, err)
			}
		})
	}
}

// TestLoadAllOrNothing: a broken or unknown file spoils the whole folder.
func TestLoadAllOrNothing(t *testing.T) {
	src := dir(t, "un")
	good, err := os.ReadFile(filepath.Join(src, "UN_consolidated.xml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"truncated second list", map[string]string{"un.xml": string(good), "eu.xml": "<export xmlns=\"x\">\n<sanctionEntity"}, "eu.xml"},
		{"unknown file", map[string]string{"un.xml": string(good), "notes.csv": "a,b\n"}, "notes.csv"},
		{"alias without primary", map[string]string{"un.xml": string(good), "alt.csv": "1,2,\"aka\",\"B\",-0- \n"}, "alt.csv"},
		{"empty folder", map[string]string{"README.md": "x"}, "no list files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			for n, c := range tc.files {
				if err := os.WriteFile(filepath.Join(d, n), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Load(d)
			if err == nil || s != nil {
				t.Fatalf("Load = %v, %v; want an error and no snapshot", s, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %q", err, tc.want)
			}
		})
	}
}

// TestSenzingNested reads the layout OpenSanctions exports: JSON lines
// with attributes in lists of objects.
func TestSenzingNested(t *testing.T) {
	data := `{"DATA_SOURCE":"OS_PEPS","RECORD_ID":"Q1","RECORD_TYPE":"PERSON","NAMES":[{"NAME_TYPE":"ALIAS","NAME_FULL":"Bill Ruto"},{"NAME_TYPE":"PRIMARY","NAME_FULL":"William Samoei Ruto"}],"DATES":[{"DATE_OF_BIRTH":"1966-12-21"}],"COUNTRIES":[{"NATIONALITY":"ke"}],"IDENTIFIERS":[{"PASSPORT_NUMBER":"AK0001"}],"RISKS":[{"TOPIC":"role.pep"}]}

{"DATA_SOURCE":"OS_PEPS","RECORD_ID":"Q2","RECORD_TYPE":"ORGANIZATION","NAMES":[{"NAME_TYPE":"PRIMARY","NAME_ORG":"National Treasury"}]}
`
	ents, err := ParseSenzing("senzing.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 {
		t.Fatalf("%d entities", len(ents))
	}
	e := ents[0]
	if e.Name != "William Samoei Ruto" || len(e.Aliases) != 1 || e.Aliases[0] != "Bill Ruto" ||
		e.DOBs[0] != (Date{Year: 1966, Month: 12, Day: 21}) || e.Countries[0] != "KE" || e.Passports[0] != "AK0001" ||
		e.Programs[0] != "role.pep" || e.Kind != Person {
		t.Errorf("%+v", e)
	}
	if ents[1].Name != "National Treasury" || ents[1].Kind != Organization {
		t.Errorf("%+v", ents[1])
	}
}

func BenchmarkLoadOFACSDN(b *testing.B) {
	d := fixtures.Path(b, "sanctions", "ofac_sdn_2021-07")
	for i := 0; i < b.N; i++ {
		if _, err := Load(d); err != nil {
			b.Fatal(err)
		}
	}
}
