package standard_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tambua/tambua/checks/age"
	"github.com/tambua/tambua/checks/internal/mrzdata"
	"github.com/tambua/tambua/checks/sanctions"
	_ "github.com/tambua/tambua/checks/standard"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/mrz"
)

// td3 builds a passport MRZ with correct check digits.
func td3(name, number, nat, dob, sex, expiry string) string {
	pad := func(s string, n int) string { return s + strings.Repeat("<", n-len(s)) }
	l1 := pad("P<"+nat+name, 44)
	num := pad(number, 9)
	opt := pad("", 14)
	cd := func(s string) string { return fmt.Sprint(mrz.CheckDigit(s)) }
	body := num + cd(num) + nat + dob + cd(dob) + sex + expiry + cd(expiry) + opt + cd(opt)
	composite := num + cd(num) + dob + cd(dob) + expiry + cd(expiry) + opt + cd(opt)
	return l1 + "\n" + body + cd(composite)
}

// TestMRZFeedsScreeningAndAge: what the MRZ parser leaves on the Case is
// what sanctions screening and age verification read.
func TestMRZFeedsScreeningAndAge(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	m, err := mrz.ParseText(td3("AL<ZAWAHIRI<<AYMAN", "A1234567", "EGY", "510619", "M", "300101"), mrz.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !m.AllChecksPass {
		t.Fatalf("test MRZ fails its check digits: %+v", m.Checks)
	}
	c := idv.NewCase(nil)
	c.Now = now
	c.SetMRZ(mrzdata.From(m))
	c.SetFields([]string{"full_name", "date_of_birth"}, map[string]string{"full_name": "Unreadable", "date_of_birth": ""})

	subj, err := sanctions.SubjectOf(c)
	if err != nil {
		t.Fatal(err)
	}
	if subj.Source != "mrz" || subj.Name != "AYMAN AL ZAWAHIRI" || subj.DOB == nil || subj.DOB.String() != "1951-06-19" || subj.Country != "EG" {
		t.Fatalf("subject %+v", subj)
	}
	ch := sanctions.New(fixtures.Path(t, "sanctions", "ofac_sdn_2021-07"))
	out, err := ch.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != idv.StatusReview || out.Reasons[0] != sanctions.ReasonSanctionsHit {
		t.Errorf("screening %+v", out)
	}
	sec, _ := c.Section("sanctions_screening")
	if s := sec.(sanctions.Section); s.OFAC.Hits[0].EntityID != "2676" {
		t.Errorf("top hit %+v", s.OFAC.Hits[0])
	}
	aout, err := age.Check{}.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if aout.Status != idv.StatusPassed || aout.Pieces[0].Value != 75 {
		t.Errorf("age %+v", aout)
	}
}
