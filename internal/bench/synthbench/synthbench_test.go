package synthbench

import (
	"reflect"
	"testing"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/mrz"
)

// ICAO 9303's specimen passport.
var specimen = []string{
	"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
	"L898902C36UTO7408122F1204159ZE184226B<<<<<10",
}

func TestCheckTruth(t *testing.T) {
	m, err := mrz.Parse(specimen, mrz.Options{Now: synth.ReferenceDate})
	if err != nil {
		t.Fatal(err)
	}
	def := &idv.DocumentDefinition{Config: "test_id", FieldSchema: []string{"id_number", "surname"},
		Fields: []idv.FieldDef{{Name: "id_number", Pattern: `^[0-9]{8}$`}, {Name: "surname"}}}
	good := map[string]string{"id_number": "12345678", "surname": "ERIKSSON"}
	parsed := map[string]any{"document_number": m.DocumentNumber, "date_of_birth": m.DateOfBirth}
	badCheck := []string{specimen[0], "L898902C37UTO7408122F1204159ZE184226B<<<<<10"}
	for _, tc := range []struct {
		name  string
		truth synth.Truth
		want  TruthCheck
	}{
		{"valid, no MRZ", synth.Truth{Combined: good}, TruthCheck{Valid: true}},
		{"valid with MRZ", synth.Truth{Combined: good, MRZLines: specimen, MRZParsed: parsed},
			TruthCheck{Valid: true, HasMRZ: true, MRZOK: true}},
		{"pattern broken", synth.Truth{Combined: map[string]string{"id_number": "1234567X", "surname": "ERIKSSON"}},
			TruthCheck{Problems: []string{`3 test_id.id_number="1234567X"`}}},
		{"field missing", synth.Truth{Combined: map[string]string{"id_number": "12345678"}}, TruthCheck{}},
		{"check digit wrong", synth.Truth{Combined: good, MRZLines: badCheck, MRZParsed: parsed},
			TruthCheck{Valid: true, HasMRZ: true, Problems: []string{"3 test_id MRZ"}}},
		{"MRZ disagrees with the truth", synth.Truth{Combined: good, MRZLines: specimen,
			MRZParsed: map[string]any{"document_number": "L898902C4", "date_of_birth": m.DateOfBirth}},
			TruthCheck{Valid: true, HasMRZ: true, Problems: []string{"3 test_id MRZ"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CheckTruth(3, def, &tc.truth); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
