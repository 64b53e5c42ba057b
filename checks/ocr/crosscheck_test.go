package ocr

import (
	"image"
	"slices"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// TestCrossCheck: a trusted MRZ settles letter/digit confusions only in
// fields its check digits cover; elsewhere a difference is a conflict.
func TestCrossCheck(t *testing.T) {
	d, ok := docdefs.Default().Definition("generic_passport")
	if !ok {
		t.Fatal("no generic_passport")
	}
	mrz := &idv.MRZData{Format: "TD3", DocumentCode: "P", IssuingState: "UTQ", DocumentNumber: "L898902C3",
		Surname: "ERIKSSON", GivenNames: "ANNA MARIA", Nationality: "UTO", DateOfBirth: "1974-08-12",
		DateOfExpiry: "2032-04-15", Sex: "F", AllChecksPass: true}
	cases := []struct {
		name, field, printed, want string
		resolved, conflict         bool
	}{
		{"O for 0 in the document number", "passport_number", "L8989O2C3", "L898902C3", true, false},
		{"agreeing country code", "nationality", "UTO", "UTO", false, false},
		{"country code not settled by the MRZ's own reading", "issuing_state", "UTO", "UTO", false, true},
		{"unread field taken from the MRZ", "surname", "", "ERIKSSON", false, false},
	}
	t.Run("untrusted MRZ settles nothing", func(t *testing.T) {
		bad := *mrz
		bad.AllChecksPass = false
		ex := &Extraction{Fields: map[string]string{"surname": "", "passport_number": "L8989O2C3"}}
		crossCheck(ex, d, &bad)
		if ex.Fields["surname"] != "" || ex.Fields["passport_number"] != "L8989O2C3" || len(ex.Quality.Conflicts) != 0 {
			t.Errorf("fields %v, conflicts %v", ex.Fields, ex.Quality.Conflicts)
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ex := &Extraction{Fields: map[string]string{tc.field: tc.printed}}
			crossCheck(ex, d, mrz)
			if got := ex.Fields[tc.field]; got != tc.want {
				t.Errorf("%s = %q, want %q", tc.field, got, tc.want)
			}
			if got := slices.Contains(ex.Resolved, tc.field); got != tc.resolved {
				t.Errorf("resolved %v, want %v", got, tc.resolved)
			}
			if got := slices.Contains(ex.Quality.Conflicts, tc.field); got != tc.conflict {
				t.Errorf("conflict %v, want %v (conflicts %v)", got, tc.conflict, ex.Quality.Conflicts)
			}
		})
	}
}

// TestAgreementPiece: the piece a reviewer sees is the term the score
// used: coverage when there was no MRZ, the agreement otherwise.
func TestAgreementPiece(t *testing.T) {
	for _, tc := range []struct {
		name  string
		noMRZ bool
		want  float64
	}{
		{"no MRZ", true, 0.9},
		{"MRZ", false, 0.5},
	} {
		ex := &Extraction{noMRZ: tc.noMRZ}
		ex.Quality.Coverage, ex.Quality.Agreement = 0.9, 0.5
		if p := agreementPiece(ex); p.Value != tc.want || p.Name != "agreement" {
			t.Errorf("%s: piece %+v, want value %v", tc.name, p, tc.want)
		}
	}
}

// The date of issue given out by the order of a blurred page's dates is
// kept only when the dates the MRZ carries came out where the MRZ says.
func TestOrderConfirmed(t *testing.T) {
	d, ok := docdefs.Default().Definition("generic_passport")
	if !ok {
		t.Fatal("no generic_passport")
	}
	mrz := &idv.MRZData{Format: "TD3", DateOfBirth: "1970-08-27", DateOfExpiry: "2028-02-20", AllChecksPass: true}
	byOrder := func(dob, issue, expiry string) map[string]fieldRead {
		return map[string]fieldRead{"date_of_birth": {value: dob, valid: true, how: "chronology"},
			"date_of_issue": {value: issue, valid: true, how: "chronology"}, "date_of_expiry": {value: expiry, valid: true, how: "chronology"}}
	}
	cases := []struct {
		name string
		rs   map[string]fieldRead
		want bool
	}{
		{"birth and expiry as in the MRZ", byOrder("27.08.1970", "21.02.2018", "20.02.2028"), true},
		{"expiry not the MRZ's", byOrder("27.08.1970", "20.02.2028", "21.02.2030"), false},
		{"only dates the MRZ carries", map[string]fieldRead{"date_of_birth": {value: "27.08.1970", valid: true}}, false},
		{"nothing given out", nil, false},
	}
	for _, tc := range cases {
		if got := orderConfirmed(d, mrz, tc.rs); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A side that did not read as its layout still gives its captioned
// reads and confirmed dates when it carries a trusted MRZ of its own
// definition's document, or the definition is generic; not a page without
// the MRZ, nor under an MRZ whose check digits fail or that names another
// document.
func TestKeepsUnmatched(t *testing.T) {
	reg := docdefs.Default()
	def := func(c string) *idv.DocumentDefinition { d, _ := reg.Definition(c); return d }
	trusted := &idv.MRZData{Format: "TD3", DocumentCode: "P", AllChecksPass: true}
	failing := &idv.MRZData{Format: "TD3", DocumentCode: "P"}
	cases := []struct {
		name     string
		d        *idv.DocumentDefinition
		side     string
		mrz      *idv.MRZData
		mrzMatch bool
		want     bool
	}{
		{"a passport page with its trusted MRZ", def("ke_passport"), "front", trusted, true, true},
		{"its MRZ failing its check digits", def("ke_passport"), "front", failing, true, false},
		{"an MRZ of another document", def("ke_passport"), "front", trusted, false, false},
		{"a card's back carries the MRZ, not its front", def("ke_national_id"), "front",
			&idv.MRZData{Format: "TD1", DocumentCode: "ID", AllChecksPass: true}, true, false},
		{"a card's back with its MRZ", def("ke_national_id"), "back", &idv.MRZData{Format: "TD1", DocumentCode: "ID", AllChecksPass: true}, true, true},
		{"a generic page", def("generic_passport"), "front", trusted, true, true},
		{"no MRZ", def("kenya_national_id"), "front", nil, false, false},
	}
	for _, tc := range cases {
		if got := keepsUnmatched(tc.d, tc.side, tc.mrz, tc.mrzMatch); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A passport page whose small captions were lost: the surname read from
// the sex's garbled caption (M) and the given names from artwork are
// replaced by the one run of print that reads the MRZ's value, however
// unsure tesseract was of it; a surname printed otherwise than the MRZ
// (altered) is left as read, and a sex is not read out of the word OF.
func TestLocatedByMRZ(t *testing.T) {
	def := builtin(t, "ke_passport")
	w := printed(16, 26)
	words := []word{w(838, 275, "A159231"), w(838, 330, "Mwangi"), w(838, 385, "Collins"), w(960, 385, "Felix"),
		w(838, 440, "KENYAN"), w(838, 495, "M"), w(400, 600, "OF"),
		// The MRZ, its second name read apart with the fillers dropped.
		w(60, 860, "P<KEN<<OCHIENG<<<"), w(400, 870, "OCHIENG")}
	words[1].conf = 30
	mrz := &idv.MRZData{Format: "TD3", Surname: "MWANGI", GivenNames: "COLLINS FELIX", Sex: "F", Nationality: "KEN",
		DocumentNumber: "A159231", AllChecksPass: true}
	cases := []struct {
		name    string
		surname string // the MRZ's
		want    map[string]string
	}{
		{"print agrees with the MRZ", "MWANGI", map[string]string{"surname": "MWANGI", "given_names": "COLLINS FELIX", "sex": ""}},
		{"print altered", "OTIENO", map[string]string{"surname": "M", "given_names": "COLLINS FELIX"}},
		{"only the MRZ reads it", "OCHIENG", map[string]string{"surname": "M"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := *mrz
			m.Surname = tc.surname
			ly := knownLayout(def, "front", words)
			rs := map[string]fieldRead{
				"surname":     {box: words[5].box, how: "loose", valid: true, value: "M", conf: 99},
				"given_names": {box: image.Rect(10, 10, 60, 30), how: "region", valid: true, value: "SGAM A VAIS", conf: 83},
				"sex":         {how: "zone"},
			}
			locatedByMRZ(def, &m, map[string]*layout{"front": ly}, rs)
			wantValues(t, rs, tc.want)
		})
	}
}

// A value read by the ICAO order of a generic page that disagrees with
// the trusted MRZ is placed weakly: a page printing its data zone in two
// columns (the surname beside the number) gave the given names as the
// surname by that order; the one print of the MRZ's surname is the
// surname's.
func TestLocatedByMRZOverOrder(t *testing.T) {
	def := builtin(t, "generic_passport")
	w := printed(16, 26)
	words := []word{w(510, 245, "Y14RYG"), w(1005, 245, "Silva"), w(510, 315, "Omar"), w(1005, 315, "UTO")}
	ly := knownLayout(def, "front", words)
	rs := map[string]fieldRead{
		"surname":     {box: words[2].box, how: "order", valid: true, value: "OMAR", conf: 97},
		"given_names": {how: "zone"},
	}
	m := &idv.MRZData{Format: "TD3", Surname: "SILVA", GivenNames: "OMAR", DocumentNumber: "Y14RYG", AllChecksPass: true}
	locatedByMRZ(def, m, map[string]*layout{"front": ly}, rs)
	wantValues(t, rs, map[string]string{"surname": "SILVA", "given_names": "OMAR"})
}

// A caption naming both names (NOM PRÉNOM / SURNAME NAME, the Polish
// visa) of which only the given names' word was read gives the given
// names the surname's print: a name that spells the MRZ's other name and
// not its own is placed as weakly as one from the zone, and each name is
// the one run of print that reads its MRZ value. A given name printed
// otherwise than the MRZ's surname (no confusion, or an altered print) is
// left as read.
func TestLocatedByMRZMisnamed(t *testing.T) {
	def := builtin(t, "generic_passport")
	w := printed(16, 26)
	words := []word{w(510, 245, "KOWALSKA-KWIATKOWSKA"), w(1005, 245, "BEATA")}
	m := &idv.MRZData{Format: "TD3", Surname: "KOWALSKA KWIATKOWSKA", GivenNames: "BEATA", AllChecksPass: true}
	cases := []struct {
		name  string
		given string // as read next to PRÉNOM
		want  map[string]string
	}{
		{"the surname's print under the given names' caption", "KOWALSKA-KWIATKOWSKA",
			map[string]string{"surname": "KOWALSKA-KWIATKOWSKA", "given_names": "BEATA"}},
		{"a given name of its own", "ANNA", map[string]string{"surname": "KOWALSKA-KWIATKOWSKA", "given_names": "ANNA"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", words)
			box := words[0].box
			if tc.given != "KOWALSKA-KWIATKOWSKA" {
				box = words[1].box
			}
			rs := map[string]fieldRead{
				"surname":     {how: "zone"},
				"given_names": {box: box, how: "label", valid: true, value: tc.given, conf: 99},
			}
			locatedByMRZ(def, m, map[string]*layout{"front": ly}, rs)
			wantValues(t, rs, tc.want)
		})
	}
}

// A surname printed in capitals and written by hand in the signature
// (SPECIMEN and Specimen on the Swedish card): the one run in capitals is
// the field's print. Two runs in capitals, or none, place nothing.
func TestLocatedByMRZCapitals(t *testing.T) {
	def := builtin(t, "generic_passport")
	w := printed(16, 26)
	m := &idv.MRZData{Format: "TD3", Surname: "SPECIMEN", GivenNames: "SVEN", AllChecksPass: true}
	cases := []struct {
		name  string
		words []word
		want  string
	}{
		{"print and signature", []word{w(510, 245, "SPECIMEN"), w(900, 500, "Specimen")}, "SPECIMEN"},
		{"printed twice", []word{w(510, 245, "SPECIMEN"), w(900, 500, "SPECIMEN")}, ""},
		{"written twice", []word{w(510, 245, "Specimen"), w(900, 500, "Specimen")}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", tc.words)
			rs := map[string]fieldRead{"surname": {how: "zone"}}
			locatedByMRZ(def, m, map[string]*layout{"front": ly}, rs)
			wantValues(t, rs, map[string]string{"surname": tc.want})
		})
	}
}

// A generic page's date of birth whose caption was not read is the one
// run of print that reads the MRZ's date in any common print (the Polish
// visa's 1960-02-08); an issuer's dates are left to their order.
func TestLocatedByMRZDate(t *testing.T) {
	w := printed(16, 26)
	words := []word{w(510, 245, "1960-02-08"), w(900, 245, "2005-01-01")}
	m := &idv.MRZData{Format: "TD3", Surname: "KOWALSKA", GivenNames: "BEATA", DateOfBirth: "1960-02-08", AllChecksPass: true}
	for _, tc := range []struct {
		config, want string
	}{
		{"generic_passport", "08.02.1960"},
		{"ke_passport", ""},
	} {
		t.Run(tc.config, func(t *testing.T) {
			def := builtin(t, tc.config)
			ly := knownLayout(def, "front", words)
			rs := map[string]fieldRead{"date_of_birth": {how: "zone"}}
			locatedByMRZ(def, m, map[string]*layout{"front": ly}, rs)
			wantValues(t, rs, map[string]string{"date_of_birth": tc.want})
		})
	}
}

// A document number's print read with O for 0 (the Latvian page's
// LTOO00000) is still the run of the MRZ's number: located as read, for
// crossCheck to settle by the check digit. A name is matched exactly.
func TestLocatedByMRZConfusedNumber(t *testing.T) {
	def := builtin(t, "generic_passport")
	w := printed(16, 26)
	words := []word{w(1005, 150, "LTOO00000"), w(510, 245, "MOHAMADA")}
	m := &idv.MRZData{Format: "TD3", Surname: "MOHAMADA", GivenNames: "FARIDA", DocumentNumber: "LT0000000", AllChecksPass: true}
	ly := knownLayout(def, "front", words)
	rs := map[string]fieldRead{"passport_number": {how: "zone"}, "surname": {how: "zone"}}
	locatedByMRZ(def, m, map[string]*layout{"front": ly}, rs)
	wantValues(t, rs, map[string]string{"passport_number": "LTOO00000", "surname": "MOHAMADA"})

	m.Surname = "M0HAMADA"
	rs = map[string]fieldRead{"surname": {how: "zone"}}
	locatedByMRZ(def, m, map[string]*layout{"front": ly}, rs)
	wantValues(t, rs, map[string]string{"surname": ""})
}
