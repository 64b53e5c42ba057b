package lists

import (
	"os"
	"path/filepath"
	"testing"
)

func seed(f *testing.F, paths ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // seeds from shared data are optional in fuzzing
		}
		if len(b) > 64<<10 {
			b = b[:64<<10]
		}
		f.Add(b)
	}
}

func td(elem ...string) string {
	root := os.Getenv("TAMBUA_TESTDATA")
	if root == "" {
		root = filepath.Join("..", "..", "..", "..", "shared", "testdata")
	}
	return filepath.Join(append([]string{root, "sanctions"}, elem...)...)
}

func FuzzParseOFAC(f *testing.F) {
	seed(f, td("ofac_small_fixture", "sdn.csv"))
	f.Add([]byte("1,\"A, B\",\"individual\",\"SDGT\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"DOB circa 1960; nationality Iran; Passport X1 (Iran).\"\n\x1a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ents, err := ParseOFAC(OFACSDN, OFACFiles{Prim: NamedData{"sdn.csv", b}, Alt: NamedData{"alt.csv", b}, Comments: NamedData{"c.csv", b}})
		if err != nil && ents != nil {
			t.Fatal("entities returned with an error")
		}
	})
}

func FuzzParseUN(f *testing.F) {
	seed(f, td("un", "UN_consolidated.xml"))
	f.Add([]byte("<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><REFERENCE_NUMBER>A</REFERENCE_NUMBER><FIRST_NAME>X</FIRST_NAME></INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ents, err := ParseUN("un.xml", b); err != nil && ents != nil {
			t.Fatal("entities returned with an error")
		}
	})
}

func FuzzParseEU(f *testing.F) {
	seed(f, td("eu", "eu_fsf_excerpt_2026-08-05.xml"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ents, err := ParseEU("eu.xml", b); err != nil && ents != nil {
			t.Fatal("entities returned with an error")
		}
	})
}

func FuzzParseCSL(f *testing.F) {
	seed(f, td("us_csl_dpl", "csl.csv"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ents, err := ParseCSL("csl.csv", b); err != nil && ents != nil {
			t.Fatal("entities returned with an error")
		}
	})
}

func FuzzParseDPL(f *testing.F) {
	seed(f, td("us_csl_dpl", "dpl.txt"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ents, err := ParseDPL("dpl.txt", b); err != nil && ents != nil {
			t.Fatal("entities returned with an error")
		}
	})
}

func FuzzParseSenzing(f *testing.F) {
	seed(f, td("opensanctions", "peps_senzing.json"))
	f.Add([]byte(`{"RECORD_ID":"1","NAMES":[{"NAME_TYPE":"PRIMARY","NAME_FULL":"A B"}],"DATES":[{"DATE_OF_BIRTH":"1960"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ents, err := ParseSenzing("p.json", b); err != nil && ents != nil {
			t.Fatal("entities returned with an error")
		}
	})
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"10 Dec 1948", "circa 1966", "1960 to 1962", "1965-03-15", "15.03.1965", "Jun 1970"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseDate(s)
		if ok && (d.Year < 1799 || d.Month > 12 || d.Day > 31 || (d.YearTo != 0 && d.YearTo < d.Year)) {
			t.Fatalf("ParseDate(%q) = %+v", s, d)
		}
	})
}

func FuzzCountryCode(f *testing.F) {
	for _, s := range []string{"Iran", "KEN", "D<<", "Côte d'Ivoire", "Korea, North", "Iran (Islamic Republic of)", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if c := CountryCode(s); c != "" && len(c) != 2 {
			t.Fatalf("CountryCode(%q) = %q", s, c)
		}
	})
}
