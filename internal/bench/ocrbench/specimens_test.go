package ocrbench

import (
	"context"
	"os"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/vision"
)

// The specimens are given the check as a caller would: the generic
// definition of the format of the MRZ the image shows (a visa's MRV-B to
// generic_visa_b, not to the TD2 card of its size), whether or not its
// check digits pass (the Maltese specimen's are wrong: still a TD1 card).
func TestForMRZ(t *testing.T) {
	cands, err := Candidates(docdefs.Default(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		image, format, want string
	}{
		{"arg0s_visas__MRVB_ICAO_Example.png", "MRVB", "generic_visa_b"},
		{"arg0s_visas__USA.png", "MRVA", "generic_visa_a"},
		{"passeye_passport-td3.jpg", "TD3", "generic_passport"},
		{"arg0s_id_cards__Malta_BAD.png", "TD1", "generic_id_card"},
	} {
		data, err := os.ReadFile(fixtures.Path(t, "ids", tc.image))
		if err != nil {
			t.Fatal(err)
		}
		img, err := vision.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		got, format, err := ForMRZ(context.Background(), img, cands)
		if err != nil {
			t.Fatal(err)
		}
		if format != tc.format {
			t.Errorf("%s: format %q, want %q", tc.image, format, tc.format)
		}
		if tc.want == "" {
			if len(got) != len(cands) {
				t.Errorf("%s: %d candidates, want all %d", tc.image, len(got), len(cands))
			}
			continue
		}
		if len(got) != 1 || got[0].Config != tc.want {
			t.Errorf("%s: %d candidates (%v), want %s", tc.image, len(got), got, tc.want)
		}
	}
}

// A printed name agrees with the MRZ's when it differs only by what an
// MRZ cannot hold (hyphens, apostrophes, accents); other fields compare
// exactly.
func TestNameAgrees(t *testing.T) {
	for _, tc := range []struct {
		field, printed, mrz string
		want                bool
	}{
		{"surname", "KOWALSKA-KWIATKOWSKA", "KOWALSKA KWIATKOWSKA", true},
		{"given_names", "MEI-HUA", "MEI HUA", true},
		{"surname", "O'NEILL", "ONEILL", true},
		{"surname", "AUSTERMANN", "MUSTERMANN", false},
		{"document_number", "AA-0000000", "AA0000000", false},
	} {
		if got := nameAgrees(tc.field, tc.printed, tc.mrz); got != tc.want {
			t.Errorf("%s %q vs %q: %v, want %v", tc.field, tc.printed, tc.mrz, got, tc.want)
		}
	}
}
