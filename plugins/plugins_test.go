package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/plugins/internal/pb"
)

// The test binary doubles as the plugin: when TAMBUA_PLUGIN_TEST_MODE is set,
// TestHelperProcess serves helperCheck instead of running tests.
const modeEnv = "TAMBUA_PLUGIN_TEST_MODE"

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(modeEnv)
	if mode == "" {
		t.Skip("runs only as a plugin process")
	}
	Serve(&helperCheck{mode: mode})
	os.Exit(0)
}

// helperCheck behaves per mode: ok answers from its input, crash exits the
// process mid-run, hang ignores its deadline, garbage answers nonsense.
type helperCheck struct{ mode string }

func (h *helperCheck) Name() string {
	if h.mode == "builtin" {
		return idv.CheckFace
	}
	return "name_length"
}
func (h *helperCheck) Cost() int { return 3 }

func (h *helperCheck) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	switch h.mode {
	case "crash":
		os.Exit(7)
	case "hang":
		time.Sleep(time.Hour)
	case "garbage":
		return idv.Outcome{Status: "banana"}, nil
	case "error":
		return idv.Outcome{}, errors.New("upstream registry unreachable")
	case "panic":
		var m map[string]int
		m["boom"]++
	}
	// A real decision from the input: a name shorter than the threshold's
	// share of 20 letters is a review.
	name := c.Field("full_name")
	conf := float64(len(name)) / 20
	if conf > 1 {
		conf = 1
	}
	out := idv.Passed(conf, idv.ScorePiece{Name: "name_length", Value: conf, Weight: 1})
	out.Flags = []string{fmt.Sprintf("front_bytes_%d", len(c.Images["front"].Data))}
	if m := c.MRZ(); m != nil {
		out.Flags = append(out.Flags, "mrz_"+m.DocumentNumber)
	}
	if v, ok := c.Step.Params["note"].(string); ok {
		out.Flags = append(out.Flags, "param_"+v)
	}
	return out, nil
}

func loadHelper(t *testing.T, mode string, opts Options) *Check {
	t.Helper()
	t.Setenv(modeEnv, mode)
	exe, err := os.Executable()
	require.NoError(t, err)
	opts.Args = append([]string{"-test.run=^TestHelperProcess$"}, opts.Args...)
	c, err := Load(context.Background(), exe, opts)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func testCase() *idv.Case {
	c := idv.NewCase(map[string]idv.Image{"front": {Data: []byte("0123456789")}})
	c.SetFields([]string{"full_name"}, map[string]string{"full_name": "WANJIKU KAMAU"})
	c.SetMRZ(&idv.MRZData{DocumentNumber: "A1234567"})
	c.Step = idv.Step{Params: map[string]any{"note": "hello"}}
	return c
}

func TestPluginRunsWithCaseData(t *testing.T) {
	c := loadHelper(t, "ok", Options{})
	assert.Equal(t, "name_length", c.Name())
	assert.Equal(t, 3, c.Cost())
	out, err := c.Run(context.Background(), testCase())
	require.NoError(t, err)
	assert.Equal(t, idv.StatusPassed, out.Status)
	assert.InDelta(t, 13.0/20, out.Confidence, 1e-9)
	assert.Equal(t, []string{"front_bytes_10", "mrz_A1234567", "param_hello"}, out.Flags)
	require.Len(t, out.Pieces, 1)
	assert.Equal(t, "name_length", out.Pieces[0].Name)
}

func TestPluginFailuresBecomeErrors(t *testing.T) {
	cases := []struct {
		mode string
		want string
	}{
		{"crash", "plugin failed"},
		{"hang", "DeadlineExceeded"},
		{"garbage", `unknown status "banana"`},
		{"error", "upstream registry unreachable"},
		{"panic", "panicked"},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			c := loadHelper(t, tc.mode, Options{Timeout: 500 * time.Millisecond})
			_, err := c.Run(context.Background(), testCase())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCallerDeadlineCrossesTheBoundary(t *testing.T) {
	c := loadHelper(t, "hang", Options{Timeout: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Run(ctx, testCase())
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second, "the caller's deadline, not the hour, ended the call")
}

func TestCrashedPluginRestarts(t *testing.T) {
	c := loadHelper(t, "crash", Options{})
	_, err := c.Run(context.Background(), testCase())
	require.Error(t, err)
	// The next run starts a fresh process; it crashes again, but the host
	// is still here to say so.
	_, err = c.Run(context.Background(), testCase())
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrPlugin))
}

// TestPluginInsideVerification runs the plugin as a step of a workflow: the
// engine cannot tell it from a built-in, and a crashing plugin gives review.
func TestPluginInsideVerification(t *testing.T) {
	ocr := &fixedFields{values: map[string]string{"full_name": "AMINA WANJIRU OTIENO"}}
	for _, tc := range []struct {
		mode     string
		decision idv.Decision
		reasons  []string
	}{
		{"ok", idv.Accept, []string{}},
		{"crash", idv.Review, []string{"name_length_unavailable"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			plug := loadHelper(t, tc.mode, Options{Timeout: 2 * time.Second})
			eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(ocr, plug))
			wf := &idv.Workflow{Name: "with plugin", DocumentTypes: []string{"kenya_national_id"},
				Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: "name_length", Threshold: ptr(0.5)}}}
			p, err := eng.Prepare(wf)
			require.NoError(t, err)
			assert.Equal(t, 5, p.Cost(), "2 for OCR plus the plugin's declared 3")
			res, err := p.Verify(context.Background(), idv.Input{Config: "kenya_national_id",
				Images: map[string]idv.Image{"front": {Data: []byte("x")}, "back": {Data: []byte("y")}}})
			require.NoError(t, err)
			assert.Equal(t, tc.decision, res.Decision)
			assert.Equal(t, tc.reasons, res.DecisionReasons)
		})
	}
}

// fixedFields stands in for OCR in this package's tests: it reports the
// values it was built with, for whatever schema the definition has.
type fixedFields struct{ values map[string]string }

func (f *fixedFields) Name() string { return idv.CheckOCR }
func (f *fixedFields) Cost() int    { return 2 }
func (f *fixedFields) Run(_ context.Context, c *idv.Case) (idv.Outcome, error) {
	c.SetFields(c.Definition.FieldSchema, f.values)
	read := 0
	for _, k := range c.Definition.FieldSchema {
		if strings.TrimSpace(f.values[k]) != "" {
			read++
		}
	}
	return idv.Passed(float64(read) / float64(len(c.Definition.FieldSchema))), nil
}

func ptr(f float64) *float64 { return &f }

func TestLoadRefusesBuiltinNames(t *testing.T) {
	t.Setenv(modeEnv, "builtin")
	exe, err := os.Executable()
	require.NoError(t, err)
	_, err = Load(context.Background(), exe, Options{Args: []string{"-test.run=^TestHelperProcess$"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "belongs to a built-in check")
}

func TestDecodeOutcomeRefusesOutOfContract(t *testing.T) {
	for _, r := range []*pb.RunResponse{
		{Status: "passed", HasConfidence: true, Confidence: 1.5},
		{Status: "passed", HasConfidence: true, Confidence: -0.1},
		{Status: ""},
	} {
		_, err := decodeOutcome(r)
		assert.Error(t, err, "%v", r)
	}
	out, err := decodeOutcome(&pb.RunResponse{Status: "failed", Reasons: []string{"x"}})
	require.NoError(t, err)
	assert.Equal(t, idv.StatusFailed, out.Status)
}
