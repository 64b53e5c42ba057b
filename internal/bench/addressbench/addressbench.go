// Package addressbench measures address_verification on the synthetic
// bills of internal/testkit/bills for tambua bench address: decisions and
// fields read per layout family, format, scenario and document kind, and
// the CPU time per document (the PDF tools the check runs included).
package addressbench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tambua/tambua/checks/address"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/bills"
)

// Now is the date the documents are made for and checked on.
var Now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// Options say which documents are made.
type Options struct {
	// N documents per family.
	N        int
	Seed     uint64
	Families []string
	// Formats, when not empty, keeps only documents of these formats
	// (photo, pdf_text, pdf_scan); the others are still drawn, so a
	// document is the same whichever formats are kept.
	Formats []string
}

// Tally counts one group's cases.
type Tally struct {
	N, Correct, NameExact, DateExact, AddressExact int
	CPU                                            time.Duration
}

func (t *Tally) add(s Score, cpu time.Duration) {
	t.N++
	t.CPU += cpu
	for _, p := range []struct {
		hit bool
		n   *int
	}{{s.Decision, &t.Correct}, {s.Name, &t.NameExact}, {s.Date, &t.DateExact}, {s.Address, &t.AddressExact}} {
		if p.hit {
			*p.n++
		}
	}
}

// Wrong is a case with a wrong decision or field.
type Wrong struct {
	Case bills.Case
	Got  *address.Section
}

// Report is what one run measured.
type Report struct {
	// Groups are keyed "family F", "format F", "scenario S", "kind K" and
	// "reason R" (the expected first reason, or the decision when it has
	// none); every case counts in five groups.
	Groups map[string]*Tally
	// PhotoCPU is the CPU time of each photographed page, in run order.
	PhotoCPU []time.Duration
	Wrong    []Wrong
}

// Run checks o.N documents of each family.
func Run(ctx context.Context, o Options) (*Report, error) {
	check := address.New(address.DefaultLimits)
	rep := &Report{Groups: map[string]*Tally{}, PhotoCPU: []time.Duration{}}
	tally := func(key string) *Tally {
		if rep.Groups[key] == nil {
			rep.Groups[key] = &Tally{}
		}
		return rep.Groups[key]
	}
	for _, fam := range o.Families {
		for _, c := range bills.Generate(fam, o.N, o.Seed, Now) {
			if len(o.Formats) > 0 && !slices.Contains(o.Formats, c.Format) {
				continue
			}
			data, err := c.Bytes(o.Seed)
			if err != nil {
				return nil, err
			}
			ca := idv.NewCase(map[string]idv.Image{address.DefaultSlot: {Data: data}})
			ca.Now = Now
			ca.SetFields([]string{"full_name"}, map[string]string{"full_name": c.HolderOnID})
			c0, k0 := bench.ProcessCPU(), bench.ChildrenCPU()
			if _, err := check.Run(ctx, ca); err != nil {
				return nil, fmt.Errorf("%s: %w", c.ID, err)
			}
			cpu := bench.ProcessCPU() - c0 + bench.ChildrenCPU() - k0
			v, _ := ca.Section("address_verification")
			s := v.(*address.Section)
			sc := ScoreCase(c, s)
			for _, key := range []string{"family " + fam, "format " + c.Format, "scenario " + c.Scenario, "kind " + c.Kind, "reason " + ReasonKey(c)} {
				tally(key).add(sc, cpu)
			}
			if c.Format == "photo" {
				rep.PhotoCPU = append(rep.PhotoCPU, cpu)
			}
			if !sc.All() {
				rep.Wrong = append(rep.Wrong, Wrong{Case: c, Got: s})
			}
		}
	}
	return rep, nil
}

// ReasonKey is the reason a case is expected to be decided for: its first
// reason, or its decision (match) when it has none.
func ReasonKey(c bills.Case) string {
	if c.Reason != "" {
		return c.Reason
	}
	return c.Decision
}

// Score says what the check got right of one case.
type Score struct {
	// Decision: the decision and its first reason are the expected ones.
	Decision bool
	// Name, Date, Address: the field read is the one printed (names and
	// addresses compared without case, names also without extra spaces).
	Name, Date, Address bool
}

// All reports whether everything was right.
func (s Score) All() bool { return s.Decision && s.Name && s.Date && s.Address }

// ScoreCase compares the check's section with the case's truth.
func ScoreCase(c bills.Case, s *address.Section) Score {
	reason := ""
	if len(s.Reasons) > 0 {
		reason = s.Reasons[0]
	}
	sc := Score{
		Decision: s.Decision == c.Decision && reason == c.Reason,
		Name:     strings.EqualFold(strings.Join(strings.Fields(s.HolderName), " "), c.PrintedName),
		Date:     s.IssueDate == c.IssueDate.Format(time.DateOnly),
		Address:  strings.EqualFold(strings.Join(s.Address.Lines, "|"), strings.Join(c.Address, "|")),
	}
	if c.Scenario == "refused_kind" {
		sc.Name, sc.Date, sc.Address = true, true, true // not asked of refused kinds
	}
	return sc
}
