package address

import "testing"

func TestMatchName(t *testing.T) {
	holder := []string{"JOHN KAMAU MWANGI"}
	for _, tc := range []struct {
		doc   string
		match bool
		min   float64 // lowest acceptable score
		max   float64
	}{
		{"JOHN KAMAU MWANGI", true, 1, 1},
		{"Mr. John K. Mwangi", true, 1, 1},
		{"MWANGI JOHN", true, 1, 1},
		{"Mwangi, John Kamau", true, 1, 1},
		{"DR JOHN MWANGl", true, 1, 1}, // OCR l for I forgiven in a long name
		{"J. K. MWANGI", false, 0.3, 0.6},
		{"JOHN KAMAUMWANGI", true, 1, 1},    // a lost space
		{"JOHN KAMAUOTIENO", false, 0, 0.6}, // one full name: review, not a match
		{"JOHN OTIENO", false, 0, 0.6},      // another surname
		{"PETER KAMAU MWANGI", false, 0, 0.8},
		{"MARY WANJIRU", false, 0, 0},
		{"", false, 0, 0},
	} {
		m := MatchName(tc.doc, holder)
		if m.Match != tc.match || m.Score < tc.min || m.Score > tc.max {
			t.Errorf("MatchName(%q) = match %v score %.2f unmatched %v; want match %v score in [%.2f, %.2f]",
				tc.doc, m.Match, m.Score, m.Unmatched, tc.match, tc.min, tc.max)
		}
	}
	if m := MatchName("AMINA", []string{"AMINA"}); !m.Match {
		t.Errorf("a single-name holder: %+v", m)
	}
	if m := MatchName("José Álvarez", []string{"JOSE", "ALVAREZ"}); !m.Match {
		t.Errorf("accents: %+v", m)
	}
}

func TestTrimName(t *testing.T) {
	for in, want := range map[string]string{
		"DR FAITH MWANGI WANJIRU.": "DR FAITH MWANGI WANJIRU",
		" JOHN KAMAU, ":            "JOHN KAMAU",
		"ACHIENG, AMINA M.":        "ACHIENG, AMINA M.",
		"MWANGI, PETER":            "MWANGI, PETER",
		"":                         "",
	} {
		if got := trimName(in); got != want {
			t.Errorf("trimName(%q) = %q, want %q", in, got, want)
		}
	}
}
