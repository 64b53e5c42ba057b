package age

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
)

func newCase(dobField string, mrz *idv.MRZData, params map[string]any) *idv.Case {
	c := idv.NewCase(nil)
	c.Now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	c.SetFields([]string{"date_of_birth"}, map[string]string{"date_of_birth": dobField})
	if mrz != nil {
		c.SetMRZ(mrz)
	}
	c.Step = idv.Step{Name: idv.CheckAge, Params: params}
	return c
}

func TestAgeVerification(t *testing.T) {
	tests := []struct {
		name    string
		field   string
		mrz     *idv.MRZData
		params  map[string]any
		status  idv.Status
		reason  string
		wantAge float64
	}{
		{"adult from OCR", "15.03.1990", nil, nil, idv.StatusPassed, "", 36},
		{"eighteen today", "22.11.2008", nil, nil, idv.StatusPassed, "", 18},
		{"eighteen tomorrow", "23.11.2008", nil, nil, idv.StatusFailed, ReasonUnderage, 17},
		{"MRZ wins when its digits pass", "15.03.1990", &idv.MRZData{DateOfBirth: "2010-01-01", AllChecksPass: true}, nil, idv.StatusFailed, ReasonUnderage, 16},
		{"MRZ ignored when its digits fail", "15.03.1990", &idv.MRZData{DateOfBirth: "2010-01-01", AllChecksPass: false}, nil, idv.StatusPassed, "", 36},
		{"minimum age param", "15.03.2006", nil, map[string]any{"min_age": 21}, idv.StatusFailed, ReasonUnderage, 20},
		{"minimum age param as JSON number", "15.03.2005", nil, map[string]any{"min_age": 16.0}, idv.StatusPassed, "", 21},
		{"unreadable", "", nil, nil, idv.StatusReview, ReasonDOBUnreadable, 0},
		{"31 February", "31.02.1990", nil, nil, idv.StatusReview, ReasonDOBUnreadable, 0},
		{"born in the future", "01.01.2030", nil, nil, idv.StatusReview, ReasonDOBUnreadable, 0},
		{"ISO date is not the printed format", "1990-03-15", nil, nil, idv.StatusReview, ReasonDOBUnreadable, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Check{}.Run(context.Background(), newCase(tc.field, tc.mrz, tc.params))
			if err != nil {
				t.Fatal(err)
			}
			reason := ""
			if len(out.Reasons) > 0 {
				reason = out.Reasons[0]
			}
			if out.Status != tc.status || reason != tc.reason {
				t.Fatalf("got %s %q, want %s %q", out.Status, reason, tc.status, tc.reason)
			}
			if tc.status == idv.StatusPassed && out.Pieces[0].Value != tc.wantAge {
				t.Errorf("age piece %+v, want %v", out.Pieces[0], tc.wantAge)
			}
		})
	}
}

func TestMinAgeInvalid(t *testing.T) {
	for _, v := range []any{"18", 17.5, 0, 200, -1} {
		if _, err := (Check{}).Run(context.Background(), newCase("01.01.1990", nil, map[string]any{"min_age": v})); err == nil {
			t.Errorf("min_age %v accepted", v)
		}
	}
}

func ExampleParsePrinted() {
	t, ok := ParsePrinted("07.09.1985")
	fmt.Println(t.Format("2006-01-02"), ok)
	_, ok = ParsePrinted("31.04.1985")
	fmt.Println(ok)
	// Output:
	// 1985-09-07 true
	// false
}

func FuzzParsePrinted(f *testing.F) {
	for _, s := range []string{"07.09.1985", "7/9/1985", "", "99.99.9999", "01.01.0000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := ParsePrinted(s); ok && (d.Month() < 1 || d.Day() < 1) {
			t.Fatalf("%q -> %v", s, d)
		}
	})
}

// TestMinAgeAtPrepare: ValidateStep, which Prepare calls for the step,
// takes the min_age values Run takes and refuses the ones Run refuses.
func TestMinAgeAtPrepare(t *testing.T) {
	for _, tc := range []struct {
		params map[string]any
		ok     bool
	}{
		{nil, true},
		{map[string]any{"min_age": 21}, true},
		{map[string]any{"min_age": 16.0}, true},
		{map[string]any{"min_age": "18"}, false},
		{map[string]any{"min_age": 17.5}, false},
		{map[string]any{"min_age": 0}, false},
		{map[string]any{"min_age": 200}, false},
		{map[string]any{"min_age": -1}, false},
	} {
		err := Check{}.ValidateStep(idv.Step{Name: idv.CheckAge, Params: tc.params})
		if tc.ok != (err == nil) {
			t.Errorf("min_age %v: ValidateStep error %v, want ok %v", tc.params["min_age"], err, tc.ok)
		}
	}
}
