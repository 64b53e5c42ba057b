package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/bench/mrzbench"
	"github.com/tambua/tambua/mrz"
)

func init() {
	Register(&Command{
		Path:    "bench mrz",
		Summary: "MRZ reader accuracy and speed on the specimen images and line crops, against tesseract's mrz model",
		Run:     runBenchMRZ,
	})
}

func runBenchMRZ(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench mrz")
	dir := fs.String("testdata", env.Getenv("TAMBUA_TESTDATA"), "shared test data folder (default $TAMBUA_TESTDATA)")
	font := fs.String("font", mrz.DefaultFont, "OCR-B font")
	tess := fs.String("tesseract", "tesseract", "tesseract binary for the baseline (empty: skip)")
	verbose := fs.Bool("v", false, "list the misreads")
	synthN := fs.Int("synth", 30, "synthetic captures per difficulty (0: skip)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		*dir = filepath.Join("..", "shared", "testdata")
	}
	rep, err := mrzbench.Run(ctx, mrzbench.Options{Dir: *dir, Font: *font, Tesseract: *tess, Synth: *synthN})
	if err != nil {
		return benchErr(err)
	}

	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "MRZ reading, exact when every line matches (GOMAXPROCS=1, templates rendered in %.0f ms)\n", bench.Millis(rep.Prepare))
	fmt.Fprintln(w, "reader\texact\tmean\tmedian\tmax")
	mrzRow(w, &rep.Ours, "tambua, specimen images (with repair)")
	mrzRow(w, &rep.OursRaw, "tambua, specimen images (as read)")
	mrzRow(w, &rep.OurCrops, "tambua, line crops")
	mrzRow(w, &rep.Base, "tesseract mrz, specimen images")
	mrzRow(w, &rep.BaseCrops, "tesseract mrz, line crops")
	mrzRow(w, &rep.Degraded, "tambua, specimens tilted/rescaled/JPEG")
	for _, d := range rep.Synth {
		mrzRow(w, d.Score, "tambua, synthetic captures (whole photo), "+d.Difficulty)
		mrzRow(w, d.Check, "mrz_parsing on the rectified card, "+d.Difficulty)
	}
	w.Flush()
	fmt.Fprintf(env.Stdout, "memory: %.1f MB allocated per specimen image, %.1f MB heap in use after the run\n",
		float64(rep.AllocBytes)/float64(rep.Specimens)/(1<<20), float64(rep.HeapInuse)/(1<<20))
	if *verbose {
		fmt.Fprintf(env.Stdout, "tambua misses: %v\ntambua crop misses: %v\ntambua degraded misses: %v\ntesseract misses: %v\ntesseract crop misses: %v\n",
			rep.Ours.Misses, rep.OurCrops.Misses, rep.Degraded.Misses, rep.Base.Misses, rep.BaseCrops.Misses)
		for _, d := range rep.Synth {
			fmt.Fprintf(env.Stdout, "tambua synthetic %s misses: %v\nmrz_parsing on rectified %s misses: %v\n",
				d.Difficulty, d.Score.Misses, d.Difficulty, d.Check.Misses)
		}
	}
	return nil
}

// mrzRow prints one reader's exact reads and mean, median and longest time.
func mrzRow(w *tabwriter.Writer, s *mrzbench.Score, label string) {
	if s.Total == 0 {
		fmt.Fprintf(w, "%s\tunavailable\t\t\t\n", label)
		return
	}
	fmt.Fprintf(w, "%s\t%d/%d\t%.1f ms\t%.1f ms\t%.1f ms\n", label, s.Exact, s.Total,
		bench.Millis(bench.Mean(s.Times)), bench.Millis(bench.Percentile(s.Times, 50)), bench.Millis(bench.Percentile(s.Times, 100)))
}
