// Package facebench measures face matching for tambua bench face: the ROC
// over every pair of the johns photos, the time of detection and embedding
// per face, the model's load time and memory, and (Synth) card photos
// against selfies of the synthetic corpus, found as face_matching finds
// them.
package facebench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/tambua/tambua/checks/face"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/facerec"
)

// Report is what tambua bench face prints.
type Report struct {
	Johns struct {
		Images    int          `json:"images"`
		Pairs     int          `json:"pairs"`
		AtDefault face.Rates   `json:"at_default"`
		ROC       []face.Rates `json:"roc"`
	} `json:"johns"`
	ModelLoadMS  float64 `json:"model_load_ms"`
	RSSModelMB   float64 `json:"rss_after_load_delta_mb"`
	FaceMSMedian float64 `json:"detect_embed_ms_median"`
	FaceMSP95    float64 `json:"detect_embed_ms_p95"`
	// FaceCPUMSMedian is process CPU time per johns face: unlike wall time
	// it does not grow when other work shares the cores.
	FaceCPUMSMedian float64 `json:"detect_embed_cpu_ms_median"`
	Pool            int     `json:"pool"`
	GOMAXPROCS      int     `json:"gomaxprocs"`
	Similarity      string  `json:"similarity"`
	// Synth holds the card-photo versus selfie pairs (Options.Synth > 0).
	Synth *SynthReport `json:"synth,omitempty"`
}

// Options of Run.
type Options struct {
	// Johns is the folder of the johns photos (one folder per person).
	Johns string
	// Models is the folder of the dlib models ("": facerec's default).
	Models string
	// Synth synthetic card/selfie samples of Difficulty from Seed (0: none).
	Synth      int
	Difficulty string
	Seed       uint64
}

// Run measures the recogniser on the johns photos and, with o.Synth > 0,
// on synthetic samples. A johns folder without photos is a
// *bench.InputError.
func Run(ctx context.Context, o Options) (*Report, error) {
	dir := facerec.ModelsDir(o.Models)
	var rep Report
	rep.GOMAXPROCS = runtime.GOMAXPROCS(0)
	rep.Pool = facerec.DefaultPool()
	rss0 := bench.RSSMB()
	t0 := time.Now()
	rec, err := facerec.Load(dir, facerec.Options{Pool: 1})
	if err != nil {
		return nil, err
	}
	rep.ModelLoadMS = bench.MillisMicro(time.Since(t0))
	rep.RSSModelMB = bench.RSSMB() - rss0
	defer rec.Close()

	set, err := face.LoadJohns(o.Johns)
	if err != nil {
		return nil, bench.Inputf("johns: %v", err)
	}
	var times, cpu []float64
	for _, l := range set {
		img, err := l.Decode()
		if err != nil {
			return nil, err
		}
		t, c := time.Now(), bench.ProcessCPU()
		if _, err := rec.Detect(ctx, img); err != nil {
			return nil, err
		}
		times = append(times, bench.MillisMicro(time.Since(t)))
		cpu = append(cpu, bench.MillisMicro(bench.ProcessCPU()-c))
	}
	if len(times) == 0 {
		return nil, bench.Inputf("no images under %s", o.Johns)
	}
	rep.FaceMSMedian = bench.Percentile(times, 50)
	rep.FaceMSP95 = bench.Percentile(times, 95)
	rep.FaceCPUMSMedian = round1(bench.Percentile(cpu, 50))

	pairs, err := face.New(dir).AllPairs(ctx, set)
	if err != nil {
		return nil, err
	}
	rep.Johns.Images, rep.Johns.Pairs = len(set), len(pairs)
	rep.Johns.AtDefault = face.RatesAt(pairs, face.DefaultThreshold)
	for _, th := range face.ROCThresholds {
		rep.Johns.ROC = append(rep.Johns.ROC, face.RatesAt(pairs, th))
	}
	rep.Similarity = fmt.Sprintf("1/(1+exp(%g*(d-%.4f)))", face.Slope, face.Midpoint)
	if o.Synth > 0 {
		if rep.Synth, err = Synth(ctx, face.New(dir), o.Synth, o.Difficulty, o.Seed); err != nil {
			return nil, err
		}
	}
	return &rep, nil
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func round1(f float64) float64 { return math.Round(f*10) / 10 }
