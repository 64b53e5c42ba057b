package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/plugins"
)

// fields stands for OCR and MRZ in this example's test: it leaves the given
// values and MRZ on the case.
type fields struct {
	values map[string]string
	mrz    *idv.MRZData
}

func (f fields) Name() string { return idv.CheckOCR }
func (f fields) Cost() int    { return 2 }
func (f fields) Run(_ context.Context, c *idv.Case) (idv.Outcome, error) {
	c.SetFields(c.Definition.FieldSchema, f.values)
	if f.mrz != nil {
		c.SetMRZ(f.mrz)
	}
	return idv.Passed(1), nil
}

// TestPluginInsideVerification builds the example as a real plugin binary
// and runs it as a workflow step.
func TestPluginInsideVerification(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "document-expiry")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	plug, err := plugins.Load(context.Background(), bin, plugins.Options{})
	require.NoError(t, err)
	defer plug.Close()

	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		f        fields
		decision idv.Decision
		reasons  []string
	}{
		{"valid printed", fields{values: map[string]string{"date_of_expiry": "01.01.2030"}}, idv.Accept, []string{}},
		{"expired printed", fields{values: map[string]string{"date_of_expiry": "21.11.2026"}}, idv.Reject, []string{"document_expired"}},
		{"expires soon", fields{values: map[string]string{"date_of_expiry": "01.12.2026"}}, idv.Review, []string{"document_expires_soon"}},
		{"MRZ wins when trusted", fields{values: map[string]string{"date_of_expiry": "01.01.2030"},
			mrz: &idv.MRZData{DateOfExpiry: "2020-01-01", AllChecksPass: true}}, idv.Reject, []string{"document_expired"}},
		{"untrusted MRZ ignored", fields{values: map[string]string{"date_of_expiry": "01.01.2030"},
			mrz: &idv.MRZData{DateOfExpiry: "2020-01-01"}}, idv.Accept, []string{}},
		{"unreadable", fields{values: map[string]string{}}, idv.Review, []string{"expiry_unreadable"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(tc.f, plug),
				idv.WithClock(func() time.Time { return now }))
			wf := &idv.Workflow{Name: "expiry", DocumentTypes: []string{"ke_maisha_card"},
				Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: "document_expiry", Params: map[string]any{"min_days_valid": 30}}}}
			res, err := eng.Verify(context.Background(), wf, idv.Input{Config: "ke_maisha_card"})
			require.NoError(t, err)
			assert.Equal(t, tc.decision, res.Decision)
			assert.Equal(t, tc.reasons, res.DecisionReasons)
			assert.Equal(t, 3, res.UnitsConsumed)
		})
	}
}
