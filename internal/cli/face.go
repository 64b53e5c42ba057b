package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tambua/tambua/checks/face"
	"github.com/tambua/tambua/internal/facerec"
)

func init() {
	Register(&Command{
		Path:    "face compare",
		Summary: "compare the face of image A with each further image (JSON lines)",
		Run:     runFaceCompare,
	})
	Register(&Command{
		Path:    "bench face",
		Summary: "face matching: johns ROC, time per face, model load, memory",
		Run:     runBenchFace,
	})
}

type compareLine struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	Distance   *float64 `json:"distance"`
	Similarity float64  `json:"similarity"`
	Match      bool     `json:"match"`
	AFaceFound bool     `json:"a_face_found"`
	BFaceFound bool     `json:"b_face_found"`
}

func runFaceCompare(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "face compare")
	threshold := fs.Float64("threshold", face.DefaultThreshold, "similarity a pair needs to match (0.60 to 0.95)")
	models := fs.String("models", "", "folder of the dlib models (default $TAMBUA_MODELS, then ./models)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	paths := fs.Args()
	if len(paths) < 2 {
		return Usagef("need at least two images: A B [C ...]")
	}
	if *threshold < 0.60 || *threshold > 0.95 {
		return Usagef("-threshold %v is outside [0.60, 0.95]", *threshold)
	}
	m := face.New(faceModels(env, *models))
	found := make([]face.Found, len(paths))
	for i, p := range paths {
		f, err := dominantFace(ctx, m, p)
		if err != nil {
			return err
		}
		found[i] = f
	}
	enc := json.NewEncoder(env.Stdout)
	for i := 1; i < len(paths); i++ {
		sec, _ := face.Judge(found[0], found[i], face.Params{Threshold: *threshold})
		line := compareLine{
			A: paths[0], B: paths[i],
			Distance: sec.Distance, Similarity: sec.Similarity,
			Match:      sec.Decision == face.DecisionMatch,
			AFaceFound: found[0].Face != nil, BFaceFound: found[i].Face != nil,
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

func faceModels(env *Env, flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return env.Getenv("TAMBUA_MODELS")
}

// dominantFace reads and decodes one image file; a missing or undecodable
// file is the caller's input error.
func dominantFace(ctx context.Context, m *face.Matcher, path string) (face.Found, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return face.Found{}, Usagef("%v", err)
	}
	img, err := facerec.Decode(data)
	if err != nil {
		return face.Found{}, Usagef("%s: %v", path, err)
	}
	f, err := m.Dominant(ctx, img)
	if err != nil {
		return face.Found{}, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

type benchFaceReport struct {
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
	// Synth holds the card-photo versus selfie pairs (-synth N > 0).
	Synth *synthFaceReport `json:"synth,omitempty"`
}

func runBenchFace(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench face")
	johns := fs.String("johns", face.JohnsDir, "folder of the johns photos (one folder per person)")
	models := fs.String("models", "", "folder of the dlib models")
	synthN := fs.Int("synth", 60, "synthetic card/selfie samples to score as well (0: johns only)")
	synthLevel := fs.String("difficulty", "medium", "capture difficulty of the synthetic samples")
	synthSeed := fs.Uint64("seed", 1, "seed of the synthetic samples")
	if err := Parse(fs, args); err != nil {
		return err
	}
	dir := facerec.ModelsDir(faceModels(env, *models))
	var rep benchFaceReport
	rep.GOMAXPROCS = runtime.GOMAXPROCS(0)
	rep.Pool = facerec.DefaultPool()
	rss0 := rssMB()
	t0 := time.Now()
	rec, err := facerec.Load(dir, facerec.Options{Pool: 1})
	if err != nil {
		return err
	}
	rep.ModelLoadMS = float64(time.Since(t0).Microseconds()) / 1000
	rep.RSSModelMB = rssMB() - rss0
	defer rec.Close()

	set, err := face.LoadJohns(*johns)
	if err != nil {
		return Usagef("johns: %v", err)
	}
	var times, cpu []float64
	for _, l := range set {
		data, err := os.ReadFile(l.Path)
		if err != nil {
			return err
		}
		img, err := facerec.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", l.Path, err)
		}
		t, c := time.Now(), processCPU()
		if _, err := rec.Detect(ctx, img); err != nil {
			return err
		}
		times = append(times, float64(time.Since(t).Microseconds())/1000)
		cpu = append(cpu, float64((processCPU()-c).Microseconds())/1000)
	}
	if len(times) == 0 {
		return Usagef("no images under %s", *johns)
	}
	sort.Float64s(times)
	rep.FaceMSMedian = times[len(times)/2]
	rep.FaceMSP95 = times[len(times)*95/100]
	rep.FaceCPUMSMedian = round1(median(cpu))

	pairs, err := face.New(dir).AllPairs(ctx, set)
	if err != nil {
		return err
	}
	rep.Johns.Images, rep.Johns.Pairs = len(set), len(pairs)
	rep.Johns.AtDefault = face.RatesAt(pairs, face.DefaultThreshold)
	for _, th := range face.ROCThresholds {
		rep.Johns.ROC = append(rep.Johns.ROC, face.RatesAt(pairs, th))
	}
	rep.Similarity = fmt.Sprintf("1/(1+exp(%g*(d-%.4f)))", face.Slope, face.Midpoint)
	if *synthN > 0 {
		if rep.Synth, err = benchSynthFaces(ctx, face.New(dir), *synthN, *synthLevel, *synthSeed); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// rssMB reads the resident set size of this process (Linux; 0 elsewhere).
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, err := strconv.ParseFloat(f[0], 64)
				if err == nil {
					return kb / 1024
				}
			}
		}
	}
	return 0
}
