package livenessbench

import (
	"context"
	"errors"
	"image"
	"sync/atomic"
	"testing"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func TestPlan(t *testing.T) {
	fixtures.Need(t, synth.DefaultFacesDir, "dlib face photos (libdlib-dev)")
	gens, err := Generators(Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const n = 120
	all := Plan(gens, n, nil)
	picked := map[int]Item{}
	for _, it := range all {
		picked[it.Index] = it
	}
	kinds := map[string]int{}
	for i := 0; i < n; i++ {
		it, ok := picked[i]
		attack := gens[Difficulties[0]].AttackFor(i)
		switch {
		case attack == synth.AttackPrint || attack == synth.AttackScreen:
			// every print and screen replay is used
			if !ok || it.Kind != attack {
				t.Errorf("index %d (%s): %+v picked %v", i, attack, it, ok)
			}
		case attack == "" && (i/2)%3 == 0:
			if !ok || it.Kind != liveness.KindLive {
				t.Errorf("index %d (clean): %+v picked %v", i, it, ok)
			}
		default:
			if ok {
				t.Errorf("index %d (%q) picked: %+v", i, attack, it)
			}
		}
		if ok {
			kinds[it.Kind]++
			if it.HeldOut != (i%5 == 4) || it.Difficulty != Difficulties[(i/12)%3] {
				t.Errorf("index %d: %+v", i, it)
			}
		}
	}
	// about as many live selfies as attacks
	if a := kinds[synth.AttackPrint] + kinds[synth.AttackScreen]; kinds[synth.AttackPrint] == 0 || kinds[synth.AttackScreen] == 0 ||
		kinds[liveness.KindLive] < a/2 || kinds[liveness.KindLive] > 2*a {
		t.Errorf("kinds %v", kinds)
	}
	held := Plan(gens, n, func(it Item) bool { return it.HeldOut })
	if len(held) == 0 {
		t.Fatal("nothing held out")
	}
	for _, it := range held {
		if !it.HeldOut {
			t.Errorf("%+v in the held-out plan", it)
		}
	}
}

func TestCloseUp(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 1000, 1200))
	tests := []struct {
		name  string
		face  image.Rectangle
		index int
	}{
		{"centre", image.Rect(400, 400, 600, 650), 0},
		{"other index", image.Rect(400, 400, 600, 650), 7},
		{"at the corner", image.Rect(0, 0, 200, 250), 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, f := CloseUp(img, tc.face, tc.index)
			b := c.Bounds()
			if b.Min != (image.Point{}) {
				t.Errorf("crop bounds %v do not start at the origin", b)
			}
			if !f.In(b) || f.Dx() != tc.face.Dx() || f.Dy() != tc.face.Dy() {
				t.Errorf("face %v in crop %v", f, b)
			}
			// widened 1.5 to 2.5 times where the image allows
			if k := float64(b.Dx()) / float64(tc.face.Dx()); tc.face.Min.X > 0 && (k < 1.45 || k > 2.55) {
				t.Errorf("crop is %.2f face widths", k)
			}
		})
	}
}

func TestParallel(t *testing.T) {
	var n atomic.Int64
	if err := parallel(context.Background(), 50, 3, nil, func(int) error { n.Add(1); return nil }); err != nil || n.Load() != 50 {
		t.Fatalf("ran %d, error %v", n.Load(), err)
	}
	boom := errors.New("boom")
	n.Store(0)
	err := parallel(context.Background(), 1000, 2, nil, func(i int) error {
		n.Add(1)
		if i == 5 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || n.Load() == 1000 {
		t.Errorf("error %v after %d runs: want boom and an early stop", err, n.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := parallel(ctx, 10, 2, nil, func(int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
