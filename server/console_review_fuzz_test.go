package server

import (
	"net/url"
	"testing"
)

// FuzzReviewQueries drives the query parsers of the audit log (API and
// console) and of the console's queue page: they must never panic, and
// must either refuse with an invalid-input error or return a filter
// within the documented bounds.
func FuzzReviewQueries(f *testing.F) {
	for _, seed := range []string{
		"action=review.approved&actor=ann%40example.com&from=2026-01-01&to=2026-02-01&limit=10",
		"from=2026-01-01T10:00:00Z&to=2026-01-01T09:00:00Z", "limit=0", "limit=99999999999999999999", "to=2026-13-40",
		"actor=a%0Ab", "workflow=wf&reason=face_low_confidence&age=24h&assignee=me&sort=newest&state=all&page=3",
		"age=-1h", "page=0", "state=maybe", "assignee=none", "page=%ff", "%zz",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if af, err := ParseAuditFilter(q); err != nil {
			if reviewErr(err).Code != CodeInvalidRequest {
				t.Fatalf("audit filter error %v is not 104", err)
			}
		} else {
			if af.Limit < 1 || af.Limit > maxAuditRows {
				t.Fatalf("limit %d out of bounds", af.Limit)
			}
			if !af.Since.IsZero() && !af.Until.IsZero() && !af.Since.Before(af.Until) {
				t.Fatalf("from %v not before to %v", af.Since, af.Until)
			}
		}
		rf, _, err := queueFilter(q, "me@example.com")
		if err != nil {
			if reviewErr(err).Code != CodeInvalidRequest {
				t.Fatalf("queue filter error %v is not 104", err)
			}
			return
		}
		if rf.Limit != queuePage || rf.Offset < 0 || rf.OlderThan < 0 {
			t.Fatalf("queue filter out of bounds: %+v", rf)
		}
	})
}
