package face

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/internal/testkit/fixtures"
)

func matcher(tb testing.TB) *Matcher {
	tb.Helper()
	fixtures.Need(tb, JohnsDir, "dlib johns photos (apt-get install libdlib-dev)")
	return New(fixtures.Models(tb))
}

func johnsFile(tb testing.TB, person string, i int) []byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(JohnsDir, person, "*.jpg"))
	if err != nil || len(files) <= i {
		tb.Fatalf("johns %s #%d: %v", person, i, err)
	}
	b, err := os.ReadFile(files[i])
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func decode(tb testing.TB, b []byte) image.Image {
	tb.Helper()
	img, err := facerec.Decode(b)
	if err != nil {
		tb.Fatal(err)
	}
	return img
}

func encodePNG(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// sideBySide puts two photos next to each other on one canvas, as a selfie
// with a second person beside the holder.
func sideBySide(tb testing.TB, a, b []byte) []byte {
	tb.Helper()
	ia, ib := decode(tb, a), decode(tb, b)
	w := ia.Bounds().Dx() + ib.Bounds().Dx()
	h := max(ia.Bounds().Dy(), ib.Bounds().Dy())
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, ia.Bounds(), ia, image.Point{}, draw.Src)
	draw.Draw(out, ib.Bounds().Add(image.Pt(ia.Bounds().Dx(), 0)), ib, image.Point{}, draw.Src)
	return encodePNG(tb, out)
}

// blank is a capture with no face: a smooth gradient.
func blank(tb testing.TB) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 300, 400))
	for y := 0; y < 400; y++ {
		for x := 0; x < 300; x++ {
			img.Set(x, y, color.NRGBA{uint8(x * 255 / 300), uint8(y * 255 / 400), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func TestRun(t *testing.T) {
	m := matcher(t)
	salley0 := johnsFile(t, "John_Salley", 0)
	tests := []struct {
		name       string
		front      []byte
		idPhoto    []byte // set as the derived id_photo when not nil
		selfie     []byte
		status     idv.Status
		decision   string
		reasons    []string
		idFound    bool
		selfieSeen bool
	}{
		{"same person", salley0, nil, johnsFile(t, "John_Salley", 5), idv.StatusPassed, DecisionMatch, nil, true, true},
		{"same person png selfie", salley0, nil, encodePNG(t, decode(t, johnsFile(t, "John_Salley", 7))), idv.StatusPassed, DecisionMatch, nil, true, true},
		{"different person", salley0, nil, johnsFile(t, "John_Simm", 3), idv.StatusFailed, DecisionNoMatch, []string{ReasonNoMatch}, true, true},
		{"id_photo wins over the front", salley0, johnsFile(t, "John_Simm", 0), johnsFile(t, "John_Simm", 4), idv.StatusPassed, DecisionMatch, nil, true, true},
		{"no face in selfie", salley0, nil, blank(t), idv.StatusReview, DecisionReview, []string{ReasonNoFaceInSelfie}, true, false},
		{"no face in id", blank(t), nil, salley0, idv.StatusReview, DecisionReview, []string{ReasonNoFaceInID}, false, true},
		{"two comparable faces", salley0, nil, sideBySide(t, johnsFile(t, "John_Salley", 2), johnsFile(t, "John_Savage", 2)),
			idv.StatusReview, DecisionReview, []string{ReasonMultipleFaces}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := idv.NewCase(map[string]idv.Image{
				idv.SlotFront:  {Data: tc.front},
				idv.SlotSelfie: {Data: tc.selfie},
			})
			if tc.idPhoto != nil {
				c.SetDerived(idv.ImageIDPhoto, decode(t, tc.idPhoto))
			}
			c.Step = idv.Step{Name: idv.CheckFace, Threshold: 0.75, HasThreshold: true}
			out, err := m.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tc.status {
				t.Errorf("status %s, want %s (reasons %v)", out.Status, tc.status, out.Reasons)
			}
			if !sameSet(out.Reasons, tc.reasons) {
				t.Errorf("reasons %v, want %v", out.Reasons, tc.reasons)
			}
			v, ok := c.Section("photo_comparison")
			if !ok {
				t.Fatal("no photo_comparison section")
			}
			sec := v.(Section)
			if sec.Decision != tc.decision || sec.IDFaceFound != tc.idFound || sec.SelfieFaceFound != tc.selfieSeen {
				t.Errorf("section %+v", sec)
			}
			if sec.Match != (tc.decision == DecisionMatch) {
				t.Errorf("match %v with decision %s", sec.Match, sec.Decision)
			}
			if (sec.Distance != nil) != (tc.idFound && tc.selfieSeen) {
				t.Errorf("distance %v with faces found %v/%v", sec.Distance, tc.idFound, tc.selfieSeen)
			}
			if sec.Distance != nil && (sec.Similarity != Similarity(*sec.Distance) || out.Confidence != sec.Similarity) {
				t.Errorf("similarity %v, confidence %v, distance %v", sec.Similarity, out.Confidence, *sec.Distance)
			}
			if _, ok := c.Derived(idv.ImageIDFace); ok != tc.idFound {
				t.Errorf("id_face derived: %v", ok)
			}
			if _, ok := c.Derived(idv.ImageSelfieFace); ok != tc.selfieSeen {
				t.Errorf("selfie_face derived: %v", ok)
			}
		})
	}
}

func TestRunMissingSelfie(t *testing.T) {
	m := matcher(t)
	c := idv.NewCase(map[string]idv.Image{idv.SlotFront: {Data: johnsFile(t, "John_Simm", 0)}})
	if _, err := m.Run(context.Background(), c); err == nil {
		t.Fatal("no error without a selfie")
	}
	c = idv.NewCase(map[string]idv.Image{idv.SlotFront: {Data: []byte("not an image")}, idv.SlotSelfie: {Data: johnsFile(t, "John_Simm", 0)}})
	if _, err := m.Run(context.Background(), c); err == nil {
		t.Fatal("no error for a front that is not an image")
	}
}

func TestSectionJSONKeys(t *testing.T) {
	d := 0.42
	raw, err := json.Marshal(Section{Decision: DecisionMatch, Match: true, Distance: &d, Similarity: Similarity(d), Threshold: 0.75, ReviewBand: 0.1, IDFaceFound: true, SelfieFaceFound: true, Model: facerec.ModelName})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"decision", "match", "distance", "similarity", "threshold", "review_band", "id_face_found", "selfie_face_found", "model"}
	if len(m) != len(want) {
		t.Fatalf("keys %v, want exactly %v", m, want)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("key %s missing", k)
		}
	}
}

func TestJudgeReviewBand(t *testing.T) {
	face := func() Found { return Found{Face: &facerec.Face{}} }
	id, selfie := face(), face()
	// Move the selfie descriptor along one axis to hit chosen distances.
	for _, tc := range []struct {
		distance float64
		decision string
		status   idv.Status
	}{
		{0.30, DecisionMatch, idv.StatusPassed},
		{0.599, DecisionMatch, idv.StatusPassed},
		{0.62, DecisionReview, idv.StatusReview},
		{0.70, DecisionNoMatch, idv.StatusFailed},
	} {
		selfie.Face.Descriptor[0] = float32(tc.distance)
		sec, out := Judge(id, selfie, DefaultParams)
		if sec.Decision != tc.decision || out.Status != tc.status {
			t.Errorf("distance %v: %s/%s, want %s/%s", tc.distance, sec.Decision, out.Status, tc.decision, tc.status)
		}
	}
}

func TestParamsFor(t *testing.T) {
	tests := []struct {
		name string
		step idv.Step
		want Params
		err  bool
	}{
		{"default", idv.Step{}, DefaultParams, false},
		{"threshold", idv.Step{Threshold: 0.9, HasThreshold: true}, Params{0.9, DefaultReviewBand}, false},
		{"band", idv.Step{Params: map[string]any{"review_band": 0.05}}, Params{DefaultThreshold, 0.05}, false},
		{"band int", idv.Step{Params: map[string]any{"review_band": 0}}, Params{DefaultThreshold, 0}, false},
		{"band text", idv.Step{Params: map[string]any{"review_band": "wide"}}, Params{}, true},
		{"band too wide", idv.Step{Params: map[string]any{"review_band": 0.8}}, Params{}, true},
		{"threshold one", idv.Step{Threshold: 1, HasThreshold: true}, Params{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := paramsFor(tc.step)
			if (err != nil) != tc.err {
				t.Fatalf("err %v", err)
			}
			if !tc.err && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestJohnsCalibration is the goal: no error on any of the 1,485
// johns pairs at the default threshold.
func TestJohnsCalibration(t *testing.T) {
	m := matcher(t)
	set, err := LoadJohns(JohnsDir)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := m.AllPairs(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1485 {
		t.Fatalf("%d pairs, want 1485", len(pairs))
	}
	r := RatesAt(pairs, DefaultThreshold)
	if r.FalseMatches != 0 || r.FalseNonMatch != 0 {
		t.Errorf("at the default threshold: %+v", r)
	}
	for _, th := range ROCThresholds {
		r := RatesAt(pairs, th)
		t.Logf("threshold %.2f distance %.3f FMR %.4f FNMR %.4f (review: genuine %d, impostor %d)", th, r.Distance, r.FMR, r.FNMR, r.ReviewGenuine, r.ReviewImpostor)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestFindIDFaceFallbacks: an ID photo turned upside down (a card brought
// upright the wrong way), a blank photo zone on a card whose portrait sits
// elsewhere, and no derived image at all still find the face; a document
// without any face finds none.
func TestFindIDFaceFallbacks(t *testing.T) {
	m := matcher(t)
	ctx := context.Background()
	portrait := decode(t, johnsFile(t, "John_Salley", 0))
	blank := image.NewNRGBA(image.Rect(0, 0, 150, 190))
	draw.Draw(blank, blank.Bounds(), image.NewUniform(color.NRGBA{230, 228, 220, 255}), image.Point{}, draw.Src)
	card := image.NewNRGBA(image.Rect(0, 0, 856, 540))
	draw.Draw(card, card.Bounds(), image.NewUniform(color.NRGBA{240, 236, 226, 255}), image.Point{}, draw.Src)
	draw.Draw(card, portrait.Bounds().Add(image.Pt(600, 200)), portrait, portrait.Bounds().Min, draw.Src)
	noFront := func() (image.Image, error) { return nil, ErrNoCapture }
	front := func() (image.Image, error) { return portrait, nil }

	tests := []struct {
		name             string
		idPhoto, rectify image.Image
		front            func() (image.Image, error)
		want             bool
	}{
		{"upright photo", portrait, nil, noFront, true},
		{"upside-down photo", imaging.Rotate180(portrait), nil, noFront, true},
		{"photo on its side", imaging.Rotate90(portrait), nil, noFront, true},
		{"empty zone, portrait elsewhere on the card", blank, card, noFront, true},
		{"nothing derived, the capture", nil, nil, front, true},
		{"no face anywhere", blank, blank, func() (image.Image, error) { return blank, nil }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := m.FindIDFace(ctx, tc.idPhoto, tc.rectify, tc.front)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Face != nil; got != tc.want {
				t.Fatalf("face found = %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := m.FindIDFace(ctx, nil, nil, noFront); err == nil {
		t.Fatal("no image at all: want the capture's error")
	}
}
