package idv_test

import (
	"testing"

	"github.com/tambua/tambua/idv"
)

func TestStepThresholdAndBand(t *testing.T) {
	tests := []struct {
		name      string
		step      idv.Step
		threshold float64
		band      float64
		wantErr   bool
	}{
		{"defaults", idv.Step{}, 0.75, 0.10, false},
		{"workflow threshold", idv.Step{HasThreshold: true, Threshold: 0.9}, 0.9, 0.10, false},
		{"threshold 0", idv.Step{HasThreshold: true, Threshold: 0}, 0, 0, true},
		{"threshold 1", idv.Step{HasThreshold: true, Threshold: 1}, 0, 0, true},
		{"band", idv.Step{Params: map[string]any{"review_band": 0.05}}, 0.75, 0.05, false},
		{"band int", idv.Step{Params: map[string]any{"review_band": 0}}, 0.75, 0, false},
		{"band text", idv.Step{Params: map[string]any{"review_band": "wide"}}, 0, 0, true},
		{"band negative", idv.Step{Params: map[string]any{"review_band": -0.1}}, 0, 0, true},
		{"band reaches threshold", idv.Step{HasThreshold: true, Threshold: 0.6, Params: map[string]any{"review_band": 0.6}}, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			th, band, err := tc.step.ThresholdAndBand(0.75, 0.10)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && (th != tc.threshold || band != tc.band) {
				t.Fatalf("got (%v, %v), want (%v, %v)", th, band, tc.threshold, tc.band)
			}
		})
	}
}
