package cli

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"time"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/mrz"
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
	reg := docdefs.Default()
	defs := reg.All()
	gen, err := synth.New(synth.Options{Definitions: defs, Seed: *seed, Difficulty: diff, Attacks: *attacks, Variant: variant})
	if err != nil {
		return err
	}
	// the first pass over the definitions draws their shared layers
	warm := time.Now()
	for i := 0; i < len(defs); i++ {
		if _, err := gen.Sample(ctx, i); err != nil {
			return err
		}
	}
	warmup := time.Since(warm)

	var times []time.Duration
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	valid, mrzOK, mrzN := 0, 0, 0
	var problems []string
	start := time.Now()
	cpu0 := processCPU()
	for i := 0; i < *count; i++ {
		t0 := time.Now()
		s, err := gen.Sample(ctx, i)
		if err != nil {
			return err
		}
		times = append(times, time.Since(t0))
		d, _ := reg.Definition(s.Truth.Config)
		ok := len(s.Truth.Combined) == len(d.FieldSchema)
		for _, f := range d.Fields {
			if f.Pattern != "" && !regexp.MustCompile(f.Pattern).MatchString(s.Truth.Combined[f.Name]) {
				ok = false
				problems = append(problems, fmt.Sprintf("%d %s.%s=%q", i, d.Config, f.Name, s.Truth.Combined[f.Name]))
			}
		}
		if ok {
			valid++
		}
		if len(s.Truth.MRZLines) > 0 {
			mrzN++
			if m, err := mrz.Parse(s.Truth.MRZLines, mrz.Options{Now: synth.ReferenceDate}); err == nil && m.AllChecksPass &&
				m.DocumentNumber == s.Truth.MRZParsed["document_number"] && m.DateOfBirth == s.Truth.MRZParsed["date_of_birth"] {
				mrzOK++
			} else {
				problems = append(problems, fmt.Sprintf("%d %s MRZ", i, d.Config))
			}
		}
	}
	total := time.Since(start)
	cpu := processCPU() - cpu0
	runtime.ReadMemStats(&ms1)
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	w := env.Stdout
	fmt.Fprintf(w, "synth: %d samples, %s, attacks=%v, variant %s, %d CPUs\n", *count, diff, *attacks, variant, runtime.NumCPU())
	fmt.Fprintf(w, "shared layers (first pass over %d definitions): %.1f s\n", len(defs), warmup.Seconds())
	fmt.Fprintf(w, "per sample: mean %.0f ms, median %.0f ms, max %.0f ms; %.2f samples/s on one goroutine\n",
		ms(total/time.Duration(*count)), ms(times[len(times)/2]), ms(times[len(times)-1]), float64(*count)/total.Seconds())
	if cpu > 0 {
		fmt.Fprintf(w, "CPU per sample: %.0f ms (wall time above depends on how busy the machine is)\n", ms(cpu/time.Duration(*count)))
	}
	fmt.Fprintf(w, "allocated per sample: %.0f MB\n", float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(*count)/1e6)
	fmt.Fprintf(w, "truth valid against docdefs patterns: %d/%d\n", valid, *count)
	fmt.Fprintf(w, "MRZ accepted by checks/mrz (all checks, number, birth date): %d/%d\n", mrzOK, mrzN)
	for _, p := range problems {
		fmt.Fprintf(w, "  problem: %s\n", p)
	}
	return nil
}
