package livenessbench

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/internal/testkit/synth"
)

// DefaultBenchCount is the number of synthetic indices the benchmark
// scans; its held-out fifth holds about 48 prints, 48 screen replays and
// 96 live selfies.
const DefaultBenchCount = 2880

// ROCThresholds are the rows of the benchmark's threshold table.
var ROCThresholds = []float64{0.05, 0.10, 0.20, 0.30, 0.40, 0.50, 0.60, 0.70, 0.80, 0.90, 0.95}

// Report is what tambua bench liveness prints.
type Report struct {
	Model     string  `json:"model"`
	Threshold float64 `json:"threshold"`
	Synthetic struct {
		Seed    uint64          `json:"seed,string"`
		Count   int             `json:"indices_scanned"`
		HeldOut liveness.Counts `json:"held_out"`
		// Frame is the selfie as rendered; CloseUp the same selfie cropped
		// to the face (no sheet or device edge in view).
		Frame   liveness.Rates `json:"frame"`
		CloseUp liveness.Rates `json:"close_up"`
		ROC     []ROCRow       `json:"roc_frame"`
		ROCCU   []ROCRow       `json:"roc_close_up"`
	} `json:"synthetic_held_out"`
	Johns struct {
		Dir      string  `json:"dir"`
		Images   int     `json:"images"`
		NoFace   int     `json:"no_face"`
		Rejected int     `json:"rejected"`
		BPCER    float64 `json:"bpcer"`
		// Lowest is the lowest confidence of a johns photo.
		Lowest float64 `json:"lowest_confidence"`
	} `json:"johns"`
	// Per selfie, one at a time: decode, face detection, features and
	// classifier (the check's work), and the features and classifier
	// alone.
	SelfieMSMedian   float64 `json:"selfie_ms_median"`
	SelfieMSP95      float64 `json:"selfie_ms_p95"`
	FeaturesMSMedian float64 `json:"features_ms_median"`
	AllocMBPerSelfie float64 `json:"alloc_mb_per_selfie"`
	RSSMB            float64 `json:"rss_mb"`
	GOMAXPROCS       int     `json:"gomaxprocs"`
	RenderSeconds    float64 `json:"render_seconds"`
}

// ROCRow is the error rates at one threshold.
type ROCRow struct {
	Threshold    float64 `json:"threshold"`
	APCERPrint   float64 `json:"apcer_print"`
	APCERScreen  float64 `json:"apcer_screen_replay"`
	BPCER        float64 `json:"bpcer"`
	BPCERJohns   float64 `json:"bpcer_johns"`
	AttacksTotal int     `json:"attacks"`
}

// BenchOptions add the johns folder to Options.
type BenchOptions struct {
	Options
	JohnsDir string
}

// Bench measures m on the held-out split of the first o.Count indices and
// on the johns photos.
func Bench(ctx context.Context, m *liveness.Model, o BenchOptions) (*Report, error) {
	rep := &Report{Model: m.Method(), Threshold: liveness.DefaultThreshold, GOMAXPROCS: runtime.GOMAXPROCS(0)}
	rep.Synthetic.Seed, rep.Synthetic.Count = o.Seed, o.Count
	gens, err := Generators(o.Options)
	if err != nil {
		return nil, err
	}
	items := Plan(gens, o.Count, func(it Item) bool { return it.HeldOut })
	t0 := time.Now()
	selfies, err := Render(ctx, gens, items, o.Options)
	if err != nil {
		return nil, err
	}
	rep.RenderSeconds = time.Since(t0).Seconds()
	det := liveness.New(o.ModelsDir, liveness.WithModel(m))

	// one at a time, so that the times are those of a single request
	var times, ftimes []float64
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	feats := make([]Features, len(selfies))
	for i, s := range selfies {
		t := time.Now()
		img, err := facerec.Decode(s.JPEG)
		if err != nil {
			return nil, err
		}
		a, err := det.Assess(ctx, img, image.Rectangle{})
		if err != nil {
			return nil, err
		}
		times = append(times, bench.MillisMicro(time.Since(t)))
		f := Features{Item: s.Item, FaceFound: a.FaceFound, Full: a.Features}
		if a.FaceFound {
			t := time.Now()
			if _, err := liveness.Extract(img, a.Face); err != nil {
				return nil, err
			}
			m.Confidence(a.Features)
			ftimes = append(ftimes, bench.MillisMicro(time.Since(t)))
			c, cf := CloseUp(img, a.Face, s.Index)
			if f.Close, err = liveness.Extract(c, cf); err != nil {
				return nil, err
			}
		}
		feats[i] = f
		count(&rep.Synthetic.HeldOut, f)
	}
	runtime.ReadMemStats(&ms1)
	if n := len(selfies); n > 0 {
		// decode, detect and two extractions per selfie: an upper bound on
		// the check's own allocation
		rep.AllocMBPerSelfie = float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(n) / (1 << 20)
	}
	rep.SelfieMSMedian, rep.SelfieMSP95 = bench.Percentile(times, 50), bench.Percentile(times, 95)
	rep.FeaturesMSMedian = bench.Percentile(ftimes, 50)

	frame, closeUp := Score(m, feats, ViewFrame), Score(m, feats, ViewCloseUp)
	rep.Synthetic.Frame = liveness.RatesAt(frame, rep.Threshold)
	rep.Synthetic.CloseUp = liveness.RatesAt(closeUp, rep.Threshold)

	johns, err := scoreDir(ctx, det, o.JohnsDir)
	if err != nil {
		return nil, err
	}
	rep.Johns.Dir, rep.Johns.Images, rep.Johns.Lowest = o.JohnsDir, len(johns), 1
	for _, s := range johns {
		if !s.Face {
			rep.Johns.NoFace++
		} else if s.Confidence < rep.Johns.Lowest {
			rep.Johns.Lowest = s.Confidence
		}
	}
	jr := liveness.RatesAt(johns, rep.Threshold)
	rep.Johns.Rejected, rep.Johns.BPCER = jr.Rejected, jr.BPCER
	for _, th := range ROCThresholds {
		rep.Synthetic.ROC = append(rep.Synthetic.ROC, rocRow(frame, johns, th))
		rep.Synthetic.ROCCU = append(rep.Synthetic.ROCCU, rocRow(closeUp, johns, th))
	}
	rep.RSSMB = bench.RSSMB()
	return rep, nil
}

func rocRow(scored, johns []liveness.Scored, th float64) ROCRow {
	r := liveness.RatesAt(scored, th)
	j := liveness.RatesAt(johns, th)
	return ROCRow{Threshold: th, APCERPrint: r.APCER[synth.AttackPrint], APCERScreen: r.APCER[synth.AttackScreen],
		BPCER: r.BPCER, BPCERJohns: j.BPCER, AttacksTotal: r.Attacks[synth.AttackPrint] + r.Attacks[synth.AttackScreen]}
}

// scoreDir scores every JPEG one folder down from dir (the johns layout:
// one folder per person) as a live selfie.
func scoreDir(ctx context.Context, det *liveness.Detector, dir string) ([]liveness.Scored, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.jpg"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("livenessbench: no photos under %s", dir)
	}
	sort.Strings(files)
	out := make([]liveness.Scored, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		img, err := facerec.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		a, err := det.Assess(ctx, img, image.Rectangle{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, liveness.Scored{Kind: liveness.KindLive, Face: a.FaceFound, Confidence: a.Confidence})
	}
	return out, nil
}
