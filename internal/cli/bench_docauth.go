package cli

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/bench/docauthbench"
)

func init() {
	Register(&Command{Path: "bench docauth", Summary: "measure document_authenticity per attack kind on tambua synth --attacks captures", Run: benchDocAuth})
}

func benchDocAuth(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench docauth")
	dirs := fs.String("dir", "", "comma-separated folders written by tambua synth --attacks --out (instead of rendering)")
	seed := fs.Uint64("seed", 1017, "seed of the corpus rendered when -dir is not given")
	count := fs.Int("count", 72, "samples rendered per level when -dir is not given")
	levels := fs.String("levels", "easy,medium", "difficulties rendered when -dir is not given")
	cache := fs.String("ocr-cache", "", "keep ocr_extraction's outputs per capture in this folder and reuse them (empty it when checks/ocr changes)")
	verbose := fs.Bool("v", false, "print every genuine capture not passed and every attack passed, with reasons")
	kinds := fs.String("attack-kinds", "", "attacks rendered when -dir is not given, comma-separated synth names (default every kind synth renders)")
	cues := fs.String("cues", "", "write every capture's raw cues (substrate, portrait, print), decision and reasons to this file, one JSON line each")
	if err := Parse(fs, args); err != nil {
		return err
	}
	o := docauthbench.Options{Seed: *seed, Count: *count, Levels: strings.Split(*levels, ","), OCRCache: *cache}
	if *kinds != "" {
		o.AttackKinds = strings.Split(*kinds, ",")
	}
	if *dirs != "" {
		for _, d := range strings.Split(*dirs, ",") {
			o.Dirs = append(o.Dirs, strings.TrimSpace(d))
		}
	}
	if *cues != "" {
		f, err := os.Create(*cues)
		if err != nil {
			return Usagef("-cues: %v", err)
		}
		defer f.Close()
		o.Cues = f
	}
	rep, err := docauthbench.Run(ctx, o)
	if err != nil {
		return benchErr(err)
	}
	if *verbose {
		for _, x := range rep.Surprises {
			fmt.Fprintf(env.Stdout, "%s\t%s\t%s\t%s\t%v\n", x.Sample, x.Kind, x.Difficulty, x.Decision, x.Reasons)
		}
	}
	printDocAuth(env, rep.ByLevel, rep.ByDefinition)
	printGrades(env, rep.ByGrade)
	return nil
}

// printGrades prints the attacks whose corpus grades them, by grade.
func printGrades(env *Env, byGrade map[[3]string]*docauthbench.Row) {
	if len(byGrade) == 0 {
		return
	}
	keys := make([][3]string, 0, len(byGrade))
	for k := range byGrade {
		keys = append(keys, k)
	}
	rank := map[string]int{"subtle": 0, "medium": 1, "obvious": 2}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		if a[1] != b[1] {
			return a[1] < b[1]
		}
		return rank[a[2]] < rank[b[2]]
	})
	w := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(env.Stdout)
	fmt.Fprintln(w, "level\tkind\tgrade\tn\tnot PASS\tFAIL")
	for _, k := range keys {
		r := byGrade[k]
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", k[0], k[1], k[2], r.N, bench.Pct(r.NotPass, r.N), bench.Pct(r.Fail, r.N))
	}
	w.Flush()
}

func printDocAuth(env *Env, rows, byDef map[[2]string]*docauthbench.Row) {
	w := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "level\tkind\tn\tnot PASS\tFAIL\tstopped by ocr\tdocauth cpu mean\tcpu p50\tcpu max\ttop reason codes")
	for _, key := range sortedKeys2(rows) {
		r := rows[key]
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", key[0], kindLabel(key[1]), r.N, bench.Pct(r.NotPass, r.N), bench.Pct(r.Fail, r.N), bench.Pct(r.ByOCR, r.N),
			msText(bench.Mean(r.CPU)), msText(bench.Percentile(r.CPU, 50)), msText(bench.Percentile(r.CPU, 100)), topReasons(r.Reasons, 4))
	}
	w.Flush()
	for _, key := range sortedKeys2(rows) {
		if key[1] != docauthbench.Genuine && docauthbench.CardGenuine(key[1]) {
			fmt.Fprintln(env.Stdout, "* a selfie attack: the card itself is genuine, so not PASS is a false flag (the document's own screen and print are document_screen and colour_print)")
			break
		}
	}
	fmt.Fprintln(env.Stdout)
	fmt.Fprintln(w, "definition\tkind\tnot PASS")
	for _, key := range sortedKeys2(byDef) {
		r := byDef[key]
		fmt.Fprintf(w, "%s\t%s\t%d/%d\n", key[0], key[1], r.NotPass, r.N)
	}
	w.Flush()
}

// kindLabel marks the selfie attacks, whose card is genuine.
func kindLabel(kind string) string {
	if kind != docauthbench.Genuine && docauthbench.CardGenuine(kind) {
		return kind + "*"
	}
	return kind
}

func sortedKeys2(m map[[2]string]*docauthbench.Row) [][2]string {
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
