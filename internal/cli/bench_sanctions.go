package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tambua/tambua/checks/sanctions/match"
	"github.com/tambua/tambua/internal/bench/sanctionsbench"
)

func init() {
	Register(&Command{
		Path:    "bench sanctions",
		Summary: "measure sanctions screening: accuracy on a built query set, time, memory",
		Run:     runBenchSanctions,
	})
}

func runBenchSanctions(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench sanctions")
	dirs := fs.String("lists", "", "list folders, comma separated (required)")
	listed := fs.Int("listed", 3000, "queries made from listed names")
	plain := fs.Int("plain", 2000, "non-listed names")
	seed := fs.Int64("seed", -1, fmt.Sprintf("seed of the query set; by default both the tuning seed %d and the held-out seed %d, which the matcher was never tuned on", sanctionsbench.TuneSeed, sanctionsbench.HeldOutSeed))
	threshold := fs.Float64("threshold", match.DefaultThreshold, "alert threshold")
	workers := fs.Int("workers", 2, "goroutines of the throughput run")
	misses := fs.Bool("v", false, "print misses and non-listed alerts")
	asJSON := fs.Bool("json", false, "print the reports as a JSON array")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *dirs == "" {
		return Usagef("--lists is required")
	}
	if *workers < 1 || *listed < 0 || *plain < 0 {
		return Usagef("--workers must be positive, --listed and --plain not negative")
	}
	seeds := []int64{sanctionsbench.TuneSeed, sanctionsbench.HeldOutSeed}
	if *seed >= 0 {
		seeds = []int64{*seed}
	}
	reps, err := sanctionsbench.Measure(ctx, sanctionsbench.Options{Dirs: splitList(*dirs), Seeds: seeds,
		Listed: *listed, Plain: *plain, Threshold: *threshold, Workers: *workers})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(reps)
	}
	for _, rep := range reps {
		role := "tuning seed"
		switch {
		case rep.Seed == sanctionsbench.HeldOutSeed:
			role = "held-out seed, never tuned on"
		case rep.HeldOut:
			role = "never tuned on"
		}
		fmt.Fprintf(env.Stdout, "== seed %d (%s) ==\n", rep.Seed, role)
		rep.Print(env.Stdout)
		if *misses {
			for _, m := range rep.Misses {
				fmt.Fprintln(env.Stdout, "miss:", m)
			}
			for _, m := range rep.PlainAlertsShown {
				fmt.Fprintln(env.Stdout, "non-listed alert:", m)
			}
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
