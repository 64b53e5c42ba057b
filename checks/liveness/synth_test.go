package liveness_test

import (
	"context"
	"image"
	"testing"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
)

// testSeed differs from the training corpus's seed, so these selfies were
// never seen in training.
const testSeed = 20260601

// synthSelfies renders the first n selfies of each kind (live, print,
// screen replay) of a medium-difficulty corpus.
func synthSelfies(tb testing.TB, n int) map[string][][]byte {
	tb.Helper()
	fixtures.Need(tb, synth.DefaultFacesDir, "dlib face photos (libdlib-dev)")
	gen, err := synth.New(synth.Options{Definitions: docdefs.Default().Drawn(), Seed: testSeed, Difficulty: synth.Medium, Attacks: true})
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string][][]byte{}
	for i := 0; len(out[liveness.KindLive]) < n || len(out[synth.AttackPrint]) < n || len(out[synth.AttackScreen]) < n; i++ {
		kind := gen.AttackFor(i)
		switch kind {
		case "":
			kind = liveness.KindLive
		case synth.AttackPrint, synth.AttackScreen:
		default:
			continue
		}
		if len(out[kind]) >= n {
			continue
		}
		s, err := gen.Sample(context.Background(), i)
		if err != nil {
			tb.Fatal(err)
		}
		out[kind] = append(out[kind], s.Selfie)
	}
	return out
}

// TestSyntheticSelfies runs the check on live selfies and on print and
// screen replay attacks rendered now by the synthetic corpus.
func TestSyntheticSelfies(t *testing.T) {
	d := liveness.New(fixtures.Models(t))
	sel := synthSelfies(t, 2)
	var live, attack []float64
	errs := 0
	for _, kind := range []string{liveness.KindLive, synth.AttackPrint, synth.AttackScreen} {
		for i, data := range sel[kind] {
			c := idv.NewCase(map[string]idv.Image{idv.SlotSelfie: {Data: data}})
			c.Step = idv.Step{Name: idv.CheckLiveness, Threshold: liveness.DefaultThreshold, HasThreshold: true}
			out, err := d.Run(context.Background(), c)
			if err != nil {
				t.Fatalf("%s #%d: %v", kind, i, err)
			}
			v, _ := c.Section("liveness_detection")
			sec := v.(liveness.Section)
			t.Logf("%s #%d: %s confidence %.3f reasons %v", kind, i, out.Status, sec.Confidence, out.Reasons)
			if kind == liveness.KindLive {
				live = append(live, sec.Confidence)
				if out.Status != idv.StatusPassed || !sec.Liveness {
					errs++
				}
				continue
			}
			if out.Status == idv.StatusPassed || sec.Liveness {
				errs++
			}
			if out.HasConfidence {
				attack = append(attack, sec.Confidence)
			}
		}
	}
	// One error in six is allowed (the held-out BPCER is a few per cent);
	// more means the model or the features are broken.
	if errs > 1 {
		t.Errorf("%d of 6 selfies misjudged", errs)
	}
	if len(attack) == 0 {
		t.Fatal("no attack had a face to judge")
	}
	if gap := mean(live) - mean(attack); gap < 0.5 {
		t.Errorf("mean confidence live %.3f, attacks %.3f: want a gap of at least 0.5", mean(live), mean(attack))
	}
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// TestFaceFromFaceMatching: the rectangle face_matching leaves on the
// Case is used instead of detecting again.
func TestFaceFromFaceMatching(t *testing.T) {
	d := liveness.New(fixtures.Models(t))
	data := synthSelfies(t, 1)[liveness.KindLive][0]
	img, err := facerec.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	face, ok, err := d.DetectFace(context.Background(), img)
	if err != nil || !ok {
		t.Fatalf("no face: %v", err)
	}
	run := func(rect *image.Rectangle) float64 {
		t.Helper()
		c := idv.NewCase(map[string]idv.Image{idv.SlotSelfie: {Data: data}})
		if rect != nil {
			idv.SelfieFaceRect.Set(c, *rect)
		}
		out, err := d.Run(context.Background(), c)
		if err != nil || !out.HasConfidence {
			t.Fatalf("%+v %v", out, err)
		}
		return out.Confidence
	}
	detected := run(nil)
	tests := []struct {
		name string
		rect image.Rectangle
		same bool
	}{
		{"the same face", face, true},
		{"outside the image", image.Rect(-50, -50, 5000, 5000), true},
		// a patch of wall instead of the face: a different confidence
		// proves the value was read
		{"another region", image.Rect(0, 0, face.Dx(), face.Dy()), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(&tc.rect); (got == detected) != tc.same {
				t.Errorf("confidence %.6f, detected face %.6f, want same=%v", got, detected, tc.same)
			}
		})
	}
}

// BenchmarkAssess is the check's work on one 960 x 1280 synthetic selfie:
// face detection, features and classifier (decoding excluded).
func BenchmarkAssess(b *testing.B) {
	d := liveness.New(fixtures.Models(b))
	img, err := facerec.Decode(synthSelfies(b, 1)[liveness.KindLive][0])
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := d.Assess(ctx, img, image.Rectangle{}); err != nil { // loads the models
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Assess(ctx, img, image.Rectangle{}); err != nil {
			b.Fatal(err)
		}
	}
}
