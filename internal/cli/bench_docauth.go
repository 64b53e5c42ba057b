package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tambua/tambua/checks/docauth"
	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func init() {
	Register(&Command{Path: "bench docauth", Summary: "measure document_authenticity per attack kind on tambua synth --attacks captures", Run: benchDocAuth})
}

// docAuthSample is one capture set with what the corpus says it is.
type docAuthSample struct {
	name        string
	config      string
	difficulty  string
	kind        string // "genuine" or the attack
	front, back []byte
}

// docAuthRow tallies one group of samples.
type docAuthRow struct {
	n, notPass, fail, byOCR int
	cpu                     []time.Duration
	reasons                 map[string]int
}

func (r *docAuthRow) add(notPass, fail, byOCR bool, cpu time.Duration, reasons []string) {
	r.n++
	if notPass {
		r.notPass++
	}
	if fail {
		r.fail++
	}
	if byOCR {
		r.byOCR++
	}
	if cpu > 0 {
		r.cpu = append(r.cpu, cpu)
	}
	if r.reasons == nil {
		r.reasons = map[string]int{}
	}
	for _, x := range reasons {
		r.reasons[x]++
	}
}

func benchDocAuth(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench docauth")
	dirs := fs.String("dir", "", "comma-separated folders written by tambua synth --attacks --out (instead of rendering)")
	seed := fs.Uint64("seed", 1017, "seed of the corpus rendered when -dir is not given")
	count := fs.Int("count", 72, "samples rendered per level when -dir is not given")
	levels := fs.String("levels", "easy,medium", "difficulties rendered when -dir is not given")
	verbose := fs.Bool("v", false, "print every genuine capture not passed and every attack passed, with reasons")
	if err := Parse(fs, args); err != nil {
		return err
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	reg := docdefs.Default()
	k := ocr.New(ocr.WithWorkers(1))
	defer k.Close()
	da := docauth.New()
	rows := map[[2]string]*docAuthRow{}  // difficulty, kind
	byDef := map[[2]string]*docAuthRow{} // config, kind
	row := func(m map[[2]string]*docAuthRow, a, b string) *docAuthRow {
		key := [2]string{a, b}
		if m[key] == nil {
			m[key] = &docAuthRow{}
		}
		return m[key]
	}
	run := func(s docAuthSample) error {
		def, ok := reg.Definition(s.config)
		if !ok {
			return fmt.Errorf("%s: unknown config %s", s.name, s.config)
		}
		images := map[string]idv.Image{idv.SlotFront: {Data: s.front}}
		if len(s.back) > 0 {
			images[idv.SlotBack] = idv.Image{Data: s.back}
		}
		c := idv.NewCase(images)
		c.Config, c.Definition, c.Allowed = s.config, def, []*idv.DocumentDefinition{def}
		// The corpus is made valid on its reference date.
		c.Now = synth.ReferenceDate
		c.Step = idv.Step{Name: idv.CheckOCR}
		out, err := k.Run(ctx, c)
		if err != nil {
			return fmt.Errorf("%s: ocr: %w", s.name, err)
		}
		var notPass, fail, byOCR bool
		var cpu time.Duration
		var reasons []string
		decision := "-"
		if out.Status == idv.StatusFailed {
			// The verification stops at ocr_extraction: rejected, never
			// accepted; counted as caught, and shown apart.
			notPass, fail, byOCR = true, true, true
			reasons = append(reasons, out.Reasons...)
			decision = "ocr:" + strings.Join(out.Reasons, ",")
		} else {
			info, _ := idv.Info(idv.CheckDocAuth)
			c.Step = idv.Step{Name: idv.CheckDocAuth, Threshold: info.Threshold.Default, HasThreshold: true}
			c0 := processCPU()
			_, err := da.Run(ctx, c)
			cpu = processCPU() - c0
			if err != nil {
				return fmt.Errorf("%s: docauth: %w", s.name, err)
			}
			v, _ := c.Section("document_authenticity")
			sec := v.(docauth.Section)
			decision = sec.Decision
			notPass, fail = sec.Decision != docauth.DecisionPass, sec.Decision == docauth.DecisionFail
			reasons = sec.ReasonCodes
		}
		row(rows, s.difficulty, s.kind).add(notPass, fail, byOCR, cpu, reasons)
		row(byDef, s.config, s.kind).add(notPass, fail, byOCR, cpu, reasons)
		if *verbose && (s.kind == "genuine") == notPass {
			fmt.Fprintf(env.Stdout, "%s\t%s\t%s\t%s\t%v\n", s.name, s.kind, s.difficulty, decision, reasons)
		}
		return nil
	}
	if *dirs != "" {
		for _, d := range strings.Split(*dirs, ",") {
			if err := eachCorpusSample(strings.TrimSpace(d), run); err != nil {
				return err
			}
		}
	} else {
		defs := reg.All()
		for _, lv := range strings.Split(*levels, ",") {
			gen, err := synth.New(synth.Options{Definitions: defs, Seed: *seed, Difficulty: synth.Difficulty(lv), Attacks: true})
			if err != nil {
				return err
			}
			for i := 0; i < *count; i++ {
				kind := gen.AttackFor(i)
				if kind == synth.AttackPrint || kind == synth.AttackScreen {
					continue // selfie attacks: liveness's business
				}
				smp, err := gen.Sample(ctx, i)
				if err != nil {
					return err
				}
				if kind == "" {
					kind = "genuine"
				}
				if err := run(docAuthSample{name: fmt.Sprintf("%s/%05d", lv, i), config: smp.Truth.Config, difficulty: lv,
					kind: kind, front: smp.Front, back: smp.Back}); err != nil {
					return err
				}
			}
		}
	}
	printDocAuth(env, rows, byDef)
	return nil
}

// eachCorpusSample reads the sample folders tambua synth --out wrote.
func eachCorpusSample(dir string, fn func(docAuthSample) error) error {
	truths, err := filepath.Glob(filepath.Join(dir, "*", "truth.json"))
	if err != nil {
		return err
	}
	if len(truths) == 0 {
		return Usagef("no sample folders (*/truth.json) in %s", dir)
	}
	sort.Strings(truths)
	for _, tp := range truths {
		raw, err := os.ReadFile(tp)
		if err != nil {
			return err
		}
		var tr synth.Truth
		if err := json.Unmarshal(raw, &tr); err != nil {
			return fmt.Errorf("%s: %w", tp, err)
		}
		kind := "genuine"
		if tr.Attack != nil {
			kind = *tr.Attack
		}
		if kind == synth.AttackPrint || kind == synth.AttackScreen {
			continue
		}
		sd := filepath.Dir(tp)
		front, err := os.ReadFile(filepath.Join(sd, "front.jpg"))
		if err != nil {
			return err
		}
		back, _ := os.ReadFile(filepath.Join(sd, "back.jpg"))
		if err := fn(docAuthSample{name: sd, config: tr.Config, difficulty: tr.Difficulty, kind: kind, front: front, back: back}); err != nil {
			return err
		}
	}
	return nil
}

func printDocAuth(env *Env, rows, byDef map[[2]string]*docAuthRow) {
	w := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "level\tkind\tn\tnot PASS\tFAIL\tstopped by ocr\tdocauth cpu mean\tcpu p50\tcpu max\ttop reason codes")
	for _, key := range sortedKeys2(rows) {
		r := rows[key]
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", key[0], key[1], r.n, pct(r.notPass, r.n), pct(r.fail, r.n), pct(r.byOCR, r.n),
			msText(meanDur(r.cpu)), msText(quantile(r.cpu, 0.5)), msText(quantile(r.cpu, 1)), topReasons(r.reasons, 4))
	}
	w.Flush()
	fmt.Fprintln(env.Stdout)
	fmt.Fprintln(w, "definition\tkind\tnot PASS")
	for _, key := range sortedKeys2(byDef) {
		r := byDef[key]
		fmt.Fprintf(w, "%s\t%s\t%d/%d\n", key[0], key[1], r.notPass, r.n)
	}
	w.Flush()
}

func sortedKeys2(m map[[2]string]*docAuthRow) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	return keys
}

func meanDur(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s / time.Duration(len(ds))
}

func topReasons(m map[string]int, n int) string {
	type kv struct {
		k string
		v int
	}
	var xs []kv
	for k, v := range m {
		xs = append(xs, kv{k, v})
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i].v > xs[j].v || xs[i].v == xs[j].v && xs[i].k < xs[j].k })
	var parts []string
	for i := 0; i < len(xs) && i < n; i++ {
		parts = append(parts, fmt.Sprintf("%s:%d", xs[i].k, xs[i].v))
	}
	return strings.Join(parts, " ")
}

func msText(d time.Duration) string { return fmt.Sprintf("%.0fms", bench.Millis(d)) }
