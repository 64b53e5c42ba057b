package facebench

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tambua/tambua/checks/face"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// at is a descriptor x away from the origin along one axis, so that the
// distance between two is the difference of their x.
func at(x float32) *facerec.Descriptor {
	var d facerec.Descriptor
	d[0] = x
	return &d
}

func TestScorePairs(t *testing.T) {
	ids := []side{
		{person: "A", config: "c0", from: "id_photo", desc: at(0)},
		{person: "B", config: "c1", from: "capture", desc: at(5)},
		{person: "A", config: "c2", from: "id_photo", desc: at(0.1)},
	}
	selfies := []side{
		{person: "A", desc: at(0.3)},
		{person: "B"}, // no face found
		{person: "C", desc: at(0.9)},
	}
	var rep SynthReport
	scorePairs(&rep, ids, selfies)
	// Genuine pairs: card 0 and card 2 against selfie 0 (0.3, 0.2); card 1
	// against selfie 1 has no face. Impostors: 0.9, 4.7, 4.1, 0.8 and the
	// pairs with the missing face.
	if rep.GenuineMedian != 0.3 || rep.GenuineMax != 0.3 || rep.ImpostorMin != 0.8 {
		t.Errorf("genuine median %v max %v, impostor min %v; want 0.3, 0.3, 0.8", rep.GenuineMedian, rep.GenuineMax, rep.ImpostorMin)
	}
	if a := rep.AtDefault; a.Genuine != 3 || a.Impostor != 6 || a.FalseNonMatch != 1 || a.FalseMatches != 0 {
		t.Errorf("at default: %+v; want 3 genuine (1 missed for the missing face), 6 impostor, none matched", a)
	}
	if s := rep.SameSampleRates; s.Genuine != 2 || s.Impostor != 1 || s.FalseNonMatch != 1 {
		t.Errorf("own pairs: %+v; want 2 genuine (1 missed), 1 impostor", s)
	}
	if want := []MissedPair{{Index: 1, Config: "c1", Distance: -1, IDFrom: "capture"}}; !reflect.DeepEqual(rep.Missed, want) {
		t.Errorf("missed %+v, want %+v", rep.Missed, want)
	}
	if len(rep.ROC) != len(face.ROCThresholds) || rep.ROC[0].Threshold != face.ROCThresholds[0] {
		t.Errorf("ROC has %d rows, want one per threshold", len(rep.ROC))
	}
	// A genuine own pair far apart is missed with its distance.
	rep = SynthReport{}
	scorePairs(&rep, ids[:1], []side{{person: "A", desc: at(1.5)}})
	if want := []MissedPair{{Index: 0, Config: "c0", Distance: 1.5, IDFrom: "id_photo"}}; !reflect.DeepEqual(rep.Missed, want) {
		t.Errorf("missed %+v, want %+v", rep.Missed, want)
	}
}

// TestRun measures the real recogniser on two photos each of two johns
// people and on two synthetic samples.
func TestRun(t *testing.T) {
	models := fixtures.Models(t)
	src := fixtures.Need(t, face.JohnsDir, "dlib johns photos (libdlib-dev)")
	johns := t.TempDir()
	for _, person := range []string{"John_Salley", "John_Savage"} {
		files, err := filepath.Glob(filepath.Join(src, person, "*.jpg"))
		if err != nil || len(files) < 2 {
			t.Fatalf("%s: %d photos, %v", person, len(files), err)
		}
		if err := os.Mkdir(filepath.Join(johns, person), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files[:2] {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(johns, person, filepath.Base(f)), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	rep, err := Run(t.Context(), Options{Johns: johns, Models: models, Synth: 2, Difficulty: "easy", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Johns.Images != 4 || rep.Johns.Pairs != 6 || rep.Johns.AtDefault.Genuine != 2 || rep.Johns.AtDefault.Impostor != 4 {
		t.Errorf("johns: %d images, %d pairs, %+v; want 4 images, 6 pairs (2 genuine, 4 impostor)",
			rep.Johns.Images, rep.Johns.Pairs, rep.Johns.AtDefault)
	}
	if len(rep.Johns.ROC) != len(face.ROCThresholds) {
		t.Errorf("ROC has %d rows, want %d", len(rep.Johns.ROC), len(face.ROCThresholds))
	}
	if rep.FaceMSMedian <= 0 || rep.FaceMSP95 < rep.FaceMSMedian || rep.ModelLoadMS <= 0 {
		t.Errorf("times: detect median %v p95 %v, load %v", rep.FaceMSMedian, rep.FaceMSP95, rep.ModelLoadMS)
	}
	if s := rep.Synth; s == nil || s.Samples != 2 || s.AtDefault.Genuine+s.AtDefault.Impostor != 4 {
		t.Errorf("synthetic part %+v; want 2 samples, 4 card/selfie pairs", s)
	}

	if _, err := Run(t.Context(), Options{Johns: t.TempDir(), Models: models}); !bench.IsInput(err) {
		t.Errorf("a johns folder without photos: %v, want an input error", err)
	}
}
