package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/internal/bench/livenessbench"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func writeGradient(t *testing.T, path string) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 300, 400))
	for y := 0; y < 400; y++ {
		for x := 0; x < 300; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / 300), uint8(y * 255 / 400), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFaceLiveness(t *testing.T) {
	models := fixtures.Models(t)
	fixtures.Need(t, synth.DefaultFacesDir, "dlib johns photos")
	johns, _ := filepath.Glob(filepath.Join(synth.DefaultFacesDir, "John_Simm", "*.jpg"))
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank.jpg")
	writeGradient(t, blank)
	notImage := filepath.Join(dir, "x.jpg")
	badModel := filepath.Join(dir, "model.json")
	for p, b := range map[string]string{notImage: "hello", badModel: `{"name":"x"}`} {
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	env, out, errb := testEnv(models)
	if code := Run(context.Background(), env, []string{"face", "liveness", johns[0], blank}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), out)
	}
	var got [2]livenessLine
	for i := range got {
		dec := json.NewDecoder(strings.NewReader(lines[i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got[i]); err != nil {
			t.Fatal(err)
		}
	}
	// a real photo of a real person has a face and a confidence
	if l := got[0]; l.Image != johns[0] || l.Confidence == nil || *l.Confidence < 0 || *l.Confidence > 1 || l.Reason != "" ||
		l.Liveness != (*l.Confidence >= liveness.DefaultThreshold) {
		t.Errorf("johns line %+v", l)
	}
	if l := got[1]; l.Image != blank || l.Confidence != nil || l.Liveness || l.Reason != liveness.ReasonNoFace {
		t.Errorf("blank line %+v", l)
	}

	for _, args := range [][]string{
		{"face", "liveness"},
		{"face", "liveness", notImage},
		{"face", "liveness", filepath.Join(dir, "missing.jpg")},
		{"face", "liveness", "-threshold", "0.3", johns[0]},
		{"face", "liveness", "-model", badModel, johns[0]},
		{"liveness", "train"},
		{"liveness", "train", "-out", filepath.Join(dir, "m.json"), "-count", "3"},
		{"bench", "liveness", "-count", "1"},
	} {
		env, _, errb := testEnv(models)
		if code := Run(context.Background(), env, args); code != ExitBadInput {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitBadInput, errb)
		}
	}
}

// TestLivenessTrainAndBench runs training on a tiny corpus and the
// benchmark of the model it wrote: the wiring, not the accuracy
// (internal/bench/livenessbench tests the training and the measures).
func TestLivenessTrainAndBench(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("renders synthetic selfies: minutes under -race or -short")
	}
	models := fixtures.Models(t)
	fixtures.Need(t, synth.DefaultFacesDir, "dlib johns photos")
	dir := t.TempDir()
	modelPath := filepath.Join(dir, "model.json")
	env, out, errb := testEnv(models)
	if code := Run(context.Background(), env, []string{"liveness", "train", "-out", modelPath, "-count", "24", "-seed", "3"}); code != ExitOK {
		t.Fatalf("train: exit %d: %s", code, errb)
	}
	var summary struct {
		Model    string                `json:"model"`
		Training liveness.TrainingInfo `json:"training"`
	}
	if err := json.Unmarshal(out.Bytes(), &summary); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if summary.Model != livenessbench.ModelName+"/"+livenessbench.ModelVersion || summary.Training.Count != 24 || summary.Training.Seed != 3 {
		t.Errorf("summary %+v", summary)
	}
	data, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := liveness.ParseModel(data); err != nil {
		t.Fatal(err)
	}
	johns := johnsSubset(t, filepath.Join(dir, "johns"))
	env, out, errb = testEnv(models)
	if code := Run(context.Background(), env, []string{"bench", "liveness", "-model", modelPath, "-count", "30", "-johns", johns}); code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, errb)
	}
	var rep livenessbench.Report
	dec := json.NewDecoder(out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	gens, err := livenessbench.Generators(livenessbench.Options{Seed: livenessbench.DefaultSeed})
	if err != nil {
		t.Fatal(err)
	}
	held := livenessbench.Plan(gens, 30, func(it livenessbench.Item) bool { return it.HeldOut })
	h := rep.Synthetic.HeldOut
	if len(held) == 0 || h.Live+h.Screen+h.Print != len(held) || rep.Johns.Images != 4 || rep.SelfieMSMedian <= 0 || len(rep.Synthetic.ROC) != len(livenessbench.ROCThresholds) {
		t.Errorf("report %+v", rep)
	}
}

// johnsSubset links two photos each of two johns into dir, in the johns
// layout (one folder per person).
func johnsSubset(t *testing.T, dir string) string {
	t.Helper()
	for _, person := range []string{"John_Simm", "John_Salley"} {
		files, _ := filepath.Glob(filepath.Join(synth.DefaultFacesDir, person, "*.jpg"))
		if len(files) < 2 {
			t.Fatalf("johns %s: %d photos", person, len(files))
		}
		if err := os.MkdirAll(filepath.Join(dir, person), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files[:2] {
			if err := os.Symlink(f, filepath.Join(dir, person, filepath.Base(f))); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}
