package liveness

import (
	"bytes"
	_ "embed" // the shipped model
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
)

//go:embed model.json
var modelJSON []byte

// ErrModel is returned for a model file that cannot be used.
var ErrModel = errors.New("liveness: invalid model")

// Model is a logistic regression over standardised features: the
// probability that the selfie shows a live person is
//
//	sigmoid(Bias + sum_i Weights[i] * (x[i] - Mean[i]) / Scale[i])
//
// It is data, trained by Train and shipped as model.json.
type Model struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Features are the names of the inputs, in order; they must equal
	// FeatureNames.
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	// Training records how the model was made and what it scored on the
	// held-out split, for the docs and the benchmark.
	Training TrainingInfo `json:"training"`
}

// TrainingInfo describes a training run. It holds nothing that varies
// between runs with the same options (no timings), so that retraining
// reproduces model.json byte for byte.
type TrainingInfo struct {
	Seed uint64 `json:"seed,string"`
	// Count is how many synthetic sample indices were scanned.
	Count        int      `json:"count"`
	Difficulties []string `json:"difficulties"`
	Train        Counts   `json:"train"`
	HeldOut      Counts   `json:"held_out"`
	L2           float64  `json:"l2"`
	// HeldOutRates are the error rates on the held-out split at the
	// default threshold, for whole frames ("frame") and close-ups
	// ("close_up").
	HeldOutRates map[string]Rates `json:"held_out_rates"`
}

// Counts are the number of selfies of each kind in a split.
type Counts struct {
	Live   int `json:"live"`
	Print  int `json:"print"`
	Screen int `json:"screen_replay"`
	NoFace int `json:"no_face"`
}

// Method is the section's method string: name and version.
func (m *Model) Method() string { return m.Name + "/" + m.Version }

// Validate checks that the model fits this build's features and holds
// finite numbers.
func (m *Model) Validate() error {
	if m.Name == "" || m.Version == "" {
		return fmt.Errorf("%w: name and version are required", ErrModel)
	}
	if len(m.Features) != NumFeatures {
		return fmt.Errorf("%w: %d features, this build computes %d (retrain with tambua liveness train)", ErrModel, len(m.Features), NumFeatures)
	}
	for i, n := range m.Features {
		if n != FeatureNames[i] {
			return fmt.Errorf("%w: feature %d is %q, this build computes %q (retrain)", ErrModel, i, n, FeatureNames[i])
		}
	}
	if len(m.Mean) != NumFeatures || len(m.Scale) != NumFeatures || len(m.Weights) != NumFeatures {
		return fmt.Errorf("%w: mean, scale and weights need %d entries", ErrModel, NumFeatures)
	}
	for i := range m.Weights {
		for _, v := range []float64{m.Mean[i], m.Scale[i], m.Weights[i]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: non-finite parameter for %s", ErrModel, m.Features[i])
			}
		}
		if m.Scale[i] <= 0 {
			return fmt.Errorf("%w: scale of %s is %v", ErrModel, m.Features[i], m.Scale[i])
		}
	}
	if math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0) {
		return fmt.Errorf("%w: non-finite bias", ErrModel)
	}
	return nil
}

// Logit is the model's log-odds that x is live.
func (m *Model) Logit(x []float64) float64 {
	z := m.Bias
	for i, v := range x {
		z += m.Weights[i] * (v - m.Mean[i]) / m.Scale[i]
	}
	return z
}

// Confidence is the probability (0..1) that x is live.
func (m *Model) Confidence(x []float64) float64 { return sigmoid(m.Logit(x)) }

// Contributions are each feature's term in the logit, for the result's
// score pieces.
func (m *Model) Contributions(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = m.Weights[i] * (v - m.Mean[i]) / m.Scale[i]
	}
	return out
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// ParseModel decodes and validates a model file (unknown keys refused).
func ParseModel(data []byte) (*Model, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Model
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

var (
	embeddedOnce  sync.Once
	embeddedModel *Model
	embeddedErr   error
)

// Embedded returns the model shipped in the binary.
func Embedded() (*Model, error) {
	embeddedOnce.Do(func() { embeddedModel, embeddedErr = ParseModel(modelJSON) })
	return embeddedModel, embeddedErr
}

// MarshalIndent encodes the model as the repository stores it.
func (m *Model) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
