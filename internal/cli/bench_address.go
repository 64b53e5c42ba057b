package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/bench/addressbench"
	"github.com/tambua/tambua/internal/testkit/bills"
)

func init() {
	Register(&Command{
		Path:    "bench address",
		Summary: "measure address verification on synthetic bills: decisions, fields, CPU per document",
		Run:     runBenchAddress,
	})
}

func runBenchAddress(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench address")
	n := fs.Int("n", 40, "documents per layout family")
	seed := fs.Uint64("seed", 11, "seed of the documents (tuning used 7)")
	families := fs.String("families", strings.Join(append(append([]string{}, bills.TuningFamilies...), bills.HeldOut), ","),
		"layout families, comma separated ("+bills.HeldOut+" is held out from tuning)")
	formats := fs.String("formats", "", "only these formats, comma separated (photo, pdf_text, pdf_scan; default all)")
	verbose := fs.Bool("v", false, "print every wrong decision")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *n < 1 {
		return Usagef("--n must be positive")
	}
	stop, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	rep, err := addressbench.Run(ctx, addressbench.Options{N: *n, Seed: *seed, Families: splitList(*families), Formats: splitList(*formats)})
	if err != nil {
		return err
	}
	if *verbose {
		for _, x := range rep.Wrong {
			c, s := x.Case, x.Got
			fmt.Fprintf(env.Stdout, "%s %s %s: got %s %v name %q date %s addr %q; want %s %s name %q date %s addr %q\n",
				c.ID, c.Scenario, c.Format, s.Decision, s.Reasons, s.HolderName, s.IssueDate, s.Address.Lines,
				c.Decision, c.Reason, c.PrintedName, c.IssueDate.Format(time.DateOnly), c.Address)
		}
	}
	keys := make([]string, 0, len(rep.Groups))
	for k := range rep.Groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w := tabwriter.NewWriter(env.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(w, "group\tn\tdecisions\tname exact\tdate exact\taddress exact\tCPU per doc\n")
	for _, k := range keys {
		t := rep.Groups[k]
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%.0f ms\n", k, t.N, bench.Pct(t.Correct, t.N), bench.Pct(t.NameExact, t.N),
			bench.Pct(t.DateExact, t.N), bench.Pct(t.AddressExact, t.N), float64(t.CPU.Milliseconds())/float64(t.N))
	}
	w.Flush()
	if len(rep.PhotoCPU) > 0 {
		fmt.Fprintf(env.Stdout, "photographed pages: CPU p50 %d ms, p90 %d ms (seed %d; family %s is held out)\n",
			bench.Percentile(rep.PhotoCPU, 50).Milliseconds(), bench.Percentile(rep.PhotoCPU, 90).Milliseconds(), *seed, bills.HeldOut)
	}
	return nil
}
