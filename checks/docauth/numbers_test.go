package docauth

import (
	"strings"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// The personal number against the birth date its issuer builds it from.
// South African numbers are real-format (YYMMDD, sequence, citizenship, 8,
// Luhn digit): 8001015009087 passes the Luhn test.
func TestNumberRules(t *testing.T) {
	reg := docdefs.Default()
	firm := func(fields ...string) *idv.OCRReadings {
		r := &idv.OCRReadings{Fields: map[string]idv.FieldReading{}}
		for _, f := range fields {
			r.Fields[f] = idv.FieldReading{Side: "front", How: "label", Conf: 95}
		}
		return r
	}
	for _, tc := range []struct {
		name, config string
		fields       map[string]string
		readings     *idv.OCRReadings
		want         string // "finding", "clean" or "skipped"
	}{
		{"SA genuine", "south_africa_id", map[string]string{"identity_number": "8001015009087", "date_of_birth": "01.01.1980"}, firm("identity_number", "date_of_birth"), "clean"},
		{"SA birth date edited", "south_africa_id", map[string]string{"identity_number": "8001015009087", "date_of_birth": "01.01.1984"}, firm("identity_number", "date_of_birth"), "finding"},
		{"SA number made up", "south_africa_id", map[string]string{"identity_number": "7306124411083", "date_of_birth": "01.01.1980"}, firm("identity_number", "date_of_birth"), "finding"},
		// one digit misread (0 read as 6): the Luhn digit fails and the
		// date is one character off: a misread, not a finding
		{"SA number misread", "south_africa_id", map[string]string{"identity_number": "8601015009087", "date_of_birth": "01.01.1980"}, firm("identity_number", "date_of_birth"), "skipped"},
		{"SA birth date read weakly", "south_africa_id", map[string]string{"identity_number": "8001015009087", "date_of_birth": "01.01.1984"}, firm("identity_number"), "skipped"},
		{"TZ genuine", "tanzania_national_id", map[string]string{"nin": "19870719-26821-38451-19", "date_of_birth": "19.07.1987"}, firm("nin", "date_of_birth"), "clean"},
		{"TZ birth date edited", "tanzania_national_id", map[string]string{"nin": "19870719-26821-38451-19", "date_of_birth": "19.02.1976"}, firm("nin", "date_of_birth"), "finding"},
		{"UG genuine", "uganda_national_id_old", map[string]string{"nin": "CM91270331MLIAC", "date_of_birth": "11.09.1991"}, firm("nin", "date_of_birth"), "clean"},
		{"UG birth year edited", "uganda_national_id_old", map[string]string{"nin": "CM91270331MLIAC", "date_of_birth": "11.12.1987"}, firm("nin", "date_of_birth"), "finding"},
		{"no rule", "kenya_national_id", map[string]string{"national_id_number": "45571891", "date_of_birth": "18.05.1945"}, firm("national_id_number", "date_of_birth"), "skipped"},
		{"number read weakly", "tanzania_national_id", map[string]string{"nin": "19870719-26821-38451-19", "date_of_birth": "19.02.1976"}, firm("date_of_birth"), "skipped"},
	} {
		d, ok := reg.Definition(tc.config)
		if !ok {
			t.Fatalf("%s: no definition %s", tc.name, tc.config)
		}
		rd := tc.readings
		for f := range tc.fields {
			if _, ok := rd.Fields[f]; !ok {
				rd.Fields[f] = idv.FieldReading{Side: "front", How: "region", Conf: 95}
			}
		}
		lr := numbersLayer(inputs{def: d, fields: tc.fields, readings: rd})
		got := "clean"
		switch {
		case len(lr.findings) > 0:
			got = "finding"
			if lr.findings[0].code != CodeNumberMismatch || lr.score != 0 {
				t.Errorf("%s: %+v score %v", tc.name, lr.findings, lr.score)
			}
		case lr.skipped != "":
			got = "skipped"
		}
		if got != tc.want {
			t.Errorf("%s: %s (%+v, skipped %q, unexamined %v), want %s", tc.name, got, lr.findings, lr.skipped, lr.unexamined, tc.want)
		}
		if got == "skipped" && tc.want == "skipped" && !strings.Contains(lr.skipped, "examine") && !strings.Contains(lr.skipped, "no known") {
			t.Errorf("%s: skipped without saying why: %q", tc.name, lr.skipped)
		}
	}
}
