package synth

import (
	"context"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/mrz"
)

// TestMRZParserAccepts feeds the MRZ of every definition that prints one,
// over several samples, to the project's MRZ parser and expects every
// check to pass and the parsed fields to equal the truth's mrz_parsed.
func TestMRZParserAccepts(t *testing.T) {
	var defs = docdefs.Default().Drawn()
	gen := newTestGenerator(t, Options{Definitions: defs, Seed: 99, Difficulty: Easy})
	n := 0
	for i := 0; i < 2*len(defs); i++ {
		d := defs[i%len(defs)]
		if d.MRZ == nil {
			continue
		}
		id, err := newIdentity(newRNG(SampleSeed(99, i), 4), d, ReferenceDate, "M")
		if err != nil {
			t.Fatal(err)
		}
		lines, err := id.mrz.lines()
		if err != nil {
			t.Fatal(err)
		}
		want := id.mrz.parsed()
		got, err := mrz.Parse(lines, mrz.Options{Now: ReferenceDate})
		if err != nil {
			t.Fatalf("%s: %v\n%v", d.Config, err, lines)
		}
		if !got.AllChecksPass {
			t.Errorf("%s: checks fail: %+v\n%v", d.Config, got.Checks, lines)
		}
		for k, g := range map[string]string{"document_number": got.DocumentNumber, "date_of_birth": got.DateOfBirth,
			"date_of_expiry": got.DateOfExpiry, "sex": got.Sex, "surname": got.Surname, "given_names": got.GivenNames,
			"nationality": got.Nationality, "document_code": got.DocumentCode} {
			if w := want[k].(string); g != w {
				t.Errorf("%s: parser %s = %q, truth %q", d.Config, k, g, w)
			}
		}
		n++
	}
	// and once through a rendered sample's truth
	s, err := gen.Sample(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Truth.MRZLines) > 0 {
		got, err := mrz.Parse(s.Truth.MRZLines, mrz.Options{Now: ReferenceDate})
		if err != nil || !got.AllChecksPass {
			t.Errorf("sample 2 MRZ: %v %+v", err, got)
		}
	}
	if n == 0 {
		t.Fatal("no definition with an MRZ")
	}
}
