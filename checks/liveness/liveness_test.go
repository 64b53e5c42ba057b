package liveness_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"reflect"
	"testing"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/fixtures"
)

func embedded(tb testing.TB) *liveness.Model {
	tb.Helper()
	m, err := liveness.Embedded()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func TestJudge(t *testing.T) {
	m := embedded(t)
	zero := make([]float64, liveness.NumFeatures)
	tests := []struct {
		name       string
		a          liveness.Assessment
		p          liveness.Params
		wantStatus idv.Status
		wantLive   bool
		wantReason []string
	}{
		{"clearly live", liveness.Assessment{FaceFound: true, Confidence: 0.97, Features: zero}, liveness.DefaultParams, idv.StatusPassed, true, nil},
		{"at the threshold", liveness.Assessment{FaceFound: true, Confidence: 0.80, Features: zero}, liveness.DefaultParams, idv.StatusPassed, true, nil},
		{"in the review band", liveness.Assessment{FaceFound: true, Confidence: 0.72, Features: zero}, liveness.DefaultParams, idv.StatusReview, false, []string{liveness.ReasonLowConfidence}},
		{"at the band's floor", liveness.Assessment{FaceFound: true, Confidence: 0.70, Features: zero}, liveness.DefaultParams, idv.StatusReview, false, []string{liveness.ReasonLowConfidence}},
		{"an attack", liveness.Assessment{FaceFound: true, Confidence: 0.05, Features: zero}, liveness.DefaultParams, idv.StatusFailed, false, []string{liveness.ReasonFailed}},
		{"stricter workflow", liveness.Assessment{FaceFound: true, Confidence: 0.90, Features: zero}, liveness.Params{Threshold: 0.95, ReviewBand: 0.1}, idv.StatusReview, false, []string{liveness.ReasonLowConfidence}},
		{"no review band", liveness.Assessment{FaceFound: true, Confidence: 0.79, Features: zero}, liveness.Params{Threshold: 0.8}, idv.StatusFailed, false, []string{liveness.ReasonFailed}},
		{"no face", liveness.Assessment{}, liveness.DefaultParams, idv.StatusReview, false, []string{liveness.ReasonNoFace}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sec, out := liveness.Judge(m, tc.a, tc.p)
			if out.Status != tc.wantStatus || sec.Status != string(tc.wantStatus) || sec.Liveness != tc.wantLive || !reflect.DeepEqual(out.Reasons, tc.wantReason) {
				t.Fatalf("section %+v outcome %+v", sec, out)
			}
			if sec.Threshold != tc.p.Threshold || sec.Method != m.Method() {
				t.Errorf("section %+v", sec)
			}
			if tc.a.FaceFound {
				if !out.HasConfidence || out.Confidence != tc.a.Confidence || sec.Confidence != tc.a.Confidence {
					t.Errorf("confidence not carried: %+v %+v", sec, out)
				}
				if len(out.Pieces) != 6 || out.Pieces[0].Name != "logit" {
					t.Errorf("pieces %+v", out.Pieces)
				}
			} else if out.HasConfidence {
				t.Errorf("no face but a confidence: %+v", out)
			}
		})
	}
}

func jpegOf(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// gradient is a capture with no face.
func gradient(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 140, 255})
		}
	}
	return img
}

func TestRunErrors(t *testing.T) {
	d := liveness.New(fixtures.Models(t))
	tests := []struct {
		name    string
		images  map[string]idv.Image
		step    idv.Step
		wantErr error
	}{
		{"no selfie", map[string]idv.Image{idv.SlotFront: {Data: []byte{1}}}, idv.Step{}, liveness.ErrNoCapture},
		{"empty selfie", map[string]idv.Image{idv.SlotSelfie: {}}, idv.Step{}, liveness.ErrNoCapture},
		{"not an image", map[string]idv.Image{idv.SlotSelfie: {Data: []byte("GIF89a nonsense")}}, idv.Step{}, nil},
		{"bad threshold", map[string]idv.Image{idv.SlotSelfie: {Data: jpegOf(t, gradient(200, 200))}}, idv.Step{Threshold: 1.5, HasThreshold: true}, nil},
		{"bad review band", map[string]idv.Image{idv.SlotSelfie: {Data: jpegOf(t, gradient(200, 200))}}, idv.Step{Params: map[string]any{"review_band": "wide"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := idv.NewCase(tc.images)
			c.Step = tc.step
			_, err := d.Run(context.Background(), c)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if _, set := c.Section("liveness_detection"); set {
				t.Error("a section was set although the check could not run")
			}
		})
	}
}

func TestRunNoFace(t *testing.T) {
	d := liveness.New(fixtures.Models(t))
	c := idv.NewCase(map[string]idv.Image{idv.SlotSelfie: {Data: jpegOf(t, gradient(480, 640))}})
	c.Step = idv.Step{Name: idv.CheckLiveness, Threshold: 0.8, HasThreshold: true}
	out, err := d.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != idv.StatusReview || !reflect.DeepEqual(out.Reasons, []string{liveness.ReasonNoFace}) {
		t.Fatalf("outcome %+v", out)
	}
	v, ok := c.Section("liveness_detection")
	if !ok {
		t.Fatal("no section")
	}
	if s := v.(liveness.Section); s.Liveness || s.Status != "review" || s.Threshold != 0.8 || s.Method == "" {
		t.Errorf("section %+v", s)
	}
}

func TestRegistered(t *testing.T) {
	found := false
	for _, n := range idv.Registered() {
		found = found || n == idv.CheckLiveness
	}
	if !found {
		t.Fatalf("%s not registered: %v", idv.CheckLiveness, idv.Registered())
	}
	d := liveness.New("")
	if d.Name() != idv.CheckLiveness || d.Cost() != 2 {
		t.Errorf("name %q cost %d", d.Name(), d.Cost())
	}
	ci, _ := idv.Info(idv.CheckLiveness)
	if ci.Cost != d.Cost() || ci.Threshold.Default != liveness.DefaultThreshold {
		t.Errorf("catalog %+v disagrees with the check", ci)
	}
}
