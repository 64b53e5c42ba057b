package idv

// The verdict rules of docs/engine.md, as pure functions: the engine's
// loop runs checks and records results; what an outcome means is decided
// here and nowhere else.

// stepRule is what the workflow says about one step.
type stepRule struct {
	name         string
	info         CheckInfo
	threshold    float64
	hasThreshold bool
	review       ManualReview
}

// judgeStep turns one check's outcome (or its error) into the step's
// status and reasons:
//   - an error, a panic, an error status or no status is StatusError with
//     the check's unavailable reason: no evidence either way, so review;
//   - a passed outcome below the step's threshold is StatusReview with the
//     check's low-confidence reason (a confidence at the threshold passes);
//   - review where nobody reviews (manual review disabled or auto-decline
//     on) becomes StatusFailed;
//   - a failure without a reason gets "<check>_failed".
func judgeStep(rule stepRule, out Outcome, runErr error) (status Status, reasons []string) {
	reasons = append([]string(nil), out.Reasons...)
	status = out.Status
	switch {
	case runErr != nil || status == StatusError || status == "":
		return StatusError, appendUnique(reasons, rule.info.ErrorReason)
	case status == StatusPassed && rule.hasThreshold && out.HasConfidence && out.Confidence < rule.threshold:
		status = StatusReview
		reasons = appendUnique(reasons, rule.info.LowConfidenceReason)
	}
	if status == StatusReview && !rule.review.canReview() {
		status = StatusFailed
	}
	if status == StatusFailed && len(reasons) == 0 {
		reasons = []string{rule.name + "_failed"}
	}
	return status, reasons
}

// decide is the verification's decision from its steps' statuses: any
// failure rejects; otherwise any review or error sends it to review;
// otherwise (skipped steps follow only a failure) it is accepted.
func decide(statuses []Status) Decision {
	d := Accept
	for _, s := range statuses {
		switch s {
		case StatusFailed:
			return Reject
		case StatusReview, StatusError:
			d = Review
		}
	}
	return d
}

func (m ManualReview) canReview() bool { return m.Enabled && !m.AutoDecline }
