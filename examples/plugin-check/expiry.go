package main

import (
	"context"
	"time"

	"github.com/tambua/tambua/idv"
)

// expiry reads the expiry date the earlier checks left on the case: the MRZ
// when its check digits pass, else the printed date_of_expiry field.
type expiry struct{}

var _ idv.Check = (*expiry)(nil)

func (*expiry) Name() string { return "document_expiry" }
func (*expiry) Cost() int    { return 1 }

func (*expiry) Run(_ context.Context, c *idv.Case) (idv.Outcome, error) {
	minDays := 0
	if v, ok := c.Step.Params["min_days_valid"].(float64); ok && v >= 0 {
		minDays = int(v)
	}
	exp, source, ok := expiryDate(c)
	if !ok {
		if _, printed := c.Definition.Field("date_of_expiry"); printed || c.Definition.MRZ != nil {
			// The document has an expiry date but we could not read it.
			return idv.Outcome{Status: idv.StatusReview, Reasons: []string{"expiry_unreadable"}}, nil
		}
		out := idv.Passed(1, idv.ScorePiece{Name: "no_expiry_on_document", Value: 1, Weight: 1})
		out.Flags = []string{"document_has_no_expiry"}
		return out, nil
	}
	today := c.Now.UTC().Truncate(24 * time.Hour)
	days := int(exp.Sub(today).Hours() / 24)
	piece := idv.ScorePiece{Name: "days_valid", Value: float64(days), Weight: 1, Note: "from " + source}
	switch {
	case days < 0:
		return idv.Outcome{Status: idv.StatusFailed, Reasons: []string{"document_expired"}, Pieces: []idv.ScorePiece{piece}}, nil
	case days < minDays:
		return idv.Outcome{Status: idv.StatusReview, Reasons: []string{"document_expires_soon"}, Pieces: []idv.ScorePiece{piece}}, nil
	}
	return idv.Passed(1, piece), nil
}

func expiryDate(c *idv.Case) (time.Time, string, bool) {
	if m := c.MRZ(); m != nil && m.AllChecksPass && m.DateOfExpiry != "" {
		if t, err := time.Parse("2006-01-02", m.DateOfExpiry); err == nil {
			return t, "mrz", true
		}
	}
	if v := c.Field("date_of_expiry"); v != "" {
		if t, err := time.Parse("02.01.2006", v); err == nil {
			return t, "printed field", true
		}
	}
	return time.Time{}, "", false
}

// String is for log lines in the plugin's own stderr.
func (*expiry) String() string { return "document_expiry plugin (protocol 1)" }
