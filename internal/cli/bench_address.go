package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tambua/tambua/checks/address"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/bills"
)

func init() {
	Register(&Command{
		Path:    "bench address",
		Summary: "measure address verification on synthetic bills: decisions, fields, CPU per document",
		Run:     runBenchAddress,
	})
}

// addressTally counts one group's cases.
type addressTally struct {
	N, Correct, NameExact, DateExact, AddressExact int
	CPU                                            time.Duration
}

func (t *addressTally) add(ok, name, date, addr bool, cpu time.Duration) {
	t.N++
	t.CPU += cpu
	for _, p := range []struct {
		hit bool
		n   *int
	}{{ok, &t.Correct}, {name, &t.NameExact}, {date, &t.DateExact}, {addr, &t.AddressExact}} {
		if p.hit {
			*p.n++
		}
	}
}

func runBenchAddress(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench address")
	n := fs.Int("n", 40, "documents per layout family")
	seed := fs.Uint64("seed", 11, "seed of the documents (tuning used 7)")
	families := fs.String("families", strings.Join(append(append([]string{}, bills.TuningFamilies...), bills.HeldOut), ","),
		"layout families, comma separated ("+bills.HeldOut+" is held out from tuning)")
	verbose := fs.Bool("v", false, "print every wrong decision")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *n < 1 {
		return Usagef("--n must be positive")
	}
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	check := address.New(address.DefaultLimits)
	groups := map[string]*addressTally{}
	tally := func(key string) *addressTally {
		if groups[key] == nil {
			groups[key] = &addressTally{}
		}
		return groups[key]
	}
	photoCPU := []time.Duration{}
	for _, fam := range splitList(*families) {
		for _, c := range bills.Generate(fam, *n, *seed, now) {
			data, err := c.Bytes(*seed)
			if err != nil {
				return err
			}
			ca := idv.NewCase(map[string]idv.Image{address.DefaultSlot: {Data: data}})
			ca.Now = now
			ca.SetFields([]string{"full_name"}, map[string]string{"full_name": c.HolderOnID})
			c0, k0 := processCPU(), childrenCPU()
			if _, err := check.Run(ctx, ca); err != nil {
				return fmt.Errorf("%s: %w", c.ID, err)
			}
			cpu := processCPU() - c0 + childrenCPU() - k0
			v, _ := ca.Section("address_verification")
			s := v.(*address.Section)
			reason := ""
			if len(s.Reasons) > 0 {
				reason = s.Reasons[0]
			}
			ok := s.Decision == c.Decision && reason == c.Reason
			name := strings.EqualFold(strings.Join(strings.Fields(s.HolderName), " "), c.PrintedName)
			date := s.IssueDate == c.IssueDate.Format(time.DateOnly)
			addr := strings.EqualFold(strings.Join(s.Address.Lines, "|"), strings.Join(c.Address, "|"))
			if c.Scenario == "refused_kind" {
				name, date, addr = true, true, true // not asked of refused kinds
			}
			for _, key := range []string{"family " + fam, "format " + c.Format, "scenario " + c.Scenario, "kind " + c.Kind} {
				tally(key).add(ok, name, date, addr, cpu)
			}
			if c.Format == "photo" {
				photoCPU = append(photoCPU, cpu)
			}
			if *verbose && (!ok || !name || !date || !addr) {
				fmt.Fprintf(env.Stdout, "%s %s %s: got %s %v name %q date %s addr %q; want %s %s name %q date %s addr %q\n",
					c.ID, c.Scenario, c.Format, s.Decision, s.Reasons, s.HolderName, s.IssueDate, s.Address.Lines,
					c.Decision, c.Reason, c.PrintedName, c.IssueDate.Format(time.DateOnly), c.Address)
			}
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w := tabwriter.NewWriter(env.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(w, "group\tn\tdecisions\tname exact\tdate exact\taddress exact\tCPU per doc\n")
	for _, k := range keys {
		t := groups[k]
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%.0f ms\n", k, t.N, pct(t.Correct, t.N), pct(t.NameExact, t.N),
			pct(t.DateExact, t.N), pct(t.AddressExact, t.N), float64(t.CPU.Milliseconds())/float64(t.N))
	}
	w.Flush()
	if len(photoCPU) > 0 {
		sort.Slice(photoCPU, func(i, j int) bool { return photoCPU[i] < photoCPU[j] })
		fmt.Fprintf(env.Stdout, "photographed pages: CPU p50 %d ms, p90 %d ms (seed %d; family %s is held out)\n",
			photoCPU[len(photoCPU)/2].Milliseconds(), photoCPU[len(photoCPU)*9/10].Milliseconds(), *seed, bills.HeldOut)
	}
	return nil
}
