package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	mrzcheck "github.com/tambua/tambua/checks/mrz"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/degrade"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

func init() {
	Register(&Command{
		Path:    "bench mrz",
		Summary: "MRZ reader accuracy and speed on the specimen images and line crops, against tesseract's mrz model",
		Run:     runBenchMRZ,
	})
}

type mrzCase struct {
	name  string
	path  string
	lines []string
}

type mrzScore struct {
	exact, total int
	times        []time.Duration
	misses       []string
}

func (s *mrzScore) add(name string, got, want []string, d time.Duration) {
	s.total++
	s.times = append(s.times, d)
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		s.exact++
		return
	}
	s.misses = append(s.misses, name)
}

func (s *mrzScore) row(w *tabwriter.Writer, label string) {
	if s.total == 0 {
		fmt.Fprintf(w, "%s\tunavailable\t\t\t\n", label)
		return
	}
	ts := append([]time.Duration(nil), s.times...)
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	var sum time.Duration
	for _, t := range ts {
		sum += t
	}
	fmt.Fprintf(w, "%s\t%d/%d\t%.1f ms\t%.1f ms\t%.1f ms\n", label, s.exact, s.total,
		ms(sum/time.Duration(len(ts))), ms(ts[len(ts)/2]), ms(ts[len(ts)-1]))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

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
	specimens, err := mrzSpecimens(*dir)
	if err != nil {
		return Usagef("%v", err)
	}
	crops, err := mrzCrops(filepath.Join(*dir, "ids", "mrz_lines"))
	if err != nil {
		return Usagef("%v", err)
	}
	// One core, as the goal is stated.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))

	r := mrz.NewReader(mrz.WithFont(*font))
	t0 := time.Now()
	if err := r.Prepare(); err != nil {
		return err
	}
	prep := time.Since(t0)

	var ours, oursRaw, ourCrops, base, baseCrops mrzScore
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for _, c := range specimens {
		img, err := decodeImage(c.path)
		if err != nil {
			return err
		}
		start := time.Now()
		got, raw, err := readMRZLines(ctx, r, img)
		if err != nil {
			return err
		}
		d := time.Since(start)
		ours.add(c.name, got, c.lines, d)
		oursRaw.add(c.name, raw, c.lines, d)
	}
	runtime.ReadMemStats(&ms1)
	// Stand-ins for synthetic captures until internal/testkit/synth lands: the
	// specimens tilted, rescaled and recompressed.
	var degraded mrzScore
	for _, c := range specimens {
		clean, err := decodeImage(c.path)
		if err != nil {
			return err
		}
		for _, k := range degrade.Standard {
			img, err := k.Apply(clean)
			if err != nil {
				return err
			}
			start := time.Now()
			got, _, err := readMRZLines(ctx, r, img)
			if err != nil {
				return err
			}
			degraded.add(c.name+" "+k.Name, got, c.lines, time.Since(start))
		}
	}
	synthScores, err := benchSynthMRZ(ctx, r, *synthN)
	if err != nil {
		return err
	}
	for _, c := range crops {
		img, err := decodeImage(c.path)
		if err != nil {
			return err
		}
		start := time.Now()
		line, err := r.ReadLine(ctx, img)
		if err != nil && !errors.Is(err, mrz.ErrNotFound) {
			return err
		}
		ourCrops.add(c.name, []string{line}, c.lines, time.Since(start))
	}
	if *tess != "" {
		if bin, err := exec.LookPath(*tess); err == nil {
			tessdata := filepath.Join(*dir, "tessdata")
			for _, c := range specimens {
				start := time.Now()
				out, err := runTesseract(ctx, bin, tessdata, c.path, "3")
				if err != nil {
					return err
				}
				base.add(c.name, mrzLinesOf(out, len(c.lines)), c.lines, time.Since(start))
			}
			for _, c := range crops {
				start := time.Now()
				out, err := runTesseract(ctx, bin, tessdata, c.path, "7")
				if err != nil {
					return err
				}
				baseCrops.add(c.name, mrzLinesOf(out, 1), c.lines, time.Since(start))
			}
		}
	}

	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "MRZ reading, exact when every line matches (GOMAXPROCS=1, templates rendered in %.0f ms)\n", ms(prep))
	fmt.Fprintln(w, "reader\texact\tmean\tmedian\tmax")
	ours.row(w, "tambua, specimen images (with repair)")
	oursRaw.row(w, "tambua, specimen images (as read)")
	ourCrops.row(w, "tambua, line crops")
	base.row(w, "tesseract mrz, specimen images")
	baseCrops.row(w, "tesseract mrz, line crops")
	degraded.row(w, "tambua, specimens tilted/rescaled/JPEG")
	for _, d := range synthScores {
		d.score.row(w, "tambua, synthetic captures (whole photo), "+d.difficulty)
		d.check.row(w, "mrz_parsing on the rectified card, "+d.difficulty)
	}
	w.Flush()
	fmt.Fprintf(env.Stdout, "memory: %.1f MB allocated per specimen image, %.1f MB heap in use after the run\n",
		float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(len(specimens))/(1<<20), float64(ms1.HeapInuse)/(1<<20))
	if *verbose {
		fmt.Fprintf(env.Stdout, "tambua misses: %v\ntambua crop misses: %v\ntambua degraded misses: %v\ntesseract misses: %v\ntesseract crop misses: %v\n",
			ours.misses, ourCrops.misses, degraded.misses, base.misses, baseCrops.misses)
		for _, d := range synthScores {
			fmt.Fprintf(env.Stdout, "tambua synthetic %s misses: %v\nmrz_parsing on rectified %s misses: %v\n",
				d.difficulty, d.score.misses, d.difficulty, d.check.misses)
		}
	}
	return nil
}

// mrzSpecimens lists the vectors that name an image.
func mrzSpecimens(dir string) ([]mrzCase, error) {
	data, err := os.ReadFile(filepath.Join(dir, "mrz_vectors.json"))
	if err != nil {
		return nil, err
	}
	var f struct {
		Vectors []struct {
			ID    string   `json:"id"`
			Lines []string `json:"lines"`
			Image *string  `json:"image"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("mrz_vectors.json: %w", err)
	}
	var out []mrzCase
	for _, v := range f.Vectors {
		if v.Image != nil {
			out = append(out, mrzCase{v.ID, filepath.Join(dir, *v.Image), v.Lines})
		}
	}
	return out, nil
}

// mrzCrops lists the line crops with their ground truth.
func mrzCrops(dir string) ([]mrzCase, error) {
	gts, err := filepath.Glob(filepath.Join(dir, "*.gt.txt"))
	if err != nil || len(gts) == 0 {
		return nil, fmt.Errorf("no line crops in %s", dir)
	}
	var out []mrzCase
	for _, gt := range gts {
		b, err := os.ReadFile(gt)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(gt, ".gt.txt")
		out = append(out, mrzCase{filepath.Base(base), base + ".tif", []string{strings.TrimSpace(string(b))}})
	}
	return out, nil
}

func runTesseract(ctx context.Context, bin, tessdata, path, psm string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, path, "stdout", "--tessdata-dir", tessdata, "-l", "mrz", "--psm", psm)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tesseract %s: %v: %s", path, err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// mrzLinesOf picks the last n MRZ-looking lines of OCR output.
func mrzLinesOf(text string, n int) []string {
	var cands []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.ToUpper(strings.Join(strings.Fields(l), ""))
		if len(l) >= 25 && strings.Trim(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<") == "" {
			cands = append(cands, l)
		}
	}
	if len(cands) < n {
		return cands
	}
	return cands[len(cands)-n:]
}

type synthMRZScore struct {
	difficulty string
	score      *mrzScore
	// check scores the mrz_parsing check on the card the capture pipeline
	// rectified, as a verification reads it.
	check *mrzScore
}

// benchSynthMRZ reads the MRZ of n synthetic captures per difficulty, over
// the definitions that print one, from the side that carries it.
func benchSynthMRZ(ctx context.Context, r *mrz.Reader, n int) ([]synthMRZScore, error) {
	if n <= 0 {
		return nil, nil
	}
	var defs []*idv.DocumentDefinition
	for _, d := range docdefs.Default().All() {
		if d.MRZ != nil {
			defs = append(defs, d)
		}
	}
	var out []synthMRZScore
	for _, diff := range []synth.Difficulty{synth.Easy, synth.Medium, synth.Hard} {
		gen, err := synth.New(synth.Options{Definitions: defs, Seed: 4242, Difficulty: diff, ImpostorRate: -1})
		if err != nil {
			return nil, err
		}
		sc, cc := &mrzScore{}, &mrzScore{}
		ck := mrzcheck.NewCheck(r)
		for i := 0; i < n; i++ {
			smp, err := gen.Sample(ctx, i)
			if err != nil {
				return nil, err
			}
			d, _ := docdefs.Default().Definition(smp.Truth.Config)
			data := smp.Back
			if d.MRZ.Zone.Side == "front" {
				data = smp.Front
			}
			img, err := vision.Decode(data) // honours the EXIF orientation phones write
			if err != nil {
				return nil, err
			}
			start := time.Now()
			got, _, err := readMRZLines(ctx, r, img)
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("%s#%d", smp.Truth.Config, i)
			sc.add(name, got, smp.Truth.MRZLines, time.Since(start))

			side, slot, derived := "back", idv.SlotBack, idv.ImageBackRectified
			if d.MRZ.Zone.Side == "front" {
				side, slot, derived = "front", idv.SlotFront, idv.ImageFrontRectified
			}
			cs := idv.NewCase(map[string]idv.Image{slot: {Data: data}})
			cs.Definition = d
			start = time.Now()
			if card, err := vision.Rectify(img, d, side); err == nil {
				cs.SetDerived(derived, card.Image)
			}
			got = nil
			if _, err := ck.Run(ctx, cs); err != nil {
				return nil, err
			}
			if m := cs.MRZ(); m != nil {
				got = m.Lines
			}
			cc.add(name, got, smp.Truth.MRZLines, time.Since(start))
		}
		out = append(out, synthMRZScore{difficulty: string(diff), score: sc, check: cc})
	}
	return out, nil
}

// readMRZLines reads the MRZ of img: the lines after OCR repair when they
// parse (else as read) and the lines as read; both nil when no MRZ is found.
func readMRZLines(ctx context.Context, r *mrz.Reader, img image.Image) (repaired, raw []string, err error) {
	rd, err := r.Read(ctx, img)
	if errors.Is(err, mrz.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	repaired = rd.Lines
	if m, perr := mrz.Parse(rd.Lines, mrz.Options{Repair: true}); perr == nil {
		repaired = m.Lines
	}
	return repaired, rd.Lines, nil
}
