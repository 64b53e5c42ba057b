package idv_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
)

func baseWorkflow() *idv.Workflow {
	return &idv.Workflow{Name: "KYC basic", DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}}
}

// fieldErrors returns "field:rule" for every broken rule of err.
func fieldErrors(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *idv.ValidationError
	require.True(t, errors.As(err, &ve), "want a ValidationError, got %v", err)
	var out []string
	for _, fe := range ve.Errors {
		out = append(out, fe.Field+":"+fe.Rule)
	}
	return out
}

func TestWorkflowLimits(t *testing.T) {
	checksN := func(n int) []idv.CheckSpec {
		cs := []idv.CheckSpec{{Name: idv.CheckOCR}}
		for i := 1; i < n; i++ {
			cs = append(cs, idv.CheckSpec{Name: fmt.Sprintf("custom_%d", i)})
		}
		return cs
	}
	thr := func(name string, v float64) func(w *idv.Workflow) {
		return func(w *idv.Workflow) {
			w.Checks = append(w.Checks, idv.CheckSpec{Name: name, Threshold: &v})
		}
	}
	cases := []struct {
		name   string
		mutate func(w *idv.Workflow)
		want   []string // nil: valid
	}{
		{"name 2 characters", func(w *idv.Workflow) { w.Name = "ab" }, []string{"name:min"}},
		{"name 3 characters", func(w *idv.Workflow) { w.Name = "abc" }, nil},
		{"name 255 characters", func(w *idv.Workflow) { w.Name = strings.Repeat("n", 255) }, nil},
		{"name 256 characters", func(w *idv.Workflow) { w.Name = strings.Repeat("n", 256) }, []string{"name:max"}},
		{"name missing", func(w *idv.Workflow) { w.Name = "" }, []string{"name:required"}},
		{"no checks", func(w *idv.Workflow) { w.Checks = nil }, []string{"checks:required"}},
		{"1 check", func(w *idv.Workflow) { w.Checks = checksN(1) }, nil},
		{"10 checks", func(w *idv.Workflow) { w.Checks = checksN(10) }, nil},
		{"11 checks", func(w *idv.Workflow) { w.Checks = checksN(11) }, []string{"checks:max"}},
		{"OCR not first", func(w *idv.Workflow) {
			w.Checks = []idv.CheckSpec{{Name: idv.CheckFace}, {Name: idv.CheckOCR}}
		}, []string{"checks[0].name:first"}},
		{"OCR missing", func(w *idv.Workflow) { w.Checks = []idv.CheckSpec{{Name: idv.CheckFace}} },
			[]string{"checks[0].name:first", "checks:required_check"}},
		{"duplicate check", func(w *idv.Workflow) {
			w.Checks = append(w.Checks, idv.CheckSpec{Name: idv.CheckAge}, idv.CheckSpec{Name: idv.CheckAge})
		}, []string{"checks[2].name:unique"}},
		{"bad check name", func(w *idv.Workflow) { w.Checks = append(w.Checks, idv.CheckSpec{Name: "Face Match"}) },
			[]string{"checks[1].name:check_name"}},
		{"no document types", func(w *idv.Workflow) { w.DocumentTypes = nil }, []string{"document_types:required"}},
		{"repeated document type", func(w *idv.Workflow) { w.DocumentTypes = []string{"ke_passport", "ke_passport"} },
			[]string{"document_types:unique"}},
		{"face 0.59", thr(idv.CheckFace, 0.59), []string{"checks[1].threshold:range"}},
		{"face 0.60", thr(idv.CheckFace, 0.60), nil},
		{"face 0.95", thr(idv.CheckFace, 0.95), nil},
		{"face 0.96", thr(idv.CheckFace, 0.96), []string{"checks[1].threshold:range"}},
		{"liveness 0.49", thr(idv.CheckLiveness, 0.49), []string{"checks[1].threshold:range"}},
		{"liveness 0.50", thr(idv.CheckLiveness, 0.50), nil},
		{"liveness 0.95", thr(idv.CheckLiveness, 0.95), nil},
		{"liveness 0.96", thr(idv.CheckLiveness, 0.96), []string{"checks[1].threshold:range"}},
		{"doc auth 0.59", thr(idv.CheckDocAuth, 0.59), []string{"checks[1].threshold:range"}},
		{"doc auth 0.60", thr(idv.CheckDocAuth, 0.60), nil},
		{"doc auth 0.95", thr(idv.CheckDocAuth, 0.95), nil},
		{"doc auth 0.951", thr(idv.CheckDocAuth, 0.951), []string{"checks[1].threshold:range"}},
		{"custom -0.01", thr(idv.CheckCustomWebhook, -0.01), []string{"checks[1].threshold:range"}},
		{"custom 0.0", thr(idv.CheckCustomWebhook, 0.0), nil},
		{"custom 1.0", thr(idv.CheckCustomWebhook, 1.0), nil},
		{"custom 1.01", thr(idv.CheckCustomWebhook, 1.01), []string{"checks[1].threshold:range"}},
		{"threshold on a check without one", thr(idv.CheckAge, 0.5), []string{"checks[1].threshold:no_threshold"}},
		{"metadata type", func(w *idv.Workflow) { w.MetadataFields = map[string]string{"amount": "money"} },
			[]string{"metadata_fields[amount]:oneof"}},
		{"metadata types ok", func(w *idv.Workflow) { w.MetadataFields = map[string]string{"amount": "number", "branch": "string"} }, nil},
		{"status", func(w *idv.Workflow) { w.Status = "paused" }, []string{"status:oneof"}},
		{"reviewer email", func(w *idv.Workflow) { w.ManualReview = &idv.ManualReview{Enabled: true, ReviewerEmail: "ops"} },
			[]string{"manual_review.reviewer_email:email"}},
		{"four eyes", func(w *idv.Workflow) { w.ManualReview = &idv.ManualReview{Enabled: true, FourEyes: "twice"} },
			[]string{"manual_review.four_eyes:oneof"}},
		{"four eyes on rejections", func(w *idv.Workflow) { w.ManualReview = &idv.ManualReview{Enabled: true, FourEyes: "rejections"} }, nil},
		{"webhook http", func(w *idv.Workflow) { w.Webhook = &idv.WebhookConfig{URL: "http://example.com/hook"} },
			[]string{"webhook.url:startswith"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := baseWorkflow()
			tc.mutate(w)
			assert.Equal(t, tc.want, fieldErrors(t, w.Validate()))
		})
	}
}

func TestParseWorkflowYAMLAndJSON(t *testing.T) {
	yml := `
name: KYC basic
document_types: [kenya_national_id]
checks:
  - name: ocr_extraction
  - name: face_matching
    threshold: 0.80
manual_review: {enabled: true, auto_decline: false, reviewer_email: ops@example.com}
metadata_fields: {branch: string}
`
	w, err := idv.ParseWorkflow([]byte(yml))
	require.NoError(t, err)
	assert.Equal(t, "KYC basic", w.Name)
	th, ok := w.ThresholdFor(1)
	assert.True(t, ok)
	assert.Equal(t, 0.80, th)
	assert.Equal(t, 5, w.Cost())

	js := `{"name":"KYC basic","document_types":["kenya_national_id"],"checks":[{"name":"ocr_extraction"}]}`
	w, err = idv.ParseWorkflow([]byte(js))
	require.NoError(t, err)
	assert.True(t, w.Review().Enabled, "manual review defaults to enabled")
	assert.False(t, w.Review().AutoDecline)

	for name, src := range map[string]string{
		"unknown YAML key":  "name: abc\ndocument_types: [x]\nchecks: [{name: ocr_extraction}]\ncolour: red\n",
		"unknown JSON key":  `{"name":"abc","document_types":["x"],"checks":[{"name":"ocr_extraction"}],"colour":1}`,
		"unknown check key": "name: abc\ndocument_types: [x]\nchecks: [{name: ocr_extraction, weight: 2}]\n",
		"two YAML docs":     "name: abc\ndocument_types: [x]\nchecks: [{name: ocr_extraction}]\n---\nname: b\n",
		"trailing JSON":     `{"name":"abc","document_types":["x"],"checks":[{"name":"ocr_extraction"}]} {}`,
		"empty":             "  \n",
	} {
		_, err := idv.ParseWorkflow([]byte(src))
		assert.Error(t, err, name)
	}
}

func TestValidationErrorNamesFieldAndRule(t *testing.T) {
	_, err := idv.ParseWorkflow([]byte("name: KYC\ndocument_types: [kenya_national_id]\nchecks:\n  - name: ocr_extraction\n  - name: face_matching\n    threshold: 0.59\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "checks[1].threshold")
	assert.Contains(t, err.Error(), "rule range")
	assert.Contains(t, err.Error(), "0.59 is outside [0.60, 0.95]")
}

func TestSteps(t *testing.T) {
	w := baseWorkflow()
	w.Checks = append(w.Checks, idv.CheckSpec{Name: idv.CheckFace, Required: true}, idv.CheckSpec{Name: idv.CheckAge})
	assert.Equal(t, []idv.WorkflowStep{
		{Name: "ocr_extraction", Order: 1, Required: true},
		{Name: "face_matching", Order: 2, Required: true},
		{Name: "age_verification", Order: 3, Required: false},
	}, w.Steps())
}

func FuzzParseWorkflow(f *testing.F) {
	f.Add([]byte("name: KYC basic\ndocument_types: [kenya_national_id]\nchecks:\n  - name: ocr_extraction\n  - name: face_matching\n    threshold: 0.8\n"))
	f.Add([]byte(`{"name":"abc","document_types":["x"],"checks":[{"name":"ocr_extraction","params":{"a":[1,{"b":null}]}}]}`))
	f.Add([]byte("&a [*a, *a]"))
	f.Add([]byte("checks: !!binary AAAA"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := idv.ParseWorkflow(data)
		if err != nil {
			return
		}
		// Whatever parses is valid by the same rules Validate enforces.
		if w.Checks[0].Name != idv.CheckOCR || len(w.Checks) > idv.MaxChecks || len(w.Name) < idv.MinWorkflowName {
			t.Fatalf("invalid workflow accepted: %+v", w)
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("parsed workflow does not validate: %v", err)
		}
	})
}

func TestNeedsSecond(t *testing.T) {
	cases := []struct {
		rule            string
		approve, reject bool
	}{
		{"", false, false},
		{idv.FourEyesOff, false, false},
		{idv.FourEyesRejections, false, true},
		{idv.FourEyesAll, true, true},
	}
	for _, tc := range cases {
		m := idv.ManualReview{Enabled: true, FourEyes: tc.rule}
		assert.Equal(t, tc.approve, m.NeedsSecond(true), "approval under %q", tc.rule)
		assert.Equal(t, tc.reject, m.NeedsSecond(false), "rejection under %q", tc.rule)
	}
}
