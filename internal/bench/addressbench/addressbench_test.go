package addressbench

import (
	"testing"
	"time"

	"github.com/tambua/tambua/checks/address"
	"github.com/tambua/tambua/internal/testkit/bills"
)

func TestScoreCase(t *testing.T) {
	c := bills.Case{PrintedName: "GRACE WANJIRU", Address: []string{"PLOT 7, NGONG ROAD", "KAREN"},
		IssueDate: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Decision: "match", Scenario: "genuine"}
	right := func() *address.Section {
		return &address.Section{Decision: "match", HolderName: "Grace  Wanjiru", IssueDate: "2026-11-02",
			Address: address.Address{Lines: []string{"Plot 7, Ngong Road", "Karen"}}}
	}
	for _, tc := range []struct {
		name   string
		edit   func(*bills.Case, *address.Section)
		want   Score
		allRgt bool
	}{
		{"all right, case and spaces aside", func(*bills.Case, *address.Section) {}, Score{true, true, true, true}, true},
		{"reason expected", func(c *bills.Case, _ *address.Section) { c.Decision, c.Reason = "review", "doc_too_old" },
			Score{false, true, true, true}, false},
		{"right decision, other reason", func(c *bills.Case, s *address.Section) {
			c.Decision, c.Reason = "review", "doc_too_old"
			s.Decision, s.Reasons = "review", []string{"name_mismatch", "doc_too_old"}
		}, Score{false, true, true, true}, false},
		{"name misread", func(_ *bills.Case, s *address.Section) { s.HolderName = "GRACE WANJTRU" }, Score{true, false, true, true}, false},
		{"date misread", func(_ *bills.Case, s *address.Section) { s.IssueDate = "2026-11-20" }, Score{true, true, false, true}, false},
		{"address line joined", func(_ *bills.Case, s *address.Section) { s.Address.Lines = []string{"PLOT 7, NGONGROAD", "KAREN"} },
			Score{true, true, true, false}, false},
		{"refused kind: fields not asked", func(c *bills.Case, s *address.Section) {
			c.Scenario, c.Decision, c.Reason = "refused_kind", "no_match", "doc_kind_refused"
			s.Decision, s.Reasons, s.HolderName, s.IssueDate, s.Address.Lines = "no_match", []string{"doc_kind_refused"}, "", "", nil
		}, Score{true, true, true, true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := c, right()
			tc.edit(&c, s)
			got := ScoreCase(c, s)
			if got != tc.want || got.All() != tc.allRgt {
				t.Errorf("got %+v (all %v), want %+v", got, got.All(), tc.want)
			}
		})
	}
}

func TestReasonKey(t *testing.T) {
	for _, tc := range []struct {
		c    bills.Case
		want string
	}{
		{bills.Case{Decision: "match"}, "match"},
		{bills.Case{Decision: "no_match", Reason: address.ReasonTooOld}, address.ReasonTooOld},
		{bills.Case{Decision: "review", Reason: address.ReasonUnreadable}, address.ReasonUnreadable},
	} {
		if got := ReasonKey(tc.c); got != tc.want {
			t.Errorf("ReasonKey(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

func TestTally(t *testing.T) {
	var tl Tally
	tl.add(Score{true, true, true, true}, 10*time.Millisecond)
	tl.add(Score{false, true, false, true}, 30*time.Millisecond)
	want := Tally{N: 2, Correct: 1, NameExact: 2, DateExact: 1, AddressExact: 2, CPU: 40 * time.Millisecond}
	if tl != want {
		t.Errorf("got %+v, want %+v", tl, want)
	}
}

// TestRun checks one bill of one family with the real check and tesseract,
// and counts it in each of its five groups.
func TestRun(t *testing.T) {
	rep, err := Run(t.Context(), Options{N: 1, Seed: 11, Families: []string{bills.HeldOut}})
	if err != nil {
		t.Fatal(err)
	}
	fam := rep.Groups["family "+bills.HeldOut]
	if fam == nil || fam.N != 1 || fam.CPU <= 0 {
		t.Fatalf("groups %v; want family %s with one case and its CPU time", rep.Groups, bills.HeldOut)
	}
	n := 0
	for _, g := range rep.Groups {
		n += g.N
	}
	if n != 5 {
		t.Errorf("the case counts %d times over the groups, want 5 (family, format, scenario, kind, reason)", n)
	}
	if fam.Correct != 1 {
		t.Errorf("decision wrong on the held-out bill: %+v", rep.Wrong)
	}
}
