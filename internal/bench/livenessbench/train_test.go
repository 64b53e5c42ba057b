package livenessbench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
)

// TestTrainAndBench trains on a tiny corpus twice (the same seed must give
// the same model, byte for byte) and benchmarks the result.
func TestTrainAndBench(t *testing.T) {
	if testing.Short() {
		t.Skip("renders synthetic selfies")
	}
	o := Options{Seed: 3, Count: 24, ModelsDir: fixtures.Models(t)}
	fixtures.Need(t, synth.DefaultFacesDir, "dlib face photos (libdlib-dev)")
	ctx := context.Background()
	m, err := Train(ctx, o, DefaultL2)
	if err != nil {
		t.Fatal(err)
	}
	o.Workers = 1
	again, err := Train(ctx, o, DefaultL2)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.MarshalIndent()
	b, _ := again.MarshalIndent()
	if !bytes.Equal(a, b) {
		t.Error("two trainings with the same seed differ")
	}
	if m.Method() != ModelName+"/"+ModelVersion || m.Training.Seed != 3 || m.Training.Count != 24 {
		t.Errorf("model %s, training %+v", m.Method(), m.Training)
	}
	gens, err := Generators(o)
	if err != nil {
		t.Fatal(err)
	}
	var want liveness.Counts
	for _, it := range Plan(gens, 24, nil) {
		c := &want.Live
		switch it.Kind {
		case synth.AttackPrint:
			c = &want.Print
		case synth.AttackScreen:
			c = &want.Screen
		}
		if it.HeldOut {
			continue
		}
		*c++
	}
	got := m.Training.Train
	if got.Live != want.Live || got.Print != want.Print || got.Screen != want.Screen {
		t.Errorf("training counts %+v, want %+v", got, want)
	}
	for _, view := range []string{ViewFrame, ViewCloseUp} {
		if _, ok := m.Training.HeldOutRates[view]; !ok {
			t.Errorf("no held-out rates for %s", view)
		}
	}

	johns := filepath.Join(t.TempDir(), "johns")
	for _, person := range []string{"John_Simm", "John_Salley"} {
		files, _ := filepath.Glob(filepath.Join(synth.DefaultFacesDir, person, "*.jpg"))
		if err := os.MkdirAll(filepath.Join(johns, person), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files[:2] {
			if err := os.Symlink(f, filepath.Join(johns, person, filepath.Base(f))); err != nil {
				t.Fatal(err)
			}
		}
	}
	emb, err := liveness.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Bench(ctx, emb, BenchOptions{Options: Options{Seed: DefaultSeed, Count: 30, ModelsDir: o.ModelsDir}, JohnsDir: johns})
	if err != nil {
		t.Fatal(err)
	}
	held := Plan(gens, 30, func(it Item) bool { return it.HeldOut })
	h := rep.Synthetic.HeldOut
	if h.Live+h.Print+h.Screen != len(held) || rep.Synthetic.Frame.Live != h.Live || rep.Johns.Images != 4 {
		t.Errorf("report counts %+v, frame %+v, johns %+v; %d held out", h, rep.Synthetic.Frame, rep.Johns, len(held))
	}
	if rep.SelfieMSMedian <= 0 || rep.FeaturesMSMedian <= 0 || rep.AllocMBPerSelfie <= 0 || rep.Model != emb.Method() {
		t.Errorf("report %+v", rep)
	}
	// the shipped model on held-out selfies it never saw and on real
	// photos: the handful here must mostly be right
	if rep.Synthetic.Frame.BPCER > 0.5 || rep.Johns.BPCER > 0.5 {
		t.Errorf("BPCER synthetic %v, johns %v", rep.Synthetic.Frame.BPCER, rep.Johns.BPCER)
	}
	if _, err := Bench(ctx, emb, BenchOptions{Options: Options{Seed: DefaultSeed, Count: 5, ModelsDir: o.ModelsDir}, JohnsDir: t.TempDir()}); err == nil {
		t.Error("bench without johns photos did not fail")
	}
}
