package docauthbench

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tambua/tambua/checks/docauth"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		v        Verdict
		want     Verdict
		genuine  bool // a surprise for a genuine capture
		attacked bool // a surprise for an attack
	}{
		{"docauth passes", docAuthVerdict(docauth.Section{Decision: docauth.DecisionPass}),
			Verdict{Decision: docauth.DecisionPass}, false, true},
		{"docauth reviews", docAuthVerdict(docauth.Section{Decision: docauth.DecisionReview, ReasonCodes: []string{"doc_font_mismatch"}}),
			Verdict{NotPass: true, Decision: docauth.DecisionReview, Reasons: []string{"doc_font_mismatch"}}, true, false},
		{"docauth fails", docAuthVerdict(docauth.Section{Decision: docauth.DecisionFail, ReasonCodes: []string{"doc_field_mismatch"}}),
			Verdict{NotPass: true, Fail: true, Decision: docauth.DecisionFail, Reasons: []string{"doc_field_mismatch"}}, true, false},
		{"ocr stops it", ocrVerdict(idv.Outcome{Status: idv.StatusFailed, Reasons: []string{"document_expired", "mrz_invalid"}}),
			Verdict{NotPass: true, Fail: true, ByOCR: true, Decision: "ocr:document_expired,mrz_invalid", Reasons: []string{"document_expired", "mrz_invalid"}}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.v, tc.want) {
				t.Errorf("got %+v, want %+v", tc.v, tc.want)
			}
			if got := tc.v.Surprise(Genuine); got != tc.genuine {
				t.Errorf("surprise for a genuine capture = %v", got)
			}
			if got := tc.v.Surprise(synth.AttackPhotoSwap); got != tc.attacked {
				t.Errorf("surprise for an attack = %v", got)
			}
			// a selfie attack leaves the card genuine
			if got := tc.v.Surprise(synth.AttackScreen); got != tc.genuine {
				t.Errorf("surprise for a selfie screen replay = %v", got)
			}
		})
	}
}

func TestRow(t *testing.T) {
	var r Row
	r.add(Verdict{Decision: docauth.DecisionPass}, 40*time.Millisecond)
	r.add(Verdict{NotPass: true, Fail: true, Reasons: []string{"a", "b"}}, 60*time.Millisecond)
	r.add(Verdict{NotPass: true, Fail: true, ByOCR: true, Reasons: []string{"a"}}, 0) // docauth never ran
	want := Row{N: 3, NotPass: 2, Fail: 2, ByOCR: 1, CPU: []time.Duration{40 * time.Millisecond, 60 * time.Millisecond},
		Reasons: map[string]int{"a": 2, "b": 1}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got %+v, want %+v", r, want)
	}
}

func TestEachCorpusSample(t *testing.T) {
	dir := t.TempDir()
	err := EachCorpusSample(dir, func(Sample) error { return nil })
	if !bench.IsInput(err) || !errors.Is(err, ErrNoSamples) {
		t.Errorf("empty folder: %v, want an input error", err)
	}
	write := func(name, truth string, back bool) {
		sd := filepath.Join(dir, name)
		files := map[string]string{"truth.json": truth, "front.jpg": "front of " + name}
		if back {
			files["back.jpg"] = "back of " + name
		}
		for f, body := range files {
			if err := os.MkdirAll(sd, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sd, f), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("00002", `{"config":"ke_passport","difficulty":"hard","attack":"photo_swap"}`, false)
	write("00000", `{"config":"kenya_national_id","difficulty":"easy","attack":null}`, true)
	write("00001", `{"config":"kenya_national_id","difficulty":"easy","attack":"print"}`, true)
	var got []Sample
	if err := EachCorpusSample(dir, func(s Sample) error { got = append(got, s); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Sample{
		{Name: filepath.Join(dir, "00000"), Config: "kenya_national_id", Difficulty: "easy", Kind: Genuine,
			Front: []byte("front of 00000"), Back: []byte("back of 00000")},
		{Name: filepath.Join(dir, "00001"), Config: "kenya_national_id", Difficulty: "easy", Kind: synth.AttackPrint,
			Front: []byte("front of 00001"), Back: []byte("back of 00001")},
		{Name: filepath.Join(dir, "00002"), Config: "ke_passport", Difficulty: "hard", Kind: "photo_swap", Front: []byte("front of 00002")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v (in order, the selfie attack counted under its kind)", got, want)
	}
	write("00003", `{"config":`, false)
	if err := EachCorpusSample(dir, func(Sample) error { return nil }); err == nil || bench.IsInput(err) {
		t.Errorf("broken truth.json: %v, want a plain error", err)
	}
}

// TestRun renders one easy sample and runs the real OCR and authenticity
// checks on it.
func TestRun(t *testing.T) {
	rep, err := Run(t.Context(), Options{Seed: 1017, Count: 1, Levels: []string{"easy"}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for key, r := range rep.ByLevel {
		if key[0] != "easy" {
			t.Errorf("row %v of a level not asked for", key)
		}
		n += r.N
		if r.N-r.ByOCR != len(r.CPU) {
			t.Errorf("row %v: %d samples, %d stopped by OCR, %d CPU times", key, r.N, r.ByOCR, len(r.CPU))
		}
	}
	m := 0
	for _, r := range rep.ByDefinition {
		m += r.N
	}
	if n != 1 || m != 1 {
		t.Errorf("%d samples by level, %d by definition; want 1 each", n, m)
	}
}
