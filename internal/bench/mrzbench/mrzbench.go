// Package mrzbench measures the MRZ reader for tambua bench mrz: exact
// reads of the specimen images and line crops of the shared test data, of
// the specimens tilted, rescaled and recompressed, and of synthetic
// captures (with the mrz_parsing check on the rectified card), against
// tesseract's mrz model as a baseline, on one core.
package mrzbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	mrzcheck "github.com/tambua/tambua/checks/mrz"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/degrade"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

// Score counts exact reads and keeps the time of each.
type Score struct {
	Exact, Total int
	Times        []time.Duration
	Misses       []string
}

// Add counts one read: exact when every line is the one wanted.
func (s *Score) Add(name string, got, want []string, d time.Duration) {
	s.Total++
	s.Times = append(s.Times, d)
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		s.Exact++
		return
	}
	s.Misses = append(s.Misses, name)
}

// SynthScore is the score of one capture difficulty.
type SynthScore struct {
	Difficulty string
	// Score reads the whole photo; Check scores the mrz_parsing check on
	// the card the capture pipeline rectified, as a verification reads it.
	Score, Check *Score
}

// Options of Run.
type Options struct {
	// Dir is the shared test data folder (mrz_vectors.json, the images,
	// ids/mrz_lines and tessdata).
	Dir  string
	Font string
	// Tesseract is the binary of the baseline; empty or not found: no
	// baseline.
	Tesseract string
	// Synth captures per difficulty (0: none).
	Synth int
}

// Report is what one run measured.
type Report struct {
	// Prepare is the time the reader took to render its templates.
	Prepare time.Duration
	// Ours reads the specimen images with OCR repair, OursRaw as read;
	// OurCrops the line crops; Base and BaseCrops are tesseract's.
	Ours, OursRaw, OurCrops, Base, BaseCrops Score
	// Degraded reads the specimens tilted, rescaled and recompressed.
	Degraded Score
	Synth    []SynthScore
	// Specimens is how many specimen images were read, AllocBytes what
	// reading them allocated, HeapInuse the heap after.
	Specimens  int
	AllocBytes uint64
	HeapInuse  uint64
}

// Run measures the reader with GOMAXPROCS at 1, as the goal is stated,
// and restores it after. Missing test data is a *bench.InputError.
func Run(ctx context.Context, o Options) (*Report, error) {
	specimens, err := bench.MRZSpecimens(o.Dir)
	if err != nil {
		return nil, &bench.InputError{Err: err}
	}
	crops, err := Crops(filepath.Join(o.Dir, "ids", "mrz_lines"))
	if err != nil {
		return nil, &bench.InputError{Err: err}
	}
	// One core, as the goal is stated.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))

	r := mrz.NewReader(mrz.WithFont(o.Font))
	t0 := time.Now()
	if err := r.Prepare(); err != nil {
		return nil, err
	}
	rep := &Report{Prepare: time.Since(t0), Specimens: len(specimens)}

	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for _, c := range specimens {
		img, err := bench.DecodeFile(c.Path)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		got, raw, err := ReadLines(ctx, r, img)
		if err != nil {
			return nil, err
		}
		d := time.Since(start)
		rep.Ours.Add(c.Name, got, c.Lines, d)
		rep.OursRaw.Add(c.Name, raw, c.Lines, d)
	}
	runtime.ReadMemStats(&ms1)
	rep.AllocBytes, rep.HeapInuse = ms1.TotalAlloc-ms0.TotalAlloc, ms1.HeapInuse
	// The specimens tilted, rescaled and recompressed.
	for _, c := range specimens {
		clean, err := bench.DecodeFile(c.Path)
		if err != nil {
			return nil, err
		}
		for _, k := range degrade.Standard {
			img, err := k.Apply(clean)
			if err != nil {
				return nil, err
			}
			start := time.Now()
			got, _, err := ReadLines(ctx, r, img)
			if err != nil {
				return nil, err
			}
			rep.Degraded.Add(c.Name+" "+k.Name, got, c.Lines, time.Since(start))
		}
	}
	if rep.Synth, err = synthScores(ctx, r, o.Synth); err != nil {
		return nil, err
	}
	for _, c := range crops {
		img, err := bench.DecodeFile(c.Path)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		line, err := r.ReadLine(ctx, img)
		if err != nil && !errors.Is(err, mrz.ErrNotFound) {
			return nil, err
		}
		rep.OurCrops.Add(c.Name, []string{line}, c.Lines, time.Since(start))
	}
	if o.Tesseract != "" {
		if bin, err := exec.LookPath(o.Tesseract); err == nil {
			tessdata := filepath.Join(o.Dir, "tessdata")
			for _, c := range specimens {
				start := time.Now()
				out, err := runTesseract(ctx, bin, tessdata, c.Path, "3")
				if err != nil {
					return nil, err
				}
				rep.Base.Add(c.Name, LinesOf(out, len(c.Lines)), c.Lines, time.Since(start))
			}
			for _, c := range crops {
				start := time.Now()
				out, err := runTesseract(ctx, bin, tessdata, c.Path, "7")
				if err != nil {
					return nil, err
				}
				rep.BaseCrops.Add(c.Name, LinesOf(out, 1), c.Lines, time.Since(start))
			}
		}
	}
	return rep, nil
}

// Crops lists the line crops of dir with their ground truth (NAME.tif
// beside NAME.gt.txt).
func Crops(dir string) ([]bench.MRZCase, error) {
	gts, err := filepath.Glob(filepath.Join(dir, "*.gt.txt"))
	if err != nil || len(gts) == 0 {
		return nil, fmt.Errorf("no line crops in %s", dir)
	}
	var out []bench.MRZCase
	for _, gt := range gts {
		b, err := os.ReadFile(gt)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(gt, ".gt.txt")
		out = append(out, bench.MRZCase{Name: filepath.Base(base), Path: base + ".tif", Lines: []string{strings.TrimSpace(string(b))}})
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

// LinesOf picks the last n MRZ-looking lines of OCR output.
func LinesOf(text string, n int) []string {
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

// synthScores reads the MRZ of n synthetic captures per difficulty, over
// the definitions that print one, from the side that carries it.
func synthScores(ctx context.Context, r *mrz.Reader, n int) ([]SynthScore, error) {
	if n <= 0 {
		return nil, nil
	}
	var defs []*idv.DocumentDefinition
	for _, d := range docdefs.Default().Drawn() {
		if d.MRZ != nil {
			defs = append(defs, d)
		}
	}
	var out []SynthScore
	for _, diff := range []synth.Difficulty{synth.Easy, synth.Medium, synth.Hard} {
		gen, err := synth.New(synth.Options{Definitions: defs, Seed: 4242, Difficulty: diff, ImpostorRate: -1})
		if err != nil {
			return nil, err
		}
		sc, cc := &Score{}, &Score{}
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
			got, _, err := ReadLines(ctx, r, img)
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("%s#%d", smp.Truth.Config, i)
			sc.Add(name, got, smp.Truth.MRZLines, time.Since(start))

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
			cc.Add(name, got, smp.Truth.MRZLines, time.Since(start))
		}
		out = append(out, SynthScore{Difficulty: string(diff), Score: sc, Check: cc})
	}
	return out, nil
}

// ReadLines reads the MRZ of img: the lines after OCR repair when they
// parse (else as read) and the lines as read; both nil when no MRZ is found.
func ReadLines(ctx context.Context, r *mrz.Reader, img image.Image) (repaired, raw []string, err error) {
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
