package liveness

import (
	"errors"
	"fmt"
	"math"
)

// Example is one labelled feature vector.
type Example struct {
	X []float64
	// Kind is KindLive, or the attack (synth.AttackPrint,
	// synth.AttackScreen).
	Kind string
	// Index is the corpus index the example came from.
	Index int
}

// KindLive labels a bona fide selfie.
const KindLive = "live"

// Live reports whether the example is bona fide.
func (e Example) Live() bool { return e.Kind == KindLive }

// Fit trains an L2-regularised logistic regression on standardised
// features by Newton's method (iteratively reweighted least squares: the
// problem is convex, so this converges to the one optimum without a seed
// or a learning rate). Live and attack examples are weighted so that each
// class counts as much in total, and within the attacks each kind as much,
// so that a rarer attack is not sacrificed to a frequent one.
func Fit(examples []Example, l2 float64) (*Model, error) {
	if len(examples) == 0 {
		return nil, errors.New("liveness: no examples")
	}
	d := NumFeatures
	kinds := map[string]int{}
	for _, e := range examples {
		if len(e.X) != d {
			return nil, fmt.Errorf("liveness: example %d has %d features, want %d", e.Index, len(e.X), d)
		}
		kinds[e.Kind]++
	}
	attackKinds := 0
	for k := range kinds {
		if k != KindLive {
			attackKinds++
		}
	}
	if kinds[KindLive] == 0 || attackKinds == 0 {
		return nil, errors.New("liveness: need live and attack examples")
	}
	n := float64(len(examples))
	w := make([]float64, len(examples))
	for i, e := range examples {
		if e.Live() {
			w[i] = n / 2 / float64(kinds[KindLive])
		} else {
			w[i] = n / 2 / float64(attackKinds) / float64(kinds[e.Kind])
		}
	}

	m := &Model{Features: append([]string(nil), FeatureNames...), Mean: make([]float64, d), Scale: make([]float64, d)}
	for j := 0; j < d; j++ {
		var s float64
		for _, e := range examples {
			s += e.X[j]
		}
		m.Mean[j] = s / n
		var v float64
		for _, e := range examples {
			v += (e.X[j] - m.Mean[j]) * (e.X[j] - m.Mean[j])
		}
		m.Scale[j] = math.Sqrt(v / n)
		if m.Scale[j] < 1e-9 {
			m.Scale[j] = 1 // a constant feature: its weight will stay 0
		}
	}
	// design matrix with a leading 1 for the bias
	z := make([][]float64, len(examples))
	for i, e := range examples {
		row := make([]float64, d+1)
		row[0] = 1
		for j := 0; j < d; j++ {
			row[j+1] = (e.X[j] - m.Mean[j]) / m.Scale[j]
		}
		z[i] = row
	}
	beta := make([]float64, d+1)
	for iter := 0; iter < 100; iter++ {
		grad := make([]float64, d+1)
		hess := make([][]float64, d+1)
		for j := range hess {
			hess[j] = make([]float64, d+1)
		}
		for i, row := range z {
			var s float64
			for j, v := range row {
				s += beta[j] * v
			}
			p := sigmoid(s)
			y := 0.0
			if examples[i].Live() {
				y = 1
			}
			r := w[i] * (y - p)
			c := w[i] * math.Max(p*(1-p), 1e-10)
			for j, v := range row {
				grad[j] += r * v
				for k := 0; k <= j; k++ {
					hess[j][k] += c * v * row[k]
				}
			}
		}
		for j := 1; j <= d; j++ { // the bias is not penalised
			grad[j] -= l2 * beta[j]
			hess[j][j] += l2
		}
		for j := range hess {
			for k := 0; k < j; k++ {
				hess[k][j] = hess[j][k]
			}
		}
		step, err := solveSPD(hess, grad)
		if err != nil {
			return nil, err
		}
		var size float64
		for j := range beta {
			beta[j] += step[j]
			size = math.Max(size, math.Abs(step[j]))
		}
		if size < 1e-9 {
			break
		}
	}
	m.Bias = beta[0]
	m.Weights = beta[1:]
	return m, nil
}

// solveSPD solves a x = b for a symmetric positive definite a by Cholesky
// decomposition.
func solveSPD(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := 0; k < j; k++ {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if s <= 0 {
					return nil, errors.New("liveness: training matrix is not positive definite (increase l2)")
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= l[i][k] * y[k]
		}
		y[i] = s / l[i][i]
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < n; k++ {
			s -= l[k][i] * x[k]
		}
		x[i] = s / l[i][i]
	}
	return x, nil
}
