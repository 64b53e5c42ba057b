package idv_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

var update = flag.Bool("update", false, "rewrite golden files")

// scripted is a test-only check whose outcome the test sets. It records
// whether it ran so skipping can be asserted.
type scripted struct {
	name string
	cost int
	out  idv.Outcome
	err  error
	fn   func(c *idv.Case)
	ran  bool
}

func (s *scripted) Name() string { return s.name }
func (s *scripted) Cost() int    { return s.cost }
func (s *scripted) Run(_ context.Context, c *idv.Case) (idv.Outcome, error) {
	s.ran = true
	if s.fn != nil {
		s.fn(c)
	}
	return s.out, s.err
}

// panicky stands for a broken check.
type panicky struct{ scripted }

func (p *panicky) Run(context.Context, *idv.Case) (idv.Outcome, error) { panic("index out of range") }

func costOf(name string) int {
	ci, _ := idv.Info(name)
	return ci.Cost
}

func check(name string, out idv.Outcome, err error) *scripted {
	return &scripted{name: name, cost: costOf(name), out: out, err: err}
}

func conf(status idv.Status, c float64, reasons ...string) idv.Outcome {
	return idv.Outcome{Status: status, Confidence: c, HasConfidence: true, Reasons: reasons}
}

var review = &idv.ManualReview{Enabled: true}
var autoDecline = &idv.ManualReview{Enabled: true, AutoDecline: true}
var noReview = &idv.ManualReview{Enabled: false}

func TestEngineSemantics(t *testing.T) {
	ocrOK := func() *scripted { return check(idv.CheckOCR, idv.Passed(0.99), nil) }
	cases := []struct {
		name        string
		review      *idv.ManualReview
		checks      []*scripted
		threshold   map[string]float64
		decision    idv.Decision
		reasons     []string
		statuses    []idv.Status
		notRunAfter int // index from which checks must not have run (-1: all ran)
	}{
		{
			name:     "all pass",
			checks:   []*scripted{ocrOK(), check(idv.CheckFace, conf(idv.StatusPassed, 0.9), nil)},
			decision: idv.Accept, reasons: []string{},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusPassed}, notRunAfter: -1,
		},
		{
			name: "failed check skips the rest",
			checks: []*scripted{ocrOK(), check(idv.CheckFace, idv.Failed("face_no_match"), nil),
				check(idv.CheckLiveness, conf(idv.StatusPassed, 0.99), nil)},
			decision: idv.Reject, reasons: []string{"face_no_match"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusFailed, idv.StatusSkipped}, notRunAfter: 2,
		},
		{
			name:   "below threshold with review and no auto-decline is review",
			review: review,
			checks: []*scripted{ocrOK(), check(idv.CheckFace, conf(idv.StatusPassed, 0.70), nil),
				check(idv.CheckAge, idv.Passed(1), nil)},
			decision: idv.Review, reasons: []string{"face_low_confidence"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusReview, idv.StatusPassed}, notRunAfter: -1,
		},
		{
			name:   "below threshold with auto-decline is reject",
			review: autoDecline,
			checks: []*scripted{ocrOK(), check(idv.CheckFace, conf(idv.StatusPassed, 0.70), nil),
				check(idv.CheckAge, idv.Passed(1), nil)},
			decision: idv.Reject, reasons: []string{"face_low_confidence"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusFailed, idv.StatusSkipped}, notRunAfter: 2,
		},
		{
			name:     "below threshold without manual review is reject",
			review:   noReview,
			checks:   []*scripted{ocrOK(), check(idv.CheckDocAuth, conf(idv.StatusPassed, 0.60), nil)},
			decision: idv.Reject, reasons: []string{"doc_confidence_below_review_band"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusFailed}, notRunAfter: -1,
		},
		{
			name:      "workflow threshold replaces the default",
			checks:    []*scripted{ocrOK(), check(idv.CheckFace, conf(idv.StatusPassed, 0.80), nil)},
			threshold: map[string]float64{idv.CheckFace: 0.85},
			decision:  idv.Review, reasons: []string{"face_low_confidence"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusReview}, notRunAfter: -1,
		},
		{
			name:     "confidence exactly at threshold passes",
			checks:   []*scripted{ocrOK(), check(idv.CheckLiveness, conf(idv.StatusPassed, 0.80), nil)},
			decision: idv.Accept, reasons: []string{},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusPassed}, notRunAfter: -1,
		},
		{
			name:   "security check that could not run is review, never accept",
			review: noReview,
			checks: []*scripted{ocrOK(), check(idv.CheckDocAuth, idv.Outcome{}, errors.New("model missing")),
				check(idv.CheckAge, idv.Passed(1), nil)},
			decision: idv.Review, reasons: []string{"doc_auth_unavailable"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusError, idv.StatusPassed}, notRunAfter: -1,
		},
		{
			name:     "liveness that could not run is review",
			checks:   []*scripted{ocrOK(), check(idv.CheckLiveness, idv.Outcome{Status: idv.StatusError}, nil)},
			decision: idv.Review, reasons: []string{"liveness_unavailable"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusError}, notRunAfter: -1,
		},
		{
			name:   "check asking for review follows manual review",
			review: review,
			checks: []*scripted{ocrOK(), check(idv.CheckSanctions,
				idv.Outcome{Status: idv.StatusReview, Reasons: []string{"sanctions_hit"}}, nil)},
			decision: idv.Review, reasons: []string{"sanctions_hit"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusReview}, notRunAfter: -1,
		},
		{
			name:   "reasons accumulate without duplicates",
			review: review,
			checks: []*scripted{ocrOK(), check(idv.CheckFace, conf(idv.StatusPassed, 0.7, "face_low_confidence"), nil),
				check(idv.CheckLiveness, conf(idv.StatusPassed, 0.6), nil)},
			decision: idv.Review, reasons: []string{"face_low_confidence", "liveness_low_confidence"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusReview, idv.StatusReview}, notRunAfter: -1,
		},
		{
			name:     "failed without reasons gets a named one",
			checks:   []*scripted{ocrOK(), check(idv.CheckAge, idv.Outcome{Status: idv.StatusFailed}, nil)},
			decision: idv.Reject, reasons: []string{"age_verification_failed"},
			statuses: []idv.Status{idv.StatusPassed, idv.StatusFailed}, notRunAfter: -1,
		},
		{
			name:     "OCR failure skips everything",
			checks:   []*scripted{check(idv.CheckOCR, idv.Failed("card_not_found"), nil), check(idv.CheckFace, conf(idv.StatusPassed, 1), nil)},
			decision: idv.Reject, reasons: []string{"card_not_found"},
			statuses: []idv.Status{idv.StatusFailed, idv.StatusSkipped}, notRunAfter: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wf := &idv.Workflow{Name: "test flow", DocumentTypes: []string{"kenya_national_id"}, ManualReview: tc.review}
			var checks []idv.Check
			for _, c := range tc.checks {
				spec := idv.CheckSpec{Name: c.name}
				if th, ok := tc.threshold[c.name]; ok {
					spec.Threshold = &th
				}
				wf.Checks = append(wf.Checks, spec)
				checks = append(checks, c)
			}
			eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(checks...))
			res, err := eng.Verify(context.Background(), wf, idv.Input{Config: "kenya_national_id"})
			require.NoError(t, err)
			assert.Equal(t, tc.decision, res.Decision)
			assert.Equal(t, tc.reasons, res.DecisionReasons)
			var got []idv.Status
			for _, cr := range res.CheckResults {
				got = append(got, cr.Status)
			}
			assert.Equal(t, tc.statuses, got)
			for i, c := range tc.checks {
				if tc.notRunAfter >= 0 && i >= tc.notRunAfter {
					assert.False(t, c.ran, "%s ran after a failure", c.name)
				}
			}
			want := 0
			for _, c := range tc.checks {
				want += c.cost
			}
			assert.Equal(t, want, res.UnitsConsumed, "units are the workflow's cost")
			assert.Len(t, res.PerformanceMetrics.StepTimings, len(tc.checks))
			assert.Equal(t, len(tc.checks), res.PerformanceMetrics.StepCount)
		})
	}
}

func TestPanickingCheckIsAnErrorNotACrash(t *testing.T) {
	ocr := check(idv.CheckOCR, idv.Passed(1), nil)
	bad := &panicky{scripted{name: idv.CheckLiveness, cost: 2}}
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(ocr, bad))
	wf := &idv.Workflow{Name: "panics", DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckLiveness}}}
	res, err := eng.Verify(context.Background(), wf, idv.Input{Config: "kenya_national_id"})
	require.NoError(t, err)
	assert.Equal(t, idv.Review, res.Decision)
	assert.Contains(t, res.CheckResults[1].Error, "panicked")
}

func TestCostsMatchTheSpec(t *testing.T) {
	cases := []struct {
		checks []string
		cost   int
	}{
		{[]string{idv.CheckOCR, idv.CheckFace}, 5},
		{[]string{idv.CheckOCR, idv.CheckAge}, 3},
		{[]string{idv.CheckOCR, idv.CheckFace, idv.CheckLiveness, idv.CheckDocAuth}, 11},
		{[]string{idv.CheckOCR, idv.CheckMRZ, idv.CheckSanctions, idv.CheckAddress, idv.CheckCustomWebhook}, 12},
	}
	for _, tc := range cases {
		wf := &idv.Workflow{}
		for _, n := range tc.checks {
			wf.Checks = append(wf.Checks, idv.CheckSpec{Name: n})
		}
		assert.Equal(t, tc.cost, wf.Cost(), "%v", tc.checks)
	}
}

func TestUnavailableCheckIsAClearError(t *testing.T) {
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(check(idv.CheckOCR, idv.Passed(1), nil)))
	wf := &idv.Workflow{Name: "needs address", DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckAddress}}}
	_, err := eng.Prepare(wf)
	require.Error(t, err)
	assert.Equal(t, idv.EUnavailable, idv.ErrorCode(err))
	assert.Contains(t, err.Error(), "address_verification is not available in this build")

	wf.Checks[1].Name = "palm_reading"
	_, err = eng.Prepare(wf)
	assert.Equal(t, idv.ENotFound, idv.ErrorCode(err))
}

func TestVerifyRefusesConfigOutsideWorkflow(t *testing.T) {
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(check(idv.CheckOCR, idv.Passed(1), nil)))
	wf := &idv.Workflow{Name: "kenya only", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}}
	p, err := eng.Prepare(wf)
	require.NoError(t, err)
	for config, code := range map[string]string{"ke_passport": idv.EInvalid, "atlantis_id": idv.ENotFound, "": idv.EInvalid} {
		_, err := p.Verify(context.Background(), idv.Input{Config: config})
		assert.Equal(t, code, idv.ErrorCode(err), config)
	}
}

func TestMetadataTypes(t *testing.T) {
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(check(idv.CheckOCR, idv.Passed(1), nil)))
	wf := &idv.Workflow{Name: "with metadata", DocumentTypes: []string{"kenya_national_id"},
		Checks:         []idv.CheckSpec{{Name: idv.CheckOCR}},
		MetadataFields: map[string]string{"branch": "string", "loan_amount": "number"}}
	p, err := eng.Prepare(wf)
	require.NoError(t, err)
	ok := map[string]json.RawMessage{"metadata": json.RawMessage(`{"branch":"Kisumu","loan_amount":25000}`)}
	res, err := p.Verify(context.Background(), idv.Input{Config: "kenya_national_id", Message: ok})
	require.NoError(t, err)
	assert.JSONEq(t, `{"branch":"Kisumu","loan_amount":25000}`, string(res.Extra["metadata"]), "metadata is echoed")
	bad := map[string]json.RawMessage{"metadata": json.RawMessage(`{"loan_amount":"lots"}`)}
	_, err = p.Verify(context.Background(), idv.Input{Config: "kenya_national_id", Message: bad})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "loan_amount must be a number")
}

// TestResultGolden pins the JSON shape of a result: every documented key,
// its type, the section defaults and carried-through message keys.
func TestResultGolden(t *testing.T) {
	clock := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ocr := &scripted{name: idv.CheckOCR, cost: 2, out: idv.Passed(0.92, idv.ScorePiece{Name: "coverage", Value: 0.92, Weight: 1}),
		fn: func(c *idv.Case) {
			c.SetFields(c.Definition.FieldSchema, map[string]string{"full_name": "JOHN KAMAU MWANGI", "sex": "M",
				"date_of_birth": "01.02.1990", "national_id_number": "12345678"})
			c.SetDocumentType("kenya_national_id")
		}}
	face := &scripted{name: idv.CheckFace, cost: 3, out: conf(idv.StatusPassed, 0.88),
		fn: func(c *idv.Case) {
			c.SetSection("photo_comparison", map[string]any{"decision": "match", "match": true, "distance": 0.31})
		}}
	wf := &idv.Workflow{Name: "golden", DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckFace}, {Name: idv.CheckLiveness}}}
	live := check(idv.CheckLiveness, idv.Failed("liveness_failed"), nil)
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(ocr, face, live),
		idv.WithClock(func() time.Time { return clock }))
	res, err := eng.Verify(context.Background(), wf, idv.Input{
		Config: "kenya_national_id", ClientID: "3f1e2d4c-0000-4000-8000-000000000001", WorkflowID: "wf-1",
		RequestID: "req-42", Country: "Kenya",
		Message: map[string]json.RawMessage{
			"branch_code": json.RawMessage(`"NBO-7"`),
			"status":      json.RawMessage(`"must not override"`), "nested": json.RawMessage(`{"a":[1,2]}`),
		},
		ImageURLs: map[string]string{"front_id": "https://files.example/front"},
	})
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{32}$`), res.IDVUniqueID)
	res.IDVUniqueID = "00000000000000000000000000000000"
	got, err := json.MarshalIndent(res, "", "  ")
	require.NoError(t, err)
	golden := filepath.Join("testdata", "result.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	assert.Equal(t, string(want), string(got)+"\n", "key order is part of the contract")
}

func TestRequestIDGeneratedWhenMissing(t *testing.T) {
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(check(idv.CheckOCR, idv.Passed(1), nil)))
	wf := &idv.Workflow{Name: "ids", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}}
	a, err := eng.Verify(context.Background(), wf, idv.Input{Config: "kenya_national_id"})
	require.NoError(t, err)
	b, err := eng.Verify(context.Background(), wf, idv.Input{Config: "kenya_national_id"})
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, a.RequestID)
	assert.NotEqual(t, a.RequestID, b.RequestID)
	assert.NotEqual(t, a.IDVUniqueID, b.IDVUniqueID)
}

// banded is a check that takes a review_band parameter and validates it
// when the workflow is prepared.
type banded struct{ scripted }

func (b *banded) ValidateStep(st idv.Step) error {
	_, _, err := st.ThresholdAndBand(0.75, 0.05)
	return err
}

// TestPrepareValidatesStepParams: a bad parameter fails Prepare with an
// invalid-input error, instead of sending every verification to review.
func TestPrepareValidatesStepParams(t *testing.T) {
	face := &banded{scripted{name: idv.CheckFace, cost: idv.CostOf(idv.CheckFace), out: idv.Passed(0.9)}}
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(check(idv.CheckOCR, idv.Passed(1), nil), face))
	defer eng.Close()
	for band, ok := range map[any]bool{0.05: true, 0: true, "wide": false, -0.1: false, 0.8: false} {
		wf := &idv.Workflow{Name: "banded", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{
			{Name: idv.CheckOCR}, {Name: idv.CheckFace, Params: map[string]any{"review_band": band}}}}
		_, err := eng.Prepare(wf)
		if ok && err != nil {
			t.Errorf("review_band %v: %v", band, err)
		}
		if !ok && (err == nil || idv.ErrorCode(err) != idv.EInvalid) {
			t.Errorf("review_band %v: Prepare error %v, want an invalid-input error", band, err)
		}
	}
}

// TestValidateSteps: what a transport calls when a workflow is created
// refuses the same params as Prepare, needs no document definitions, and
// leaves a check this engine cannot build to Prepare.
func TestValidateSteps(t *testing.T) {
	face := &banded{scripted{name: idv.CheckFace, cost: idv.CostOf(idv.CheckFace), out: idv.Passed(0.9)}}
	eng := idv.New(idv.WithChecks(check(idv.CheckOCR, idv.Passed(1), nil), face))
	defer eng.Close()
	tests := []struct {
		name   string
		checks []idv.CheckSpec
		want   string // "" when valid
	}{
		{"good band", []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckFace, Params: map[string]any{"review_band": 0.05}}}, ""},
		{"band above the threshold", []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckFace, Params: map[string]any{"review_band": 0.8}}},
			"checks[1] face_matching"},
		{"check not in this engine", []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: "palm_reading", Params: map[string]any{"x": 1}}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := eng.ValidateSteps(&idv.Workflow{Name: "steps", DocumentTypes: []string{"kenya_national_id"}, Checks: tc.checks})
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, idv.EInvalid, idv.ErrorCode(err))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
