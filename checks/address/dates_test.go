package address

import (
	"testing"
	"time"
)

func TestFindDates(t *testing.T) {
	for line, want := range map[string]string{
		"Bill date: 14/03/2026":           "2026-03-14",
		"Statement Date 2026-03-31":       "2026-03-31",
		"Date of issue: 5 March 2026":     "2026-03-05",
		"Issued Mar 5, 2026":              "2026-03-05",
		"DATE 05.03.26":                   "2026-03-05",
		"Invoice date 03/25/2026":         "2026-03-25", // month first: 25 cannot be a month
		"Tarehe ya bili: 1st-Feb-2026":    "2026-02-01",
		"Account 123456 balance 1,250.00": "",
		"31/04/2026":                      "", // no 31 April
	} {
		got := ""
		if ds := findDates(line); len(ds) > 0 {
			got = ds[0].t.Format(time.DateOnly)
		}
		if got != want {
			t.Errorf("findDates(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestIssueDate(t *testing.T) {
	for name, tc := range map[string]struct {
		lines []string
		want  string
	}{
		"labelled beats later due date": {[]string{"KENYA POWER", "Bill Date: 02/03/2026", "Due Date: 20/03/2026"}, "2026-03-02"},
		"label above value":             {[]string{"Statement date", "28 February 2026", "Payment due 15 March 2026"}, "2026-02-28"},
		"period end":                    {[]string{"Statement period 01/02/2026 - 28/02/2026", "Opening balance"}, "2026-02-28"},
		"latest unlabelled":             {[]string{"Nairobi 12/01/2026", "ref 03/02/2026"}, "2026-02-03"},
		"none":                          {[]string{"no dates here"}, ""},
		"due date on the left":          {[]string{"Due date", "Amount"}, ""},
	} {
		got, _, ok := issueDate(column(tc.lines...))
		if name == "due date on the left" {
			got, _, ok = issueDate(grid([]string{"Due date", "20/03/2026"}, []string{"Bill date", "02/03/2026"}))
			tc.want = "2026-03-02"
		}
		s := ""
		if ok {
			s = got.Format(time.DateOnly)
		}
		if s != tc.want {
			t.Errorf("%s: issueDate = %q, want %q", name, s, tc.want)
		}
	}
}
