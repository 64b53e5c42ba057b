package address

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/bills"
)

// run verifies one synthetic case the way the engine would.
func run(t testing.TB, c bills.Case, now time.Time) *Section {
	t.Helper()
	data, err := c.Bytes(1)
	if err != nil {
		t.Fatal(err)
	}
	ca := idv.NewCase(map[string]idv.Image{DefaultSlot: {Data: data}})
	ca.Now = now
	ca.SetFields([]string{"full_name"}, map[string]string{"full_name": c.HolderOnID})
	if _, err := New(DefaultLimits).Run(context.Background(), ca); err != nil {
		t.Fatalf("%s: %v", c.ID, err)
	}
	v, _ := ca.Section("address_verification")
	return v.(*Section)
}

// TestSyntheticBills decides synthetic documents of a tuning family and
// of the held-out family (see tambua bench address for the full figures).
func TestSyntheticBills(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, family := range []string{"classic", bills.HeldOut} {
		wrong := 0
		cases := bills.Generate(family, 8, 7, now)
		for _, c := range cases {
			s := run(t, c, now)
			reason := ""
			if len(s.Reasons) > 0 {
				reason = s.Reasons[0]
			}
			if s.Decision != c.Decision || reason != c.Reason {
				wrong++
				t.Logf("%s %s (%s, %s): got %s %v, want %s %s; name %q date %s addr %q kind %s err %s", c.ID, c.Scenario, c.Format, c.Kind,
					s.Decision, s.Reasons, c.Decision, c.Reason, s.HolderName, s.IssueDate, s.Address.Lines, s.DocumentKind, s.Error)
			}
		}
		if wrong > 1 {
			t.Errorf("%s: %d of %d decisions wrong", family, wrong, len(cases))
		}
	}
}

func TestWriteSamples(t *testing.T) {
	dir := os.Getenv("BILLS_OUT")
	if dir == "" {
		t.Skip("set BILLS_OUT to write sample captures")
	}
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, f := range append(bills.TuningFamilies, bills.HeldOut) {
		c := bills.Generate(f, 1, 7, now)[0]
		c.Format = "photo"
		data, err := c.Bytes(1)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f+".jpg"), data, 0o644)
	}
}
