package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/bench/ocrbench"
	"github.com/tambua/tambua/internal/testkit/htmlcards"
)

func init() {
	Register(&Command{Path: "bench ocr", Summary: "measure card finding and field OCR accuracy and time on synthetic captures", Run: benchOCR})
}

func benchOCR(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench ocr")
	n := fs.Int("n", 10, "cards per definition and level")
	levels := fs.String("levels", "easy,medium,hard", "capture levels (synth difficulties)")
	defsFlag := fs.String("defs", "", "definitions (default: all)")
	cores := fs.Int("cores", 1, "CPU cores to use (GOMAXPROCS and tesseract workers)")
	seed := fs.Uint64("seed", 1, "random seed")
	source := fs.String("source", ocrbench.Synth, "captures: synth (internal/testkit/synth, realistic), cardtest (plain renders) or html (internal/testkit/htmlcards, an independent renderer)")
	style := fs.String("style", "dev", "with -source html: the template style, dev or dev2 (tuning) or eval (held out: measure, never tune on it)")
	specimens := fs.String("specimens", "", "instead, read every image in this folder and print what is found")
	config := fs.String("config", "", "definition for -specimens (default: the generic ones, the check picks per image)")
	verbose := fs.Bool("v", false, "print every field read wrongly and every card not found")
	out := fs.String("out", "", "write the captures, truth and rectified sides of every card with an error here")
	outlines := fs.Bool("outlines", false, "measure only finding, rectifying and turning the card upright (no OCR; synth source)")
	results := fs.String("results", "", "write what the check made of every card (fields, raw readings, locations, words, outlines) to this file, one JSON line a card, to compare two builds")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	reader := fs.String("reader", "labels", "how fields are found: labels (by their captions, the default; issue 15) or zones (crop each field's zone, the former reader)")
	variantsFlag := fs.String("variants", "base,heldout", "synth layout families, comma-separated, or all: "+variantNames()+
		" (heldout is never tuned on: docs/synth.md)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	stop, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	if *cores < 1 || *n < 1 {
		return Usagef("-cores and -n must be positive")
	}
	if *source != ocrbench.Synth && *source != ocrbench.Cardtest && *source != ocrbench.HTML {
		return Usagef("-source is synth, cardtest or html")
	}
	if *source == ocrbench.HTML {
		if _, err := htmlcards.ParseStyle(*style); err != nil {
			return Usagef("%v", err)
		}
		if *outlines {
			return Usagef("-outlines reads synth captures only")
		}
	}
	variants, err := ocrbench.ParseVariants(*variantsFlag)
	if err != nil {
		return Usagef("%v", err)
	}
	prev := runtime.GOMAXPROCS(*cores)
	defer runtime.GOMAXPROCS(prev)
	if *reader != "zones" && *reader != "labels" {
		return Usagef("-reader is zones or labels")
	}
	k := ocr.New(ocr.WithWorkers(*cores), ocr.WithLabelReader(*reader == "labels"))
	defer k.Close()
	reg := docdefs.Default()
	if *specimens != "" {
		return benchSpecimens(ctx, env, k, reg, *config, *specimens)
	}
	defs, err := namedDefinitions(reg, *defsFlag)
	if err != nil {
		return err
	}
	o := ocrbench.Options{Check: k, Definitions: defs, Levels: strings.Split(*levels, ","), Variants: variants,
		Source: *source, Style: *style, N: *n, Seed: *seed, Outlines: *outlines, Out: *out}
	if *verbose {
		o.Log = env.Stderr
	}
	if *results != "" {
		f, err := os.Create(*results)
		if err != nil {
			return err
		}
		defer f.Close()
		o.Results = f
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	header, row := "cards\tfound\tupright\tfields\texact fields\tchar acc", tallyRow
	if *outlines {
		header, row = "cards\tsides\tfound\tupright", outlineRow
	}
	fmt.Fprintf(w, "level\tvariant\tdefinition\t%s\tp50\tp95\tcpu p50\tcpu p95\n", header)
	rows, err := ocrbench.Run(ctx, o, func(l *ocrbench.Level) {
		printLevel(w, defs, l, row)
		w.Flush()
	})
	if err != nil {
		return benchErr(err)
	}
	if *outlines {
		return nil
	}
	if len(o.Variants) > 1 && *source == ocrbench.Synth {
		printFamilies(w, rows)
	} else {
		printByField(w, rows)
	}
	return w.Flush()
}

// namedDefinitions are the definitions named by -defs, comma separated, or
// all those the synthetic corpora draw (docdefs.Registry.Drawn: not the
// visas, which -specimens reads).
func namedDefinitions(reg *docdefs.Registry, names string) ([]*idv.DocumentDefinition, error) {
	if names == "" {
		return reg.Drawn(), nil
	}
	var defs []*idv.DocumentDefinition
	for _, c := range strings.Split(names, ",") {
		d, ok := reg.Definition(strings.TrimSpace(c))
		if !ok {
			return nil, Usagef("unknown definition %q", c)
		}
		if d.Kind == docdefs.KindVisa {
			return nil, Usagef("%s: the synthetic corpora draw no visa; read visas with -specimens", d.Config)
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// printLevel prints one row per definition and an OVERALL row, each
// starting with the level and variant columns.
func printLevel(w io.Writer, defs []*idv.DocumentDefinition, l *ocrbench.Level, row func(*ocrbench.Tally) string) {
	prefix := l.Level + "\t" + l.VariantName()
	for di, def := range defs {
		fmt.Fprintf(w, "%s\t%s\t%s\n", prefix, def.Config, row(&l.Tallies[di]))
	}
	fmt.Fprintf(w, "%s\tOVERALL\t%s\n", prefix, row(&l.Overall))
}

func tallyRow(t *ocrbench.Tally) string {
	found := bench.Pct(t.Found, t.Cards)
	upright := "-"
	if t.Sides > 0 {
		found = bench.Pct(t.Located, t.Sides)
		upright = bench.Pct(t.Upright, t.Sides)
	}
	return fmt.Sprintf("%d\t%s\t%s\t%d\t%s\t%s\t%s", t.Cards, found, upright, t.Fields,
		bench.Pct(t.Exact, t.Fields), bench.Pct(t.Chars-t.CharErrors, t.Chars), times(t))
}

func outlineRow(t *ocrbench.Tally) string {
	return fmt.Sprintf("%d\t%d\t%s\t%s\t%s", t.Cards, t.Sides, bench.Pct(t.Located, t.Sides), bench.Pct(t.Upright, t.Sides), times(t))
}

// times prints wall-clock and CPU time quantiles: on a shared machine the
// CPU time is the cost of a card, the wall time includes waiting.
func times(t *ocrbench.Tally) string {
	return fmt.Sprintf("%d ms\t%d ms\t%d ms\t%d ms",
		ocrbench.Quantile(t.Durations, 0.5).Milliseconds(), ocrbench.Quantile(t.Durations, 0.95).Milliseconds(),
		ocrbench.Quantile(t.CPU, 0.5).Milliseconds(), ocrbench.Quantile(t.CPU, 0.95).Milliseconds())
}

// printFamilies ends a run over several families with their exact-field
// accuracy side by side, one row per family and a column per level: the
// heldout row is the figure that counts (docs/synth.md).
func printFamilies(w io.Writer, rows []*ocrbench.Level) {
	var levels, families []string
	cell := map[[2]string]*ocrbench.Tally{}
	for _, r := range rows {
		if !slices.Contains(levels, r.Level) {
			levels = append(levels, r.Level)
		}
		if !slices.Contains(families, r.VariantName()) {
			families = append(families, r.VariantName())
		}
		cell[[2]string{r.VariantName(), r.Level}] = &r.Overall
	}
	fmt.Fprintf(w, "\nexact fields by layout family (heldout is never tuned on)\nvariant")
	for _, lv := range levels {
		fmt.Fprintf(w, "\t%s", lv)
	}
	fmt.Fprintf(w, "\tcpu p50\n")
	for _, f := range families {
		var all ocrbench.Tally
		fmt.Fprintf(w, "%s", f)
		for _, lv := range levels {
			t := cell[[2]string{f, lv}]
			if t == nil {
				fmt.Fprintf(w, "\t-")
				continue
			}
			all.Add(t)
			fmt.Fprintf(w, "\t%s (%d/%d)", bench.Pct(t.Exact, t.Fields), t.Exact, t.Fields)
		}
		fmt.Fprintf(w, "\t%d ms\n", ocrbench.Quantile(all.CPU, 0.5).Milliseconds())
	}
	printByField(w, rows)
}

// printByField is exact fields per field name (over all definitions),
// a column per family and level.
func printByField(w io.Writer, rows []*ocrbench.Level) {
	var names []string
	for _, r := range rows {
		for n := range r.Overall.ByField {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	fmt.Fprintf(w, "\nexact fields by field\nfield")
	for _, r := range rows {
		fmt.Fprintf(w, "\t%s %s", r.VariantName(), r.Level)
	}
	fmt.Fprintln(w)
	for _, n := range names {
		fmt.Fprintf(w, "%s", n)
		for _, r := range rows {
			if c := r.Overall.ByField[n]; c != nil {
				fmt.Fprintf(w, "\t%s (%d/%d)", bench.Pct(c.Exact, c.Scored), c.Exact, c.Scored)
			} else {
				fmt.Fprintf(w, "\t-")
			}
		}
		fmt.Fprintln(w)
	}
}

// benchSpecimens prints what the check finds in every image of dir
// (ocrbench.Specimens) and the counts.
func benchSpecimens(ctx context.Context, env *Env, k *ocr.Check, reg *docdefs.Registry, config, dir string) error {
	cands, err := ocrbench.Candidates(reg, config)
	if err != nil {
		return benchErr(err)
	}
	sum, err := ocrbench.Specimens(ctx, k, cands, dir, func(s *ocrbench.Specimen) { printSpecimen(env.Stdout, s) })
	if err != nil {
		return benchErr(err)
	}
	printSpecimenSummary(env.Stdout, sum)
	return nil
}

// printSpecimen prints one image's reading.
func printSpecimen(w io.Writer, s *ocrbench.Specimen) {
	if s.DecodeErr != nil {
		fmt.Fprintf(w, "%s: %v\n", s.Name, s.DecodeErr)
		return
	}
	ms := s.Elapsed.Milliseconds()
	if s.Ex == nil {
		fmt.Fprintf(w, "%s (%dx%d, %d ms): %s\n", s.Name, s.Bounds.Dx(), s.Bounds.Dy(), ms, s.Reason)
		return
	}
	ex := s.Ex
	c := ex.Cards["front"]
	vsTruth := ""
	if s.VsTruth != "" {
		vsTruth = "; truth: " + s.VsTruth
		if s.TruthRead {
			vsTruth = "; truth (no vector: the MRZ read from the image): " + s.VsTruth
		}
	}
	as := ex.Definition.Config
	if s.ChosenBy != "" {
		as += " (by its " + s.ChosenBy + ")"
	}
	fmt.Fprintf(w, "%s (%dx%d, %d ms) as %s: outline score %.2f fills-frame %v rotation %d; %s%s; coverage %.2f; reasons %v\n",
		s.Name, s.Bounds.Dx(), s.Bounds.Dy(), ms, as, c.Detection.Score, c.Detection.FillsFrame, c.Rotation, s.MRZ, vsTruth,
		ex.Quality.Coverage, ex.Reasons)
	for _, f := range s.Fields {
		check := ""
		if f.Truth != "" {
			check = fmt.Sprintf("  (truth %q)", f.Truth)
		}
		fmt.Fprintf(w, "    %-16s %-28s %s%s\n", f.Name, f.Value, f.Source, check)
	}
	fmt.Fprintf(w, "    key fields: %s\n", strings.Join(s.Keys, ", "))
	if s.MRZRead != "" {
		fmt.Fprintf(w, "    mrz read %q\n", s.MRZRead)
	}
}

func printSpecimenSummary(w io.Writer, s *ocrbench.SpecimenSummary) {
	var defs []string
	for d, n := range s.ByDefinition {
		defs = append(defs, fmt.Sprintf("%s %d", d, n))
	}
	sort.Strings(defs)
	fmt.Fprintf(w, "SUMMARY %d images (%s): MRZ found %d, trusted %d; MRZ exact %d of %d with truth; "+
		"fields presented on %d images, %d fields; MRZ-backed fields vs truth %d of %d agree\n",
		s.Images, strings.Join(defs, ", "), s.MRZFound, s.MRZTrusted, s.MRZExact, s.WithTruth,
		s.WithFields, s.Fields, s.Agreed, s.Compared)
	if len(s.Wrong) > 0 {
		fmt.Fprintf(w, "fields differing from truth: %v\n", s.Wrong)
	}
	fmt.Fprintf(w, "KEY FIELDS printed (surname, given names, document number, date of birth): %d of %d read from the print, %d of those agree with the MRZ truth; %d of the read were located by the MRZ's value (agree by construction); %d images without a vector held against the MRZ read from them\n",
		s.KeyRead, s.KeyWanted, s.KeyAgree, s.KeyLocated, s.ReadTruth)
}
