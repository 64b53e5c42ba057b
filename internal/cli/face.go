package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tambua/tambua/checks/face"
	"github.com/tambua/tambua/internal/bench/facebench"
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
	rep, err := facebench.Run(ctx, facebench.Options{Johns: *johns, Models: faceModels(env, *models),
		Synth: *synthN, Difficulty: *synthLevel, Seed: *synthSeed})
	if err != nil {
		return benchErr(err)
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
