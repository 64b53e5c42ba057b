package cli

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/bench/synthbench"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func init() {
	Register(&Command{
		Path:    "bench synth",
		Summary: "corpus renderer speed (samples/s, memory) and truth validity against docdefs patterns and the MRZ parser",
		Run:     runBenchSynth,
	})
}

func runBenchSynth(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench synth")
	count := fs.Int("count", 24, "samples to render, one at a time")
	seed := fs.Uint64("seed", 7, "seed")
	difficulty := fs.String("difficulty", "medium", "easy, medium or hard")
	attacks := fs.Bool("attacks", true, "include attacks")
	variantName := fs.String("variant", "base", "layout family: "+variantNames())
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *count < 1 || *count > 10000 {
		return Usagef("--count %d is out of range", *count)
	}
	diff, err := synth.ParseDifficulty(*difficulty)
	if err != nil {
		return Usagef("%v", err)
	}
	variant, err := synth.ParseVariant(*variantName)
	if err != nil {
		return Usagef("%v", err)
	}
	rep, err := synthbench.Run(ctx, synthbench.Options{Count: *count, Seed: *seed, Difficulty: diff, Attacks: *attacks, Variant: variant})
	if err != nil {
		return err
	}
	w := env.Stdout
	fmt.Fprintf(w, "synth: %d samples, %s, attacks=%v, variant %s, %d CPUs\n", rep.Count, rep.Difficulty, rep.Attacks, rep.Variant, runtime.NumCPU())
	fmt.Fprintf(w, "shared layers (first pass over %d definitions): %.1f s\n", rep.Definitions, rep.Warmup.Seconds())
	fmt.Fprintf(w, "per sample: mean %.0f ms, median %.0f ms, max %.0f ms; %.2f samples/s on one goroutine\n",
		bench.Millis(rep.Total/time.Duration(rep.Count)), bench.Millis(bench.Percentile(rep.Times, 50)), bench.Millis(bench.Percentile(rep.Times, 100)),
		float64(rep.Count)/rep.Total.Seconds())
	if rep.CPU > 0 {
		fmt.Fprintf(w, "CPU per sample: %.0f ms (wall time above depends on how busy the machine is)\n", bench.Millis(rep.CPU/time.Duration(rep.Count)))
	}
	fmt.Fprintf(w, "allocated per sample: %.0f MB\n", float64(rep.AllocBytes)/float64(rep.Count)/1e6)
	fmt.Fprintf(w, "truth valid against docdefs patterns: %d/%d\n", rep.Valid, rep.Count)
	fmt.Fprintf(w, "MRZ accepted by checks/mrz (all checks, number, birth date): %d/%d\n", rep.MRZOK, rep.MRZ)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  problem: %s\n", p)
	}
	return nil
}
