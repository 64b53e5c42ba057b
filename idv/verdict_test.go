package idv

import (
	"errors"
	"reflect"
	"testing"
)

// TestJudgeStep walks the tables of docs/engine.md ("Outcomes",
// "Thresholds and manual review") row by row.
func TestJudgeStep(t *testing.T) {
	face, _ := Info(CheckFace)
	reviewing := ManualReview{Enabled: true}
	declining := ManualReview{Enabled: true, AutoDecline: true}
	off := ManualReview{}
	rule := func(mr ManualReview, threshold float64) stepRule {
		return stepRule{name: CheckFace, info: face, threshold: threshold, hasThreshold: threshold > 0, review: mr}
	}
	boom := errors.New("model missing")
	for _, tc := range []struct {
		name    string
		rule    stepRule
		out     Outcome
		err     error
		status  Status
		reasons []string
	}{
		{"passed above threshold", rule(reviewing, 0.75), Passed(0.9), nil, StatusPassed, nil},
		{"passed exactly at threshold", rule(reviewing, 0.75), Passed(0.75), nil, StatusPassed, nil},
		{"passed without threshold", rule(reviewing, 0), Passed(0.1), nil, StatusPassed, nil},
		{"passed without confidence", rule(reviewing, 0.75), Outcome{Status: StatusPassed}, nil, StatusPassed, nil},
		{"below threshold, reviewed", rule(reviewing, 0.75), Passed(0.7), nil, StatusReview, []string{"face_low_confidence"}},
		{"below threshold, auto-decline", rule(declining, 0.75), Passed(0.7), nil, StatusFailed, []string{"face_low_confidence"}},
		{"below threshold, review disabled", rule(off, 0.75), Passed(0.7), nil, StatusFailed, []string{"face_low_confidence"}},
		{"review outcome, reviewed", rule(reviewing, 0), Outcome{Status: StatusReview, Reasons: []string{"x"}}, nil, StatusReview, []string{"x"}},
		{"review outcome, auto-decline", rule(declining, 0), Outcome{Status: StatusReview, Reasons: []string{"x"}}, nil, StatusFailed, []string{"x"}},
		{"review outcome, review disabled", rule(off, 0), Outcome{Status: StatusReview, Reasons: []string{"x"}}, nil, StatusFailed, []string{"x"}},
		{"review outcome without reason, review disabled", rule(off, 0), Outcome{Status: StatusReview}, nil, StatusFailed, []string{"face_matching_failed"}},
		{"failed keeps its reasons", rule(reviewing, 0.75), Failed("face_mismatch"), nil, StatusFailed, []string{"face_mismatch"}},
		{"failed without reason", rule(reviewing, 0), Failed(), nil, StatusFailed, []string{"face_matching_failed"}},
		{"Go error is review, never accept", rule(off, 0.75), Passed(0.99), boom, StatusError, []string{"face_unavailable"}},
		{"error status", rule(reviewing, 0), Outcome{Status: StatusError}, nil, StatusError, []string{"face_unavailable"}},
		{"no status is an error", rule(reviewing, 0), Outcome{}, nil, StatusError, []string{"face_unavailable"}},
		{"error reason not repeated", rule(reviewing, 0), Outcome{Status: StatusError, Reasons: []string{"face_unavailable"}}, nil, StatusError, []string{"face_unavailable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, reasons := judgeStep(tc.rule, tc.out, tc.err)
			if status != tc.status || !reflect.DeepEqual(reasons, tc.reasons) {
				t.Errorf("judgeStep = %s %q, want %s %q", status, reasons, tc.status, tc.reasons)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		statuses []Status
		want     Decision
	}{
		{nil, Accept},
		{[]Status{StatusPassed, StatusPassed}, Accept},
		{[]Status{StatusPassed, StatusReview}, Review},
		{[]Status{StatusError, StatusPassed}, Review},
		{[]Status{StatusReview, StatusFailed, StatusSkipped}, Reject},
		{[]Status{StatusError, StatusFailed}, Reject},
	} {
		if got := decide(tc.statuses); got != tc.want {
			t.Errorf("decide(%v) = %s, want %s", tc.statuses, got, tc.want)
		}
	}
}
