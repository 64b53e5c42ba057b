package ocr

import (
	"image"
	"testing"
)

func TestOneOwner(t *testing.T) {
	box := image.Rect(100, 100, 200, 130)
	other := image.Rect(100, 200, 200, 230)
	cases := []struct {
		name string
		rs   map[string]fieldRead
		want map[string]bool // valid after
	}{
		{"label beats region", map[string]fieldRead{
			"sex": {how: "label", box: box, value: "M", valid: true}, "full_name": {how: "region", box: box, value: "MALE", valid: true}},
			map[string]bool{"sex": true, "full_name": false}},
		{"two labels stand", map[string]fieldRead{
			"surname": {how: "label", box: box, value: "LIN", valid: true}, "given_names": {how: "label", box: box, value: "MEI-HUA", valid: true}},
			map[string]bool{"surname": true, "given_names": true}},
		{"two regions both go", map[string]fieldRead{
			"district": {how: "region", box: box, value: "NANDI", valid: true}, "division": {how: "region", box: box, value: "NANDI", valid: true}},
			map[string]bool{"district": false, "division": false}},
		{"apart, both stand", map[string]fieldRead{
			"sex": {how: "label", box: box, value: "M", valid: true}, "full_name": {how: "region", box: other, value: "JOHN", valid: true}},
			map[string]bool{"sex": true, "full_name": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oneOwner(tc.rs)
			for f, v := range tc.want {
				if tc.rs[f].valid != v {
					t.Errorf("%s valid = %v, want %v", f, tc.rs[f].valid, v)
				}
			}
		})
	}
}

// A name or place read only from its zone's words that no name or place
// is (no vowel, a letter thrice) is artwork; found otherwise, or a code,
// it stands.
func TestDropUnlikely(t *testing.T) {
	cases := []struct {
		config, field, how, value string
		kept                      bool
	}{
		{"tanzania_national_id", "surname", "region", "LAIZER", true},
		{"tanzania_national_id", "surname", "region", "NM", false},
		{"uganda_national_id_old", "sub_county", "region", "AWWW", false},
		{"ke_national_id", "sub_location", "zone", "RR", false},
		{"tanzania_national_id", "surname", "label", "NM", true},
		{"generic_passport", "issuing_state", "region", "GBR", true},
		{"generic_passport", "surname", "region", "WYNN", true},
	}
	for _, tc := range cases {
		def := builtin(t, tc.config)
		rs := map[string]fieldRead{tc.field: {how: tc.how, value: tc.value, valid: true}}
		dropUnlikely(def, rs)
		if got := rs[tc.field].valid; got != tc.kept {
			t.Errorf("%s %s %q by %s: kept %v, want %v", tc.config, tc.field, tc.value, tc.how, got, tc.kept)
		}
	}
}
