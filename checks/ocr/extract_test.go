package ocr

import (
	"testing"

	"github.com/tambua/tambua/idv"
)

func TestReconcile(t *testing.T) {
	cases := []struct{ reread, page, want string }{
		{"ANNAMARIA", "ANNA MARIA", "ANNA MARIA"},                // the line's spaces
		{"BUNDESDRUCKERE", "BUNDESDRUCKEREI", "BUNDESDRUCKEREI"}, // a narrow last glyph trimmed
		{"MAKUENI", "MAKUENI A", "MAKUENI"},                      // a word the re-read left out
		{"S-I KIKUYU", "KIKUYU", "KIKUYU"},                       // a caption's end in the padding
		{"JOHN SMITH A", "JOHN SMITH", "JOHN SMITH"},             // artwork after the value
		{"OTIENO", "OTIEMO", "OTIENO"},
		{"P", "PP", "P"}, // a one-letter value is whole                           // a letter read otherwise
	}
	for _, tc := range cases {
		r := fieldRead{value: tc.reread, valid: true}
		reconcile(&r, tc.page)
		if r.value != tc.want {
			t.Errorf("reconcile(%q, page %q) = %q, want %q", tc.reread, tc.page, r.value, tc.want)
		}
	}
}

// A page reading the box re-read did not confirm stands when confident,
// or, for a value of its own shape, at the confidence every value needs.
func TestPageStands(t *testing.T) {
	code := field(t, "ghana_voter_id", "polling_station_code")
	name := field(t, "ghana_voter_id", "surname")
	cases := []struct {
		name string
		f    idv.FieldDef
		conf float64
		want bool
	}{
		{"a code read at 60", code, 59.99, true},
		{"a code read as a guess", code, 40, false},
		{"a name read at 60", name, 60, false},
		{"a name read confidently", name, 85, true},
	}
	for _, tc := range cases {
		if got := pageStands(tc.f, tc.conf); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A lone glyph near a caption ranks behind a word of print a little
// further for a field whose values are words, not for one whose value is
// a letter.
func TestRankCandidates(t *testing.T) {
	cands := func() []candidate {
		return []candidate{{text: "A", score: 1.35}, {text: "TSHEPO DUMISANI", score: 1.74}}
	}
	for _, tc := range []struct{ config, field, want string }{
		{"south_africa_id", "names", "TSHEPO DUMISANI"},
		{"south_africa_id", "sex", "A"},
		{"ke_passport", "document_type", "A"},
	} {
		if got := rankCandidates(field(t, tc.config, tc.field), cands())[0].text; got != tc.want {
			t.Errorf("%s: first %q, want %q", tc.field, got, tc.want)
		}
	}
}
