package ocr

import "testing"

// The dates of a side whose captions were not read are given out by the
// order every document keeps: born, issued, expiring.
func TestDatesByOrder(t *testing.T) {
	def := builtin(t, "kenya_national_id")
	w := printed(10, 25)
	cases := []struct {
		name       string
		words      []word
		birth      string // want, "" for not given
		issue      string
		birthLabel bool // DATE OF BIRTH printed over the first date
	}{
		{name: "two dates, two fields", words: []word{w(400, 300, "16.08.2017"), w(400, 200, "24.09.1953")},
			birth: "24.09.1953", issue: "16.08.2017"},
		{name: "three dates, two fields", words: []word{w(400, 300, "16.08.2017"), w(400, 200, "24.09.1953"), w(700, 200, "01.01.2030")}},
		{name: "two dates on one line a word space apart", words: []word{w(400, 300, "16.08.2017"), w(520, 300, "15.08.2027"), w(400, 200, "24.09.1953")}},
		{name: "two dates on one line, two fields", words: []word{w(400, 200, "24.09.1953"), w(520, 200, "16.08.2017")},
			birth: "24.09.1953", issue: "16.08.2017"},
		{name: "one date", words: []word{w(400, 200, "24.09.1953")}},
		{name: "the same day twice", words: []word{w(400, 200, "24.09.1953"), w(700, 200, "24.09.1953")}},
		{name: "one date beside a date read by its caption", birthLabel: true, issue: "16.08.2017",
			words: []word{w(400, 170, "DATE"), w(460, 170, "OF"), w(500, 170, "BIRTH"), w(400, 200, "24.09.1953"), w(400, 300, "16.08.2017")}},
		{name: "one date the order contradicts", birthLabel: true,
			words: []word{w(400, 170, "DATE"), w(460, 170, "OF"), w(500, 170, "BIRTH"), w(400, 200, "24.09.1953"), w(400, 300, "16.08.1917")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", tc.words)
			rs := map[string]fieldRead{}
			if tc.birthLabel {
				rs["date_of_birth"] = fieldRead{how: "label", value: "24.09.1953", valid: true}
			}
			datesByOrder(def, "front", ly, rs)
			if tc.birthLabel {
				tc.birth = "24.09.1953"
			}
			if got := rs["date_of_birth"].value; got != tc.birth {
				t.Errorf("date_of_birth = %q, want %q", got, tc.birth)
			}
			if got := rs["date_of_issue"].value; got != tc.issue {
				t.Errorf("date_of_issue = %q, want %q", got, tc.issue)
			}
			if tc.birthLabel && len(ly.hits["date_of_birth"]) == 0 {
				t.Error("DATE OF BIRTH not found as a caption")
			}
		})
	}
}
