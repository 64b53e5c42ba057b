package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"os"
	"runtime"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/internal/bench/livenessbench"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func init() {
	Register(&Command{
		Path:    "face liveness",
		Summary: "passive liveness of each selfie (JSON lines)",
		Run:     runFaceLiveness,
	})
	Register(&Command{
		Path:    "liveness train",
		Summary: "train the liveness classifier on the synthetic corpus and write model.json",
		Run:     runLivenessTrain,
	})
	Register(&Command{
		Path:    "bench liveness",
		Summary: "liveness: APCER per attack kind, BPCER (synthetic held-out and johns), time, memory",
		Run:     runBenchLiveness,
	})
}

type livenessLine struct {
	Image string `json:"image"`
	// Liveness is true when the confidence reaches the threshold.
	Liveness bool `json:"liveness"`
	// Confidence is null when no face was found.
	Confidence *float64 `json:"confidence"`
	Reason     string   `json:"reason,omitempty"`
}

func runFaceLiveness(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "face liveness")
	threshold := fs.Float64("threshold", liveness.DefaultThreshold, "confidence a selfie needs to count as live (0.50 to 0.95)")
	models := fs.String("models", "", "folder of the dlib models (default $TAMBUA_MODELS, then ./models)")
	modelFile := fs.String("model", "", "liveness model file (default: the one built in)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return Usagef("need at least one image")
	}
	if *threshold < 0.50 || *threshold > 0.95 {
		return Usagef("-threshold %v is outside [0.50, 0.95]", *threshold)
	}
	det, m, err := livenessDetector(env, *models, *modelFile)
	if err != nil {
		return err
	}
	p := liveness.Params{Threshold: *threshold, ReviewBand: liveness.DefaultReviewBand}
	enc := json.NewEncoder(env.Stdout)
	for _, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			return Usagef("%v", err)
		}
		img, err := facerec.Decode(data)
		if err != nil {
			return Usagef("%s: %v", path, err)
		}
		a, err := det.Assess(ctx, img, image.Rectangle{})
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		sec, out := liveness.Judge(m, a, p)
		line := livenessLine{Image: path, Liveness: sec.Liveness}
		if a.FaceFound {
			c := a.Confidence
			line.Confidence = &c
		} else if len(out.Reasons) > 0 {
			line.Reason = out.Reasons[0]
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// livenessDetector builds the detector over the built-in model or the
// model file given.
func livenessDetector(env *Env, models, modelFile string) (*liveness.Detector, *liveness.Model, error) {
	var opts []liveness.Option
	if modelFile != "" {
		data, err := os.ReadFile(modelFile)
		if err != nil {
			return nil, nil, Usagef("%v", err)
		}
		m, err := liveness.ParseModel(data)
		if err != nil {
			return nil, nil, Usagef("%s: %v", modelFile, err)
		}
		opts = append(opts, liveness.WithModel(m))
	}
	det := liveness.New(faceModels(env, models), opts...)
	m, err := det.Model()
	if err != nil {
		return nil, nil, err
	}
	return det, m, nil
}

// corpusFlags declares the flags of the synthetic corpus; the last result
// is the -models flag.
func corpusFlags(env *Env, path string, count int) (*flag.FlagSet, *livenessbench.Options, *string) {
	fs := NewFlags(env, path)
	o := &livenessbench.Options{}
	fs.Uint64Var(&o.Seed, "seed", livenessbench.DefaultSeed, "seed of the synthetic corpus")
	fs.IntVar(&o.Count, "count", count, "synthetic sample indices to scan (one in five is held out)")
	fs.IntVar(&o.Workers, "workers", runtime.GOMAXPROCS(0), "selfies rendered in parallel")
	fs.StringVar(&o.FacesDir, "faces", synth.DefaultFacesDir, "folder of face photos for the corpus")
	models := fs.String("models", "", "folder of the dlib models (default $TAMBUA_MODELS, then ./models)")
	return fs, o, models
}

func withProgress(env *Env, o *livenessbench.Options, what string) func() {
	var bar *progressbar.ProgressBar
	o.Progress = func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(env.Stderr),
				progressbar.OptionSetDescription(what), progressbar.OptionShowCount(),
				progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
	return func() {
		if bar != nil {
			_ = bar.Finish()
		}
	}
}

func runLivenessTrain(ctx context.Context, env *Env, args []string) error {
	fs, o, models := corpusFlags(env, "liveness train", livenessbench.DefaultCount)
	out := fs.String("out", "", "write the model here (checks/liveness/model.json to ship it)")
	l2 := fs.Float64("l2", livenessbench.DefaultL2, "ridge penalty on the standardised weights")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return Usagef("give -out FILE")
	}
	if o.Count < 24 || o.Count > 100_000 {
		return Usagef("-count %d is outside [24, 100000]", o.Count)
	}
	if *l2 <= 0 {
		return Usagef("-l2 must be positive")
	}
	o.ModelsDir = faceModels(env, *models)
	done := withProgress(env, o, "render")
	t0 := time.Now()
	m, err := livenessbench.Train(ctx, *o, *l2)
	done()
	if err != nil {
		return err
	}
	b, err := m.MarshalIndent()
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return err
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{
		"model":            m.Method(),
		"out":              *out,
		"training":         m.Training,
		"training_seconds": time.Since(t0).Seconds(),
		"gomaxprocs":       runtime.GOMAXPROCS(0),
	})
}

func runBenchLiveness(ctx context.Context, env *Env, args []string) error {
	fs, o, models := corpusFlags(env, "bench liveness", livenessbench.DefaultBenchCount)
	johns := fs.String("johns", synth.DefaultFacesDir, "folder of real face photos (one folder per person), all live")
	modelFile := fs.String("model", "", "liveness model file (default: the one built in)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if o.Count < 5 || o.Count > 100_000 {
		return Usagef("-count %d is outside [5, 100000]", o.Count)
	}
	_, m, err := livenessDetector(env, *models, *modelFile)
	if err != nil {
		return err
	}
	o.ModelsDir = faceModels(env, *models)
	done := withProgress(env, o, "render")
	rep, err := livenessbench.Bench(ctx, m, livenessbench.BenchOptions{Options: *o, JohnsDir: *johns})
	done()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
