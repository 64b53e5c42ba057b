package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs a tambua command in-process with stdin and returns its exit
// status and output.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: os.Getenv}
	code := Run(context.Background(), env, args)
	return code, out.String(), errb.String()
}

func TestDocdefsList(t *testing.T) {
	code, out, _ := runCLI(t, "", "docdefs", "list")
	require.Equal(t, ExitOK, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Len(t, lines, 17, "a header and 16 definitions")
	assert.Contains(t, out, "kenya_national_id")
	for _, l := range lines {
		if strings.HasPrefix(l, "generic_") {
			assert.True(t, strings.HasSuffix(l, "generic"), "generic definitions say so in LAYOUT: %q", l)
		}
	}
	assert.Contains(t, out, "generic_passport")
	assert.Contains(t, out, "generic_id_card")
}

func TestDocdefsShowJSON(t *testing.T) {
	code, out, _ := runCLI(t, "", "docdefs", "show", "kenya_national_id", "--json")
	require.Equal(t, ExitOK, code)
	var d struct {
		FieldSchema []string `json:"field_schema"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Equal(t, []string{"national_id_number", "serial_number", "full_name", "date_of_birth", "sex",
		"place_of_birth", "date_of_issue", "district", "division", "location", "sub_location", "document_type"}, d.FieldSchema)

	code, _, errOut := runCLI(t, "", "docdefs", "show", "atlantis_id")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "unknown config")
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestWorkflowValidate(t *testing.T) {
	wf := func(th string) string {
		return "name: KYC basic\ndocument_types: [kenya_national_id]\nchecks:\n  - name: ocr_extraction\n  - name: face_matching\n    threshold: " + th + "\n"
	}
	code, out, _ := runCLI(t, "", "workflow", "validate", writeFile(t, "ok.yaml", wf("0.60")))
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "5 units per verification")

	code, _, errOut := runCLI(t, "", "workflow", "validate", writeFile(t, "bad.yaml", wf("0.59")))
	assert.Equal(t, ExitBadInput, code)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line on stderr")
	assert.Contains(t, errOut, "checks[1].threshold")

	code, _, errOut = runCLI(t, "", "workflow", "validate", writeFile(t, "type.yaml",
		"name: abc\ndocument_types: [atlantis_id]\nchecks: [{name: ocr_extraction}]\n"))
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, `unknown config "atlantis_id"`)

	code, _, _ = runCLI(t, "", "workflow", "validate", filepath.Join(t.TempDir(), "missing.yaml"))
	assert.Equal(t, ExitBadInput, code)
}

// TestWorkflowValidateStepParams: a step's params are checked by the check
// that runs them (idv.StepValidator), as the server checks them when a
// workflow is created, so a workflow that could never be prepared fails
// here with one line naming the step.
func TestWorkflowValidateStepParams(t *testing.T) {
	wf := func(step string) string {
		return "name: KYC screening\ndocument_types: [kenya_national_id]\nchecks:\n  - name: ocr_extraction\n  - name: mrz_parsing\n" + step
	}
	tests := []struct {
		name, step string
		want       string // "" when valid
	}{
		{"sanctions defaults", "  - name: sanctions_screening\n", ""},
		{"sanctions params", "  - name: sanctions_screening\n    params: {threshold: 0.9, lists: [ofac_sdn, un_sc, pep]}\n", ""},
		{"sanctions threshold above one", "  - name: sanctions_screening\n    params: {threshold: 1.5}\n",
			"checks[2] sanctions_screening: sanctions_screening: params.threshold must be a number in (0, 1], got 1.5"},
		{"sanctions threshold as text", "  - name: sanctions_screening\n    params: {threshold: high}\n", "params.threshold"},
		{"sanctions unknown param", "  - name: sanctions_screening\n    params: {treshold: 0.9}\n", `unknown param "treshold"`},
		{"sanctions unknown list", "  - name: sanctions_screening\n    params: {lists: [ofac]}\n", `unknown list "ofac"`},
		{"sanctions workflow threshold", "  - name: sanctions_screening\n    threshold: 0.9\n", "has no confidence threshold"},
		{"age out of range", "  - name: age_verification\n    params: {min_age: 500}\n", "checks[2] age_verification"},
		{"face band above threshold", "  - name: face_matching\n    params: {review_band: 0.9}\n", "checks[2] face_matching"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", "workflow", "validate", writeFile(t, "wf.yaml", wf(tc.step)))
			if tc.want == "" {
				assert.Equal(t, ExitOK, code, errOut)
				assert.Contains(t, out, "valid workflow")
				return
			}
			assert.Equal(t, ExitBadInput, code, out)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line on stderr: %q", errOut)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

func TestVerifyBadInput(t *testing.T) {
	img := writeFile(t, "front.jpg", "not really a jpeg")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing flags", []string{"verify", "--front", img}, "required"},
		{"unknown config", []string{"verify", "--front", img, "--back", img, "--config", "atlantis_id", "--checks", "ocr_extraction"}, "unknown config"},
		{"both workflow and checks", []string{"verify", "--front", img, "--back", img, "--config", "kenya_national_id"}, "exactly one"},
		{"missing file", []string{"verify", "--front", img + ".nope", "--back", img, "--config", "kenya_national_id", "--checks", "ocr_extraction"}, "no such file"},
		{"bad slot", []string{"verify", "--front", img, "--back", img, "--slot", "../x=" + img, "--config", "kenya_national_id", "--checks", "ocr_extraction"}, "NAME=FILE"},
		{"OCR not first", []string{"verify", "--front", img, "--back", img, "--config", "kenya_national_id", "--checks", "face_matching"}, "first check must be"},
		{"unknown check", []string{"verify", "--front", img, "--back", img, "--config", "kenya_national_id", "--checks", "ocr_extraction,palm_reading"}, "palm_reading"},
		{"unknown flag", []string{"verify", "--frnot", img}, "flag provided but not defined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", tc.args...)
			assert.Equal(t, ExitBadInput, code, errOut)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

func TestUnknownCommand(t *testing.T) {
	code, _, errOut := runCLI(t, "", "frobnicate")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "unknown command")
	code, out, _ := runCLI(t, "", "help")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "docdefs list")
}

// The synthetic corpora draw no visa: naming one for them is a usage
// error that points to -specimens, not a failure half way through.
func TestBenchOCRRefusesVisaDefs(t *testing.T) {
	code, _, errOut := runCLI(t, "", "bench", "ocr", "-defs", "generic_visa_a", "-n", "1", "-levels", "easy")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "-specimens")
}
