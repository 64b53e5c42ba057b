package liveness

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestEmbeddedModel: the shipped model loads, fits this build's features
// and carries the record of its training, and that record meets the goal
// the model was made for.
func TestEmbeddedModel(t *testing.T) {
	m, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if m.Name == "" || m.Version == "" || m.Method() != m.Name+"/"+m.Version {
		t.Errorf("name %q version %q", m.Name, m.Version)
	}
	if !reflect.DeepEqual(m.Features, FeatureNames) {
		t.Errorf("features %v", m.Features)
	}
	tr := m.Training
	if tr.Count <= 0 || tr.Train.Live == 0 || tr.Train.Print == 0 || tr.Train.Screen == 0 || tr.HeldOut.Live == 0 {
		t.Errorf("training record %+v", tr)
	}
	frame, ok := tr.HeldOutRates["frame"]
	if !ok {
		t.Fatalf("no held-out rates: %+v", tr.HeldOutRates)
	}
	for _, k := range []string{"print", "screen_replay"} {
		if a, ok := frame.APCER[k]; !ok || a > 0.05 {
			t.Errorf("held-out APCER %s = %v (present %v), want <= 0.05", k, a, ok)
		}
	}
	if frame.BPCER > 0.10 {
		t.Errorf("held-out BPCER %v, want <= 0.10", frame.BPCER)
	}
	// the mean feature vector is the model's prior: neither certain
	c := m.Confidence(m.Mean)
	if c <= 0.01 || c >= 0.99 {
		t.Errorf("confidence at the mean %v", c)
	}
	// moving the most influential feature along its weight raises the
	// confidence, against it lowers it
	best := 0
	for i, w := range m.Weights {
		if math.Abs(w) > math.Abs(m.Weights[best]) {
			best = i
		}
	}
	x := append([]float64(nil), m.Mean...)
	x[best] += 2 * m.Scale[best] * math.Copysign(1, m.Weights[best])
	y := append([]float64(nil), m.Mean...)
	y[best] -= 2 * m.Scale[best] * math.Copysign(1, m.Weights[best])
	if !(m.Confidence(x) > c && c > m.Confidence(y)) {
		t.Errorf("%s: confidence %v, %v, %v not ordered", m.Features[best], m.Confidence(y), c, m.Confidence(x))
	}
	var sum float64
	for _, v := range m.Contributions(x) {
		sum += v
	}
	if math.Abs(sum+m.Bias-m.Logit(x)) > 1e-9 {
		t.Errorf("contributions do not add up to the logit")
	}
}

func TestParseModel(t *testing.T) {
	good, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(modelJSON, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		data []byte
		ok   bool
	}{
		{"shipped", modelJSON, true},
		{"not json", []byte("model"), false},
		{"empty object", []byte("{}"), false},
		{"unknown key", edit(func(m map[string]any) { m["extra"] = 1 }), false},
		{"no version", edit(func(m map[string]any) { m["version"] = "" }), false},
		{"renamed feature", edit(func(m map[string]any) { m["features"].([]any)[0] = "other" }), false},
		{"short weights", edit(func(m map[string]any) { m["weights"] = m["weights"].([]any)[1:] }), false},
		{"zero scale", edit(func(m map[string]any) { m["scale"].([]any)[3] = 0.0 }), false},
		{"negative scale", edit(func(m map[string]any) { m["scale"].([]any)[3] = -1.0 }), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseModel(tc.data)
			if tc.ok != (err == nil) {
				t.Fatalf("error %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrModel) {
				t.Errorf("error %v is not ErrModel", err)
			}
			if tc.ok && !reflect.DeepEqual(m, good) {
				t.Error("parsed model differs from the embedded one")
			}
		})
	}
	b, err := good.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(modelJSON) {
		t.Error("model.json is not in the form MarshalIndent writes (regenerate it with tambua liveness train)")
	}
}

// separable makes examples whose first two features decide the class
// (live above the line x0 + x1 = 0) and whose others are noise.
func separable(n int, seed uint64) []Example {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]Example, 0, n)
	for i := 0; i < n; i++ {
		x := make([]float64, NumFeatures)
		for j := range x {
			x[j] = r.NormFloat64() * float64(j+1)
		}
		kind := KindLive
		if x[0]+x[1]/2 < 0 {
			kind = "print"
			if i%3 == 0 {
				kind = "screen_replay"
			}
		}
		out = append(out, Example{X: x, Kind: kind, Index: i})
	}
	return out
}

func TestFit(t *testing.T) {
	train, test := separable(2000, 1), separable(1000, 2)
	m, err := Fit(train, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	m.Name, m.Version = "test", "1"
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for _, e := range test {
		if (m.Confidence(e.X) >= 0.5) != e.Live() {
			wrong++
		}
	}
	t.Logf("%d of %d misclassified", wrong, len(test))
	if wrong > 30 {
		t.Errorf("%d of %d test examples misclassified", wrong, len(test))
	}
	// the two deciding features carry the largest weights
	for j := 2; j < NumFeatures; j++ {
		if math.Abs(m.Weights[j]) >= math.Abs(m.Weights[1]) {
			t.Errorf("noise feature %d weight %v >= feature 1's %v", j, m.Weights[j], m.Weights[1])
		}
	}
	again, err := Fit(train, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	again.Name, again.Version = "test", "1"
	if !reflect.DeepEqual(m, again) {
		t.Error("two fits of the same data differ")
	}

	errTests := []struct {
		name string
		ex   []Example
		want string
	}{
		{"none", nil, "no examples"},
		{"live only", []Example{{X: make([]float64, NumFeatures), Kind: KindLive}}, "need live and attack"},
		{"short vector", []Example{{X: []float64{1}, Kind: KindLive}}, "features"},
	}
	for _, tc := range errTests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Fit(tc.ex, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSolveSPD(t *testing.T) {
	a := [][]float64{{4, 2, 0}, {2, 5, 1}, {0, 1, 3}}
	want := []float64{1, -2, 3}
	b := make([]float64, 3)
	for i := range a {
		for j := range a[i] {
			b[i] += a[i][j] * want[j]
		}
	}
	x, err := solveSPD(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if math.Abs(x[i]-want[i]) > 1e-12 {
			t.Fatalf("x = %v, want %v", x, want)
		}
	}
	if _, err := solveSPD([][]float64{{1, 2}, {2, 1}}, []float64{1, 1}); err == nil {
		t.Error("indefinite matrix accepted")
	}
}

func TestRatesAt(t *testing.T) {
	scored := []Scored{
		{Kind: KindLive, Face: true, Confidence: 0.9},
		{Kind: KindLive, Face: true, Confidence: 0.6},
		{Kind: KindLive, Face: false},
		{Kind: KindLive, Face: true, Confidence: 0.99},
		{Kind: "print", Face: true, Confidence: 0.85},
		{Kind: "print", Face: true, Confidence: 0.1},
		{Kind: "screen_replay", Face: true, Confidence: 0.2},
		{Kind: "screen_replay", Face: false},
	}
	tests := []struct {
		th     float64
		bpcer  float64
		aPrint float64
		aScr   float64
	}{
		{0.5, 0.25, 0.5, 0},
		{0.8, 0.5, 0.5, 0},
		{0.95, 0.75, 0, 0},
		{0.05, 0.25, 1, 0.5},
	}
	for _, tc := range tests {
		r := RatesAt(scored, tc.th)
		if r.BPCER != tc.bpcer || r.APCER["print"] != tc.aPrint || r.APCER["screen_replay"] != tc.aScr || r.Live != 4 {
			t.Errorf("threshold %v: %+v", tc.th, r)
		}
		if !reflect.DeepEqual(r.NoFace, map[string]int{KindLive: 1, "screen_replay": 1}) {
			t.Errorf("no face %v", r.NoFace)
		}
		if !reflect.DeepEqual(r.Kinds(), []string{"print", "screen_replay"}) {
			t.Errorf("kinds %v", r.Kinds())
		}
	}
}
