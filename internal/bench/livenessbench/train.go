package livenessbench

import (
	"context"
	"errors"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/internal/testkit/synth"
)

// Model identity written into model.json. Bump Version whenever the
// features, the corpus or the training change.
const (
	ModelName    = "tambua-distortion-logreg"
	ModelVersion = "1"
	// DefaultCount is the number of synthetic indices training scans.
	DefaultCount = 1440
	// DefaultL2 is the ridge penalty on the standardised weights.
	DefaultL2 = 1.0
)

// Views of a selfie the rates are reported for.
const (
	ViewFrame   = "frame"
	ViewCloseUp = "close_up"
)

// Train renders the corpus of the first o.Count indices, fits the
// classifier on the training split (both framings of each selfie) and
// measures it on the held-out split.
func Train(ctx context.Context, o Options, l2 float64) (*liveness.Model, error) {
	if o.Count <= 0 {
		return nil, errors.New("livenessbench: count must be positive")
	}
	gens, err := Generators(o)
	if err != nil {
		return nil, err
	}
	items := Plan(gens, o.Count, nil)
	selfies, err := Render(ctx, gens, items, o)
	if err != nil {
		return nil, err
	}
	det := liveness.New(o.ModelsDir)
	feats, err := Extract(ctx, det, selfies, o)
	if err != nil {
		return nil, err
	}
	info := liveness.TrainingInfo{Seed: o.Seed, Count: o.Count, L2: l2}
	for _, d := range Difficulties {
		info.Difficulties = append(info.Difficulties, string(d))
	}
	var train []liveness.Example
	var held []Features
	for _, f := range feats {
		c := &info.Train
		if f.HeldOut {
			c = &info.HeldOut
		}
		count(c, f)
		if f.HeldOut {
			held = append(held, f)
			continue
		}
		if !f.FaceFound {
			continue
		}
		train = append(train,
			liveness.Example{X: f.Full, Kind: f.Kind, Index: f.Index},
			liveness.Example{X: f.Close, Kind: f.Kind, Index: f.Index})
	}
	m, err := liveness.Fit(train, l2)
	if err != nil {
		return nil, err
	}
	m.Name, m.Version = ModelName, ModelVersion
	info.HeldOutRates = map[string]liveness.Rates{
		ViewFrame:   liveness.RatesAt(Score(m, held, ViewFrame), liveness.DefaultThreshold),
		ViewCloseUp: liveness.RatesAt(Score(m, held, ViewCloseUp), liveness.DefaultThreshold),
	}
	m.Training = info
	return m, m.Validate()
}

func count(c *liveness.Counts, f Features) {
	switch f.Kind {
	case liveness.KindLive:
		c.Live++
	case synth.AttackPrint:
		c.Print++
	default:
		c.Screen++
	}
	if !f.FaceFound {
		c.NoFace++
	}
}

// Score scores the selfies' feature vectors of one view with m.
func Score(m *liveness.Model, feats []Features, view string) []liveness.Scored {
	out := make([]liveness.Scored, 0, len(feats))
	for _, f := range feats {
		s := liveness.Scored{Kind: f.Kind, Face: f.FaceFound}
		if f.FaceFound {
			x := f.Full
			if view == ViewCloseUp {
				x = f.Close
			}
			s.Confidence = m.Confidence(x)
		}
		out = append(out, s)
	}
	return out
}
