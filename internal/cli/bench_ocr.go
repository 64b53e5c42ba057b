package cli

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/cardtest"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

func init() {
	Register(&Command{Path: "bench ocr", Summary: "measure card finding and field OCR accuracy and time on synthetic captures", Run: benchOCR})
}

// cardtestLevels are the capture conditions of the cardtest source (the
// project's own simple renders, kept as a second, easier reference).
var cardtestLevels = map[string]func(r *rand.Rand) cardtest.Scene{
	"easy": func(r *rand.Rand) cardtest.Scene {
		return cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.72 + 0.08*r.Float64(), Angle: r.Float64()*10 - 5, Tilt: 0.02, Quality: 90}
	},
	"medium": func(r *rand.Rand) cardtest.Scene {
		return cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.55 + 0.15*r.Float64(), Angle: r.Float64() * 360, Tilt: 0.05,
			Texture: r.IntN(2) == 0, Blur: 0.8 * r.Float64(), Quality: 80}
	},
	"hard": func(r *rand.Rand) cardtest.Scene {
		return cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.45 + 0.15*r.Float64(), Angle: r.Float64() * 360, Tilt: 0.08,
			Texture: true, Blur: 0.6 + r.Float64(), Glare: 0.08 * r.Float64(), GlareAt: [2]float64{r.Float64(), r.Float64()}, Quality: 70}
	},
}

type benchTally struct {
	cards, found      int
	sides, located    int // sides with truth corners, and of those found where they are
	upright           int // located sides also turned the right way up
	fields, exact     int
	chars, charErrors int
	durations, cpu    []time.Duration
	// byField counts, per field name, the fields scored and read exactly
	// (the closing table of a run: which fields a family loses).
	byField map[string]*[2]int
}

// field counts one scored field in byField.
func (t *benchTally) field(name string, exact bool) {
	if t.byField == nil {
		t.byField = map[string]*[2]int{}
	}
	c := t.byField[name]
	if c == nil {
		c = &[2]int{}
		t.byField[name] = c
	}
	c[0]++
	if exact {
		c[1]++
	}
}

func (t *benchTally) add(o *benchTally) {
	t.cards += o.cards
	t.found += o.found
	t.sides += o.sides
	t.located += o.located
	t.upright += o.upright
	t.fields += o.fields
	t.exact += o.exact
	t.chars += o.chars
	t.charErrors += o.charErrors
	t.durations = append(t.durations, o.durations...)
	t.cpu = append(t.cpu, o.cpu...)
	for n, c := range o.byField {
		for i := 0; i < c[0]; i++ {
			t.field(n, i < c[1])
		}
	}
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1)+0.5)]
}

// ocrBench is one run of the benchmark.
type ocrBench struct {
	env     *Env
	k       *ocr.Check
	variant synth.Variant // the synth layout family being read; "" for cardtest
	verbose bool
	out     string // folder for the captures of cards with errors
}

func benchOCR(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench ocr")
	n := fs.Int("n", 10, "cards per definition and level")
	levels := fs.String("levels", "easy,medium,hard", "capture levels (synth difficulties)")
	defsFlag := fs.String("defs", "", "definitions (default: all)")
	cores := fs.Int("cores", 1, "CPU cores to use (GOMAXPROCS and tesseract workers)")
	seed := fs.Uint64("seed", 1, "random seed")
	source := fs.String("source", "synth", "captures: synth (internal/testkit/synth, realistic) or cardtest (plain renders)")
	specimens := fs.String("specimens", "", "instead, read every image in this folder and print what is found")
	config := fs.String("config", "", "definition for -specimens (default: the generic ones, the check picks per image)")
	verbose := fs.Bool("v", false, "print every field read wrongly and every card not found")
	out := fs.String("out", "", "write the captures, truth and rectified sides of every card with an error here")
	outlines := fs.Bool("outlines", false, "measure only finding, rectifying and turning the card upright (no OCR; synth source)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	reader := fs.String("reader", "labels", "how fields are found: labels (by their captions, the default; issue 15) or zones (crop each field's zone, the former reader)")
	variantsFlag := fs.String("variants", "base,heldout", "synth layout families, comma-separated, or all: "+variantNames()+
		" (heldout is never tuned on: docs/synth.md)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *cores < 1 || *n < 1 {
		return Usagef("-cores and -n must be positive")
	}
	if *source != "synth" && *source != "cardtest" {
		return Usagef("-source is synth or cardtest")
	}
	variants, err := parseVariants(*variantsFlag)
	if err != nil {
		return Usagef("%v", err)
	}
	if *source == "cardtest" {
		// cardtest draws one layout of its own
		variants = []synth.Variant{""}
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
	var defs []*idv.DocumentDefinition
	if *defsFlag == "" {
		for _, c := range reg.Configs() {
			d, _ := reg.Definition(c)
			defs = append(defs, d)
		}
	} else {
		for _, c := range strings.Split(*defsFlag, ",") {
			d, ok := reg.Definition(strings.TrimSpace(c))
			if !ok {
				return Usagef("unknown definition %q", c)
			}
			defs = append(defs, d)
		}
	}
	b := &ocrBench{env: env, k: k, verbose: *verbose, out: *out}
	w := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	if *outlines {
		fmt.Fprintf(w, "level\tvariant\tdefinition\tcards\tsides\tfound\tupright\tp50\tp95\tcpu p50\tcpu p95\n")
		for _, v := range variants {
			b.variant = v
			for _, lv := range strings.Split(*levels, ",") {
				if err := b.outlineLevel(ctx, lv, defs, *n, *seed, w); err != nil {
					return err
				}
			}
		}
		return nil
	}
	fmt.Fprintf(w, "level\tvariant\tdefinition\tcards\tfound\tupright\tfields\texact fields\tchar acc\tp50\tp95\tcpu p50\tcpu p95\n")
	var summary []familyRow
	for _, v := range variants {
		b.variant = v
		for _, lv := range strings.Split(*levels, ",") {
			tallies := make([]benchTally, len(defs))
			var err error
			if *source == "synth" {
				err = b.synthLevel(ctx, lv, defs, *n, *seed, tallies)
			} else {
				err = b.cardtestLevel(ctx, lv, defs, *n, *seed, tallies)
			}
			if err != nil {
				return err
			}
			all := printTallies(w, b.rowPrefix(lv), defs, tallies, tallyRow)
			summary = append(summary, familyRow{variant: b.variantName(), level: lv, t: all})
			w.Flush()
		}
	}
	if len(variants) > 1 {
		printFamilies(w, summary)
	} else {
		printByField(w, summary)
	}
	return w.Flush()
}

// parseVariants reads -variants: names of synth layout families or all.
func parseVariants(s string) ([]synth.Variant, error) {
	if strings.TrimSpace(s) == "all" {
		return synth.Variants, nil
	}
	var out []synth.Variant
	seen := map[synth.Variant]bool{}
	for _, name := range strings.Split(s, ",") {
		v, err := synth.ParseVariant(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

func (b *ocrBench) variantName() string {
	if b.variant == "" {
		return "-"
	}
	return string(b.variant)
}

// rowPrefix is the level and variant columns of a row.
func (b *ocrBench) rowPrefix(lv string) string { return lv + "\t" + b.variantName() }

// familyRow is one family's OVERALL tally at one level.
type familyRow struct {
	variant, level string
	t              benchTally
}

// printFamilies ends a run over several families with their exact-field
// accuracy side by side, one row per family and a column per level: the
// heldout row is the figure that counts (docs/synth.md).
func printFamilies(w io.Writer, rows []familyRow) {
	var levels, families []string
	cell := map[[2]string]*benchTally{}
	for i := range rows {
		r := &rows[i]
		if !slices.Contains(levels, r.level) {
			levels = append(levels, r.level)
		}
		if !slices.Contains(families, r.variant) {
			families = append(families, r.variant)
		}
		cell[[2]string{r.variant, r.level}] = &r.t
	}
	fmt.Fprintf(w, "\nexact fields by layout family (heldout is never tuned on)\nvariant")
	for _, lv := range levels {
		fmt.Fprintf(w, "\t%s", lv)
	}
	fmt.Fprintf(w, "\tcpu p50\n")
	for _, f := range families {
		var all benchTally
		fmt.Fprintf(w, "%s", f)
		for _, lv := range levels {
			t := cell[[2]string{f, lv}]
			if t == nil {
				fmt.Fprintf(w, "\t-")
				continue
			}
			all.add(t)
			fmt.Fprintf(w, "\t%s (%d/%d)", pct(t.exact, t.fields), t.exact, t.fields)
		}
		fmt.Fprintf(w, "\t%d ms\n", quantile(all.cpu, 0.5).Milliseconds())
	}
	printByField(w, rows)
}

// printByField is exact fields per field name (over all definitions),
// a column per family and level.
func printByField(w io.Writer, rows []familyRow) {
	var names []string
	for _, r := range rows {
		for n := range r.t.byField {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	fmt.Fprintf(w, "\nexact fields by field\nfield")
	for _, r := range rows {
		fmt.Fprintf(w, "\t%s %s", r.variant, r.level)
	}
	fmt.Fprintln(w)
	for _, n := range names {
		fmt.Fprintf(w, "%s", n)
		for _, r := range rows {
			if c := r.t.byField[n]; c != nil {
				fmt.Fprintf(w, "\t%s (%d/%d)", pct(c[1], c[0]), c[1], c[0])
			} else {
				fmt.Fprintf(w, "\t-")
			}
		}
		fmt.Fprintln(w)
	}
}

func tallyRow(t *benchTally) string {
	found := pct(t.found, t.cards)
	upright := "-"
	if t.sides > 0 {
		found = pct(t.located, t.sides)
		upright = pct(t.upright, t.sides)
	}
	return fmt.Sprintf("%d\t%s\t%s\t%d\t%s\t%s\t%s", t.cards, found, upright, t.fields,
		pct(t.exact, t.fields), pct(t.chars-t.charErrors, t.chars), times(t))
}

// synthLevel reads n synth captures of every definition at one difficulty.
// Sample i*len(defs)+di of a generator over defs is of definition di.
func (b *ocrBench) synthLevel(ctx context.Context, lv string, defs []*idv.DocumentDefinition, n int, seed uint64, tallies []benchTally) error {
	return eachSynthSample(ctx, lv, b.variant, defs, n, seed, func(idx, di int, def *idv.DocumentDefinition, smp *synth.Sample) error {
		captures := map[string][]byte{idv.SlotFront: smp.Front}
		corners := map[string]*[4][2]float64{}
		if smp.Truth.Capture.Front != nil {
			corners["front"] = &smp.Truth.Capture.Front.Corners
		}
		if def.HasSide("back") {
			captures[idv.SlotBack] = smp.Back
			corners["back"] = &smp.Truth.Capture.Back.Corners
		}
		name := fmt.Sprintf("%s/%s/%s#%d", lv, b.variant, def.Config, idx)
		ex, ok, err := b.readCard(ctx, name, def, captures, smp.Truth.Printed, corners, &tallies[di])
		if err != nil {
			return err
		}
		if !ok && b.out != "" {
			if err := b.dump(filepath.Join(b.out, fmt.Sprintf("%s-%s-%s-%d", lv, b.variant, def.Config, idx)), smp, ex); err != nil {
				return err
			}
		}
		return nil
	})
}

// printTallies prints one row per definition and an OVERALL row, each
// starting with prefix (the level and variant columns), and returns the
// OVERALL tally.
func printTallies(w io.Writer, prefix string, defs []*idv.DocumentDefinition, tallies []benchTally, row func(*benchTally) string) benchTally {
	var all benchTally
	for di, def := range defs {
		fmt.Fprintf(w, "%s\t%s\t%s\n", prefix, def.Config, row(&tallies[di]))
		all.add(&tallies[di])
	}
	fmt.Fprintf(w, "%s\tOVERALL\t%s\n", prefix, row(&all))
	return all
}

// eachSynthSample renders n synthetic samples of every definition at level
// lv in layout family v, sample idx = i*len(defs)+di being of defs[di], and
// calls f on each.
func eachSynthSample(ctx context.Context, lv string, v synth.Variant, defs []*idv.DocumentDefinition, n int, seed uint64,
	f func(idx, di int, def *idv.DocumentDefinition, smp *synth.Sample) error) error {
	diff, err := synth.ParseDifficulty(lv)
	if err != nil {
		return Usagef("%v", err)
	}
	gen, err := synth.New(synth.Options{Definitions: defs, Seed: seed, Difficulty: diff, ImpostorRate: -1, Variant: v})
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		for di, def := range defs {
			if err := ctx.Err(); err != nil {
				return err
			}
			idx := i*len(defs) + di
			smp, err := gen.Sample(ctx, idx)
			if err != nil {
				return err
			}
			if err := f(idx, di, def, smp); err != nil {
				return err
			}
		}
	}
	return nil
}

// cardtestLevel reads n cardtest renders of every definition.
func (b *ocrBench) cardtestLevel(ctx context.Context, lv string, defs []*idv.DocumentDefinition, n int, seed uint64, tallies []benchTally) error {
	mk, ok := cardtestLevels[lv]
	if !ok {
		return Usagef("unknown level %q (easy, medium, hard)", lv)
	}
	for di, def := range defs {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			r := rand.New(rand.NewPCG(seed, uint64(di*1000+i)))
			sc := mk(r)
			printed, truth := cardtest.Values(def, r)
			mrz := cardtest.MRZ(def, truth)
			captures := map[string][]byte{}
			for si, side := range def.Sides {
				card, err := cardtest.Side(def, side, printed, mrz, 10)
				if err != nil {
					return err
				}
				sc.Seed = r.Uint64() + uint64(si)
				data, _, err := cardtest.Photo(card, sc)
				if err != nil {
					return err
				}
				captures[side] = data
			}
			name := fmt.Sprintf("%s/%s#%d", lv, def.Config, i)
			if _, _, err := b.readCard(ctx, name, def, captures, printed, nil, &tallies[di]); err != nil {
				return err
			}
		}
	}
	return nil
}

// readCard decodes and reads one card (all its sides) and scores it. The
// time counted is decoding, finding, rectifying and reading, per card.
// ok is false when anything was wrong.
func (b *ocrBench) readCard(ctx context.Context, name string, def *idv.DocumentDefinition, captures map[string][]byte,
	printed map[string]string, corners map[string]*[4][2]float64, t *benchTally) (*ocr.Extraction, bool, error) {
	// Collect the garbage of rendering now, so it is not charged to the card.
	runtime.GC()
	start, cpu0 := time.Now(), processCPU()
	imgs := map[string]image.Image{}
	for slot, data := range captures {
		img, err := vision.Decode(data)
		if err != nil {
			return nil, false, err
		}
		imgs[slot] = img
	}
	ex, err := b.k.Extract(ctx, imgs, []*idv.DocumentDefinition{def}, nil)
	t.durations = append(t.durations, time.Since(start))
	t.cpu = append(t.cpu, processCPU()-cpu0)
	t.cards++
	ok := true
	fields, raw := map[string]string{}, map[string]string{}
	if err == nil {
		fields, raw = ex.Fields, ex.Raw
		if !unreadSide(ex) {
			t.found++
		}
	} else {
		var ie *ocr.InputError
		if !errors.As(err, &ie) {
			return nil, false, err
		}
		ok = false
		if b.verbose {
			fmt.Fprintf(b.env.Stderr, "%s: %v\n", name, err)
		}
	}
	for _, side := range def.Sides {
		c := corners[side]
		if c == nil {
			continue
		}
		t.sides++
		var card *vision.Card
		if ex != nil {
			card = ex.Cards[side]
		}
		located, upright, off := cornerMatch(card, c)
		if located {
			t.located++
		}
		if upright {
			t.upright++
		}
		if !upright {
			ok = false
			if b.verbose {
				fmt.Fprintf(b.env.Stderr, "%s %s: outline located %v upright %v (corner error %.1f %% of the long side)\n", name, side, located, upright, 100*off)
			}
		}
	}
	for _, f := range benchFields(def) {
		want, vok := ocr.Normalize(f, printed[f.Name])
		if !vok {
			// The renderer printed something the definition's own rules
			// reject: a corpus bug, reported rather than scored.
			return nil, false, fmt.Errorf("%s: printed %s %q does not normalise", name, f.Name, printed[f.Name])
		}
		t.fields++
		got := fields[f.Name]
		t.field(f.Name, want == got)
		if want == got {
			t.exact++
		} else {
			ok = false
			if b.verbose {
				fmt.Fprintf(b.env.Stderr, "%s.%s: got %q want %q (tesseract %q)\n", name, f.Name, got, want, raw[f.Name])
			}
		}
		t.chars += len(want)
		t.charErrors += min(levenshtein(want, got), len(want))
	}
	return ex, ok, nil
}

// benchFields are the fields scored: every field of the schema printed on
// the card. Fixed fields (document_type) are copied from the definition,
// not read, so they would only flatter the figure; photo, signature and
// barcode are zones, not fields, and are not in the schema.
func benchFields(def *idv.DocumentDefinition) []idv.FieldDef {
	var fs []idv.FieldDef
	for _, name := range def.FieldSchema {
		for _, f := range def.Fields {
			if f.Name == name && f.Fixed == "" && def.HasSide(f.Zone.Side) {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

func unreadSide(ex *ocr.Extraction) bool {
	for _, r := range ex.Reasons {
		if strings.HasSuffix(r, "_unreadable") || strings.HasSuffix(r, vision.ReasonCardNotFound) {
			return true
		}
	}
	return false
}

// cornerTolerance is the largest corner error, as a share of the card's
// long side, at which an outline counts as found: 2 % is about 1.7 mm on
// an ID-1 card, within the margin the check adds around each zone.
const cornerTolerance = 0.02

// cornerMatch compares the outline the pipeline found with the truth's
// corners (top-left, top-right, bottom-right, bottom-left of the document
// in the displayed capture). located: the four corners are where the card
// is, in any order; upright: also in the document's order once the card's
// rotation is applied. off is the largest corner error of the best order
// as a share of the long side.
func cornerMatch(card *vision.Card, truth *[4][2]float64) (located, upright bool, off float64) {
	if card == nil || !card.Detection.Found {
		return false, false, math.Inf(1)
	}
	long := math.Max(math.Hypot(truth[1][0]-truth[0][0], truth[1][1]-truth[0][1]),
		math.Hypot(truth[2][0]-truth[1][0], truth[2][1]-truth[1][1]))
	// The quad is of the card before it was turned upright.
	shift := card.Rotation / 90
	errAt := func(s int) float64 {
		worst := 0.0
		for i := 0; i < 4; i++ {
			p := card.Detection.Quad[(i+s)%4]
			worst = math.Max(worst, math.Hypot(p.X-truth[i][0], p.Y-truth[i][1]))
		}
		return worst / long
	}
	best := math.Inf(1)
	for s := 0; s < 4; s++ {
		best = math.Min(best, errAt(s))
	}
	located = best <= cornerTolerance
	return located, errAt(shift) <= cornerTolerance, best
}

// dump writes a sample that had an error, with what the pipeline made of
// it, for a person to look at.
func (b *ocrBench) dump(dir string, smp *synth.Sample, ex *ocr.Extraction) error {
	if err := smp.WriteDir(dir); err != nil {
		return err
	}
	if ex == nil {
		return nil
	}
	for side, c := range ex.Cards {
		if err := writePNG(filepath.Join(dir, side+"_rectified.png"), c.Image); err != nil {
			return err
		}
	}
	return nil
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// times prints wall-clock and CPU time quantiles: on a shared machine the
// CPU time is the cost of a card, the wall time includes waiting.
func times(t *benchTally) string {
	return fmt.Sprintf("%d ms\t%d ms\t%d ms\t%d ms",
		quantile(t.durations, 0.5).Milliseconds(), quantile(t.durations, 0.95).Milliseconds(),
		quantile(t.cpu, 0.5).Milliseconds(), quantile(t.cpu, 0.95).Milliseconds())
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// benchSpecimens reads every image of dir as one capture (the front slot)
// and prints what the check finds. Without -config the candidates are the
// generic definitions (generic_passport, generic_id_card) and the check's
// own document-type detection picks one per image, as a workflow allowing
// both would: each is read, and the reading whose MRZ is of the
// definition's format ranks first. Where mrz_vectors.json (in dir or its
// parent) names the image, the MRZ and the presented MRZ-backed fields are
// compared with its lines.
func benchSpecimens(ctx context.Context, env *Env, k *ocr.Check, reg *docdefs.Registry, config, dir string) error {
	var cands []*idv.DocumentDefinition
	if config != "" {
		d, ok := reg.Definition(config)
		if !ok {
			return Usagef("unknown definition %q", config)
		}
		cands = append(cands, d)
	} else {
		for _, d := range reg.All() {
			if d.Generic() {
				cands = append(cands, d)
			}
		}
		if len(cands) == 0 {
			return Usagef("no generic definition to read the specimens with; name one with -config")
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Usagef("%v", err)
	}
	truth := specimenTruth(dir)
	var sum specimenSummary
	sum.byDef = map[string]int{}
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".jpg" && ext != ".jpeg" && ext != ".png") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		sum.images++
		start := time.Now()
		img, err := vision.Decode(data)
		if err != nil {
			fmt.Fprintf(env.Stdout, "%s: %v\n", e.Name(), err)
			continue
		}
		ex, err := k.Extract(ctx, map[string]image.Image{idv.SlotFront: img}, cands, nil)
		el := time.Since(start).Milliseconds()
		if err != nil {
			var ie *ocr.InputError
			if !errors.As(err, &ie) {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s (%dx%d, %d ms): %s\n", e.Name(), img.Bounds().Dx(), img.Bounds().Dy(), el, ie.Reason)
			sum.byDef["none"]++
			continue
		}
		sum.add(env.Stdout, e.Name(), img.Bounds(), el, ex, truth[e.Name()])
	}
	sum.print(env.Stdout)
	return nil
}

// specimenTruth maps image file names to their MRZ lines, from
// mrz_vectors.json in dir or its parent; nil when there is none.
func specimenTruth(dir string) map[string][]string {
	for _, d := range []string{dir, filepath.Dir(filepath.Clean(dir))} {
		cs, err := mrzSpecimens(d)
		if err != nil {
			continue
		}
		out := map[string][]string{}
		for _, c := range cs {
			out[filepath.Base(c.path)] = c.lines
		}
		return out
	}
	return nil
}

type specimenSummary struct {
	images, mrzFound, mrzTrusted int
	withTruth, mrzExact          int
	withFields, fields           int
	compared, agreed             int
	// keyRead: the four key fields (surname, given names, document
	// number, date of birth) read from the print, not copied from the
	// MRZ; keyAgree: of those, agreeing with the MRZ truth after folding
	// accents and spacing; keyWanted: key fields the definition has.
	keyWanted, keyRead, keyAgree int
	byDef                        map[string]int
	wrong                        []string
}

// add prints one image's reading and counts it.
func (s *specimenSummary) add(w io.Writer, name string, b image.Rectangle, ms int64, ex *ocr.Extraction, want []string) {
	d := ex.Definition
	s.byDef[d.Config]++
	c := ex.Cards["front"]
	mrzNote := "no MRZ"
	if ex.MRZ != nil {
		s.mrzFound++
		mrzNote = "MRZ " + ex.MRZ.Format + " checks fail"
		if ex.Quality.MRZTrusted {
			s.mrzTrusted++
			mrzNote = "MRZ " + ex.MRZ.Format + " checks ok"
		} else if ex.MRZ.AllChecksPass {
			mrzNote = "MRZ " + ex.MRZ.Format + " checks ok, not this definition's format"
		}
	}
	vsTruth := ""
	var wantMRZ *idv.MRZData
	if want != nil {
		s.withTruth++
		vsTruth = "; truth: MRZ differs"
		if ex.MRZText == strings.Join(want, "\n") {
			s.mrzExact++
			vsTruth = "; truth: MRZ exact"
		}
		if m, err := mrz.Parse(want, mrz.Options{}); err == nil {
			wantMRZ = ocr.MRZData(m)
		}
	}
	fmt.Fprintf(w, "%s (%dx%d, %d ms) as %s: outline score %.2f fills-frame %v rotation %d; %s%s; coverage %.2f; reasons %v\n",
		name, b.Dx(), b.Dy(), ms, d.Config, c.Detection.Score, c.Detection.FillsFrame, c.Rotation, mrzNote, vsTruth,
		ex.Quality.Coverage, ex.Reasons)
	fromMRZ := map[string]bool{}
	for _, f := range ex.FromMRZ {
		fromMRZ[f] = true
	}
	n := 0
	for _, fname := range d.FieldSchema {
		v := ex.Fields[fname]
		f, _ := d.Field(fname)
		if v == "" || f.Fixed != "" {
			continue
		}
		n++
		src := "printed"
		if fromMRZ[fname] {
			src = "mrz"
		}
		check := ""
		if wantMRZ != nil && f.MRZ != "" {
			if tv := ocr.MRZValue(wantMRZ, f.MRZ); tv != "" {
				s.compared++
				if tv == v {
					s.agreed++
				} else {
					check = fmt.Sprintf("  (truth %q)", tv)
					s.wrong = append(s.wrong, name+"."+fname)
				}
			}
		}
		fmt.Fprintf(w, "    %-16s %-28s %s%s\n", fname, v, src, check)
	}
	if n > 0 {
		s.withFields++
		s.fields += n
	}
	var keys []string
	for _, fname := range d.FieldSchema {
		f, _ := d.Field(fname)
		switch f.MRZ {
		case "surname", "given_names", "document_number", "date_of_birth":
		default:
			continue
		}
		s.keyWanted++
		v := ex.Fields[fname]
		if v == "" || fromMRZ[fname] {
			keys = append(keys, fname+" -")
			continue
		}
		s.keyRead++
		mark := "?"
		if wantMRZ != nil {
			mark = "differs"
			if tv := ocr.MRZValue(wantMRZ, f.MRZ); tv != "" && foldKey(tv) == foldKey(v) {
				s.keyAgree++
				mark = "agrees"
			}
		}
		keys = append(keys, fname+" printed "+mark)
	}
	fmt.Fprintf(w, "    key fields: %s\n", strings.Join(keys, ", "))
	if ex.MRZText != "" && (want == nil || ex.MRZText != strings.Join(want, "\n")) {
		fmt.Fprintf(w, "    mrz read %q\n", ex.MRZText)
	}
}

func (s *specimenSummary) print(w io.Writer) {
	var defs []string
	for d, n := range s.byDef {
		defs = append(defs, fmt.Sprintf("%s %d", d, n))
	}
	sort.Strings(defs)
	fmt.Fprintf(w, "SUMMARY %d images (%s): MRZ found %d, trusted %d; MRZ exact %d of %d with truth; "+
		"fields presented on %d images, %d fields; MRZ-backed fields vs truth %d of %d agree\n",
		s.images, strings.Join(defs, ", "), s.mrzFound, s.mrzTrusted, s.mrzExact, s.withTruth,
		s.withFields, s.fields, s.agreed, s.compared)
	if len(s.wrong) > 0 {
		fmt.Fprintf(w, "fields differing from truth: %v\n", s.wrong)
	}
	fmt.Fprintf(w, "KEY FIELDS printed (surname, given names, document number, date of birth): %d of %d read from the print, %d of those agree with the MRZ truth\n",
		s.keyRead, s.keyWanted, s.keyAgree)
}

// foldKey compares a printed value with the MRZ's: letters and digits
// only, accents folded (the MRZ transliterates), so MAUS and Maus, and
// JOSÉ and JOSE, agree.
func foldKey(v string) string {
	return docdefs.LabelKey(v) + "|" + digitsOf(v)
}

func digitsOf(v string) string {
	var b strings.Builder
	for _, r := range v {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
