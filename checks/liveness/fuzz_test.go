package liveness

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"testing"

	"github.com/tambua/tambua/internal/facerec"
)

// FuzzParseModel: a model file given to tambua face liveness -model is
// outside input. Whatever it holds, parsing must not panic, and a model
// it accepts must be usable.
func FuzzParseModel(f *testing.F) {
	f.Add(modelJSON)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"name":"x","version":"1","features":[]}`))
	f.Add(modelJSON[:len(modelJSON)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseModel(data)
		if err != nil {
			return
		}
		c := m.Confidence(make([]float64, NumFeatures))
		if math.IsNaN(c) || c < 0 || c > 1 {
			t.Fatalf("confidence %v", c)
		}
		b, err := m.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseModel(b); err != nil {
			t.Fatalf("re-encoded model refused: %v", err)
		}
	})
}

// FuzzExtract: the selfie is outside input; whatever image the decoder
// lets through and wherever the detector puts the face, the features are
// finite numbers or ErrNoFace, never a panic.
func FuzzExtract(f *testing.F) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, noisy(40, 30, 100, 30, 1)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes(), 5, 5, 30, 25)
	f.Add(buf.Bytes(), -10, -10, 100, 100)
	f.Add(buf.Bytes(), 20, 20, 21, 21)
	f.Fuzz(func(t *testing.T, data []byte, x0, y0, x1, y1 int) {
		img, err := facerec.Decode(data)
		if err != nil || img.Rect.Dx()*img.Rect.Dy() > 1<<20 {
			return
		}
		x, err := Extract(img, image.Rect(x0, y0, x1, y1))
		if err != nil {
			return
		}
		for i, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s = %v", FeatureNames[i], v)
			}
		}
	})
}
