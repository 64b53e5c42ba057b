package cli

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/cardtest"
	"github.com/tambua/tambua/vision"
)

func init() {
	Register(&Command{Path: "bench ocr", Summary: "measure card finding and field OCR accuracy and time", Run: benchOCR})
}

// ocrLevels are the capture conditions of the benchmark levels.
var ocrLevels = map[string]func(r *rand.Rand) cardtest.Scene{
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
	fields, exact     int
	chars, charErrors int
	durations, cpu    []time.Duration
}

func (t *benchTally) add(o *benchTally) {
	t.cards += o.cards
	t.found += o.found
	t.fields += o.fields
	t.exact += o.exact
	t.chars += o.chars
	t.charErrors += o.charErrors
	t.durations = append(t.durations, o.durations...)
	t.cpu = append(t.cpu, o.cpu...)
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

func benchOCR(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench ocr")
	n := fs.Int("n", 10, "cards per definition and level")
	levels := fs.String("levels", "easy,medium,hard", "capture levels")
	defsFlag := fs.String("defs", "", "definitions (default: all)")
	cores := fs.Int("cores", 1, "CPU cores to use (GOMAXPROCS and tesseract workers)")
	seed := fs.Uint64("seed", 1, "random seed")
	specimens := fs.String("specimens", "", "instead, read every image in this folder as -config and print what is found")
	config := fs.String("config", "generic_passport", "definition for -specimens")
	verbose := fs.Bool("v", false, "print every field read wrongly")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *cores < 1 || *n < 1 {
		return Usagef("-cores and -n must be positive")
	}
	prev := runtime.GOMAXPROCS(*cores)
	defer runtime.GOMAXPROCS(prev)
	k := ocr.New(ocr.WithWorkers(*cores))
	defer k.Close()
	reg := docdefs.Default()
	if *specimens != "" {
		def, ok := reg.Definition(*config)
		if !ok {
			return Usagef("unknown definition %q", *config)
		}
		return benchSpecimens(ctx, env, k, def, *specimens)
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
	w := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "level\tdefinition\tcards\tfound\texact fields\tchar acc\tp50\tp95\tcpu p50\tcpu p95\n")
	for _, lv := range strings.Split(*levels, ",") {
		mk, ok := ocrLevels[lv]
		if !ok {
			return Usagef("unknown level %q (easy, medium, hard)", lv)
		}
		var all benchTally
		for di, def := range defs {
			var t benchTally
			for i := 0; i < *n; i++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				r := rand.New(rand.NewPCG(*seed, uint64(di*1000+i)))
				if err := benchOne(ctx, env, *verbose, k, def, mk(r), r, &t); err != nil {
					return err
				}
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", lv, def.Config, t.cards, pct(t.found, t.cards),
				pct(t.exact, t.fields), pct(t.chars-t.charErrors, t.chars), times(&t))
			all.add(&t)
		}
		fmt.Fprintf(w, "%s\tOVERALL\t%d\t%s\t%s\t%s\t%s\n", lv, all.cards, pct(all.found, all.cards),
			pct(all.exact, all.fields), pct(all.chars-all.charErrors, all.chars), times(&all))
		w.Flush()
	}
	return w.Flush()
}

// benchOne renders one card, photographs it and reads it; the time counted
// is decoding, finding, rectifying and reading, per card (all its sides).
func benchOne(ctx context.Context, env *Env, verbose bool, k *ocr.Check, def *idv.DocumentDefinition, sc cardtest.Scene, r *rand.Rand, t *benchTally) error {
	printed, truth := cardtest.Values(def, r)
	mrz := cardtest.MRZ(def, truth)
	datas := map[string][]byte{}
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
		datas[side] = data
	}
	start, cpu0 := time.Now(), processCPU()
	imgs := map[string]image.Image{}
	for side, data := range datas {
		img, err := vision.Decode(data)
		if err != nil {
			return err
		}
		imgs[side] = img
	}
	ex, err := k.Extract(ctx, imgs, []*idv.DocumentDefinition{def}, nil)
	t.durations = append(t.durations, time.Since(start))
	t.cpu = append(t.cpu, processCPU()-cpu0)
	t.cards++
	fields, raw := map[string]string{}, map[string]string{}
	if err == nil {
		t.found++
		fields, raw = ex.Fields, ex.Raw
	} else if verbose {
		fmt.Fprintf(env.Stderr, "%s: %v\n", def.Config, err)
	}
	for _, name := range def.FieldSchema {
		t.fields++
		want, got := truth[name], fields[name]
		if want == got {
			t.exact++
		} else if verbose {
			fmt.Fprintf(env.Stderr, "%s.%s: got %q want %q (tesseract %q)\n", def.Config, name, got, want, raw[name])
		}
		t.chars += len(want)
		t.charErrors += min(levenshtein(want, got), len(want))
	}
	return nil
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

func benchSpecimens(ctx context.Context, env *Env, k *ocr.Check, def *idv.DocumentDefinition, dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Usagef("%v", err)
	}
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".jpg" && ext != ".jpeg" && ext != ".png") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		start := time.Now()
		img, err := vision.Decode(data)
		if err != nil {
			fmt.Fprintf(env.Stdout, "%s: %v\n", e.Name(), err)
			continue
		}
		ex, err := k.Extract(ctx, map[string]image.Image{idv.SlotFront: img}, []*idv.DocumentDefinition{def}, nil)
		el := time.Since(start).Milliseconds()
		if err != nil {
			fmt.Fprintf(env.Stdout, "%s (%dx%d, %d ms): %v\n", e.Name(), img.Bounds().Dx(), img.Bounds().Dy(), el, err)
			continue
		}
		c := ex.Cards["front"]
		fmt.Fprintf(env.Stdout, "%s (%dx%d, %d ms): found score %.2f fills-frame %v rotation %d; coverage %.2f; reasons %v\n",
			e.Name(), img.Bounds().Dx(), img.Bounds().Dy(), el, c.Detection.Score, c.Detection.FillsFrame, c.Rotation,
			ex.Quality.Coverage, ex.Reasons)
		for _, name := range def.FieldSchema {
			if v := ex.Fields[name]; v != "" {
				fmt.Fprintf(env.Stdout, "    %-16s %s\n", name, v)
			}
		}
		if ex.MRZText != "" {
			fmt.Fprintf(env.Stdout, "    mrz %q\n", ex.MRZText)
		}
	}
	return nil
}
