package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
)

// ReviewBackend is a database with the review queue and the audit log
// (server/sqlite, server/postgres).
type ReviewBackend interface {
	store.Store
	store.Reviews
	store.Audit
}

// RawExecer runs one SQL statement as is. A backend's test binary may
// give its DB this method (in an export_test.go) so the suite can check
// that the schema itself refuses to change the append-only tables.
type RawExecer interface {
	Exec(ctx context.Context, query string) error
}

// RunReviews runs the store.Reviews and store.Audit suite: queueing in the
// completion's transaction, filters, assignment, one winner among
// concurrent decisions, erasure once, the audit log and retention.
func RunReviews(t *testing.T, open func(t *testing.T) ReviewBackend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s ReviewBackend)
	}{
		{"QueueAndDecisions", testReviewQueue},
		{"Filters", testReviewFilters},
		{"ConcurrentDecisionsOneWins", testConcurrentDecisions},
		{"FourEyes", testFourEyes},
		{"ConcurrentFirstDecisionsOneWins", testConcurrentFirstDecisions},
		{"EraseOnce", testErase},
		{"ConcurrentErasuresOnce", testConcurrentErase},
		{"AppendOnly", testAppendOnly},
		{"AuditLog", testAuditLog},
		{"Retention", testRetention},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

// Complete stores one finished verification of workflow wf with the given
// decision, one file, and the reason face_low_confidence.
func Complete(t testing.TB, s store.Store, org store.Organisation, c store.Client, wf, decision string) string {
	t.Helper()
	ctx := context.Background()
	cl := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: wf, RequestID: idv.NewRequestID(), Units: 1}
	require.NoError(t, s.ClaimVerification(ctx, cl))
	res := fmt.Sprintf(`{"idv_unique_id":%q,"verification_decision":%q,"decision_reasons":["face_low_confidence"],"combined":{"surname":"WANJIKU"}}`, cl.ID, decision)
	_, err := s.CompleteVerification(ctx, store.Verification{ID: cl.ID, ClientID: c.ID, OrganisationID: org.ID, WorkflowID: wf,
		RequestID: cl.RequestID, Units: 1, Decision: decision, Result: json.RawMessage(res), Files: map[string]string{"u1": "v/" + cl.ID + "/front.jpg"}}, nil)
	require.NoError(t, err)
	return cl.ID
}

func testReviewQueue(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	other, _ := Fixture(t, s, 0)
	inReview := Complete(t, s, org, c, "wf", "review")
	accepted := Complete(t, s, org, c, "wf", "accept")

	open, err := s.ListReviews(ctx, org.ID, store.ReviewFilter{})
	require.NoError(t, err)
	require.Len(t, open, 1, "only the review verdict is queued")
	assert.Equal(t, inReview, open[0].VerificationID)
	assert.Equal(t, c.ID, open[0].ClientID)
	assert.Equal(t, "review", open[0].AutomatedDecision)
	assert.Equal(t, []string{"face_low_confidence"}, open[0].AutomatedReasons)
	assert.WithinDuration(t, time.Now(), open[0].CreatedAt, time.Minute)
	n, oldest, err := s.CountReviews(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	assert.WithinDuration(t, time.Now(), oldest, time.Minute)
	n, oldest, err = s.CountReviews(ctx, other.ID)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.True(t, oldest.IsZero())

	_, err = s.ReviewCase(ctx, other.ID, inReview)
	assert.ErrorIs(t, err, store.ErrNotFound, "another organisation does not see the case")
	_, err = s.StoredVerification(ctx, other.ID, inReview)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.ReviewCase(ctx, org.ID, accepted)
	assert.ErrorIs(t, err, store.ErrNotInReview)
	_, err = s.ReviewCase(ctx, org.ID, "no-such-id")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.DecideReview(ctx, org.ID, accepted, store.ReviewDecision{Approve: true, Reason: "other", Reviewer: "a"}, nil)
	assert.ErrorIs(t, err, store.ErrNotInReview)
	_, err = s.DecideReview(ctx, other.ID, inReview, store.ReviewDecision{Approve: true, Reason: "other", Reviewer: "a"}, nil)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.AssignReview(ctx, other.ID, inReview, "eve", store.ReviewAction{})
	assert.ErrorIs(t, err, store.ErrNotFound)

	_, err = s.AssignReview(ctx, org.ID, inReview, "ann@example.com", store.ReviewAction{Actor: "admin", Address: "192.0.2.7"})
	require.NoError(t, err)
	rc, err := s.DecideReview(ctx, org.ID, inReview, store.ReviewDecision{Approve: false, Reason: "face_mismatch", Note: "not her",
		Reviewer: "ann@example.com", Actor: "ann@example.com (via client x)", Address: "192.0.2.7"},
		func(rc store.ReviewCase, v store.Verification) ([]store.Event, error) {
			// The events see the decided case and the verdict it set.
			assert.Equal(t, store.ReviewRejected, rc.State)
			assert.Equal(t, "reject", v.Decision)
			return []store.Event{event(org.ID, "verification.failed")}, nil
		})
	require.NoError(t, err)
	assert.Equal(t, store.ReviewRejected, rc.State)
	assert.Equal(t, "face_mismatch", rc.Reason)
	assert.Equal(t, "ann@example.com", rc.Reviewer)
	require.NotNil(t, rc.DecidedAt)
	assert.Equal(t, []string{"verification.failed"}, eventNames(allEvents(t, s)))

	rc, err = s.ReviewCase(ctx, org.ID, inReview)
	require.NoError(t, err)
	assert.Equal(t, "review", rc.AutomatedDecision, "the automated verdict is kept")
	assert.Equal(t, "not her", rc.Note)
	require.Len(t, rc.History, 3)
	var actions []string
	for _, a := range rc.History {
		actions = append(actions, a.Action)
	}
	assert.Equal(t, []string{store.ActionQueued, store.ActionAssigned, store.ActionRejected}, actions)
	assert.Equal(t, "face_low_confidence", rc.History[0].Detail)
	assert.Equal(t, "ann@example.com", rc.History[1].Detail)
	assert.Equal(t, "192.0.2.7", rc.History[2].Address)
	v, err := s.StoredVerification(ctx, org.ID, inReview)
	require.NoError(t, err)
	assert.Equal(t, "reject", v.Decision, "the current verdict is the reviewer's")

	_, err = s.DecideReview(ctx, org.ID, inReview, store.ReviewDecision{Approve: true, Reason: "other", Reviewer: "bob"}, nil)
	assert.ErrorIs(t, err, store.ErrDecided)
	assert.ErrorContains(t, err, "ann@example.com", "the refusal says who decided")
	_, err = s.AssignReview(ctx, org.ID, inReview, "bob", store.ReviewAction{})
	assert.ErrorIs(t, err, store.ErrDecided)
	n, _, err = s.CountReviews(ctx, org.ID)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// testReviewFilters: state, workflow, assignee, age and limit.
func testReviewFilters(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	a1 := Complete(t, s, org, c, "wf-a", "review")
	a2 := Complete(t, s, org, c, "wf-a", "review")
	b1 := Complete(t, s, org, c, "wf-b", "review")
	_, err := s.AssignReview(ctx, org.ID, a2, "ann", store.ReviewAction{Actor: "admin"})
	require.NoError(t, err)
	_, err = s.DecideReview(ctx, org.ID, b1, store.ReviewDecision{Approve: true, Reason: "other", Reviewer: "bob"}, nil)
	require.NoError(t, err)

	ids := func(f store.ReviewFilter) []string {
		cs, err := s.ListReviews(ctx, org.ID, f)
		require.NoError(t, err)
		out := []string{}
		for _, c := range cs {
			out = append(out, c.VerificationID)
		}
		return out
	}
	assert.Equal(t, []string{a1, a2}, ids(store.ReviewFilter{}), "open, oldest first")
	assert.Equal(t, []string{a1, a2, b1}, ids(store.ReviewFilter{State: "all"}))
	assert.Equal(t, []string{b1}, ids(store.ReviewFilter{State: store.ReviewApproved}))
	assert.Empty(t, ids(store.ReviewFilter{State: store.ReviewRejected}))
	assert.Equal(t, []string{b1}, ids(store.ReviewFilter{State: "all", WorkflowID: "wf-b"}))
	assert.Equal(t, []string{a2}, ids(store.ReviewFilter{Assignee: "ann"}))
	assert.Equal(t, []string{a1}, ids(store.ReviewFilter{Assignee: "-"}))
	assert.Equal(t, []string{a1}, ids(store.ReviewFilter{Limit: 1}))
	assert.Empty(t, ids(store.ReviewFilter{OlderThan: time.Hour}), "none queued an hour ago")
	assert.Equal(t, []string{a1, a2}, ids(store.ReviewFilter{OlderThan: time.Nanosecond}))
	assert.Equal(t, []string{a2, a1}, ids(store.ReviewFilter{NewestFirst: true}))
	assert.Equal(t, []string{a2}, ids(store.ReviewFilter{Offset: 1}))
	assert.Equal(t, []string{a1, a2}, ids(store.ReviewFilter{Reason: "face_low_confidence"}))
	assert.Empty(t, ids(store.ReviewFilter{Reason: "face_low"}), "a reason matches whole codes only")
	assert.Empty(t, ids(store.ReviewFilter{Reason: "doc_not_authentic"}))
}

// testFourEyes: a first decision waits on the open case without changing
// the verdict or writing an event; the same reviewer cannot confirm it;
// a decision on a stale view loses with ErrChanged; another reviewer's
// confirmation decides the case and keeps the first decision.
func testFourEyes(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	id := Complete(t, s, org, c, "wf", "review")
	reject := store.ReviewDecision{Reason: "face_mismatch", Note: "not her", Reviewer: "ann", Actor: "ann", First: true}
	rc, err := s.DecideReview(ctx, org.ID, id, reject, func(store.ReviewCase, store.Verification) ([]store.Event, error) {
		t.Error("a first decision writes no event")
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, store.ReviewOpen, rc.State)
	require.NotNil(t, rc.First)
	assert.Equal(t, store.FirstDecision{Approve: false, Reason: "face_mismatch", Note: "not her", Reviewer: "ann", At: rc.First.At}, *rc.First)
	assert.WithinDuration(t, time.Now(), rc.First.At, time.Minute)
	v, err := s.StoredVerification(ctx, org.ID, id)
	require.NoError(t, err)
	assert.Equal(t, "review", v.Decision, "the verdict waits for the second reviewer")
	assert.Empty(t, allEvents(t, s))
	n, _, err := s.CountReviews(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "still in the queue")

	// Ann cannot confirm her own rejection.
	_, err = s.DecideReview(ctx, org.ID, id, store.ReviewDecision{Reason: "face_mismatch", Reviewer: "ann", Seen: "ann"}, nil)
	assert.ErrorIs(t, err, store.ErrSameReviewer)
	// Bob, who opened the case before Ann decided, decides on a stale view.
	_, err = s.DecideReview(ctx, org.ID, id, store.ReviewDecision{Approve: true, Reason: "other", Reviewer: "bob"}, nil)
	assert.ErrorIs(t, err, store.ErrChanged)
	assert.ErrorContains(t, err, "ann's rejection")
	_, err = s.DecideReview(ctx, org.ID, id, store.ReviewDecision{Reason: "other", Reviewer: "bob", Seen: "carl"}, nil)
	assert.ErrorIs(t, err, store.ErrChanged)

	// Bob confirms it: decided, event written, Ann's decision kept.
	rc, err = s.DecideReview(ctx, org.ID, id, store.ReviewDecision{Reason: "face_mismatch", Note: "agreed", Reviewer: "bob", Actor: "bob", Seen: "ann"},
		func(rc store.ReviewCase, v store.Verification) ([]store.Event, error) {
			return []store.Event{event(org.ID, "verification.failed")}, nil
		})
	require.NoError(t, err)
	assert.Equal(t, store.ReviewRejected, rc.State)
	assert.Equal(t, "bob", rc.Reviewer)
	require.NotNil(t, rc.First)
	assert.Equal(t, "ann", rc.First.Reviewer)
	assert.Equal(t, []string{"verification.failed"}, eventNames(allEvents(t, s)))
	rc, err = s.ReviewCase(ctx, org.ID, id)
	require.NoError(t, err)
	var actions []string
	for _, a := range rc.History {
		actions = append(actions, a.Action)
	}
	assert.Equal(t, []string{store.ActionQueued, store.ActionRejectionProposed, store.ActionRejected}, actions)
	log, err := s.AuditLog(ctx, org.ID, store.AuditFilter{})
	require.NoError(t, err)
	require.Len(t, log, 2)
	assert.Equal(t, "review.rejection_proposed", log[1].Action)
	assert.Equal(t, "review.rejected", log[0].Action)
	_, err = s.DecideReview(ctx, org.ID, id, store.ReviewDecision{Reason: "other", Reviewer: "carl", Seen: "ann"}, nil)
	assert.ErrorIs(t, err, store.ErrDecided)

	// A first decision can be replaced by another reviewer's (an
	// overturn that needs a second reviewer itself).
	id2 := Complete(t, s, org, c, "wf", "review")
	_, err = s.DecideReview(ctx, org.ID, id2, store.ReviewDecision{Approve: true, Reason: "other", Reviewer: "ann", First: true}, nil)
	require.NoError(t, err)
	rc, err = s.DecideReview(ctx, org.ID, id2, store.ReviewDecision{Reason: "poor_quality", Reviewer: "bob", Seen: "ann", First: true}, nil)
	require.NoError(t, err)
	assert.Equal(t, store.FirstDecision{Reason: "poor_quality", Reviewer: "bob", At: rc.First.At}, *rc.First)
	rc, err = s.DecideReview(ctx, org.ID, id2, store.ReviewDecision{Reason: "poor_quality", Reviewer: "ann", Seen: "bob"}, nil)
	require.NoError(t, err, "ann may confirm bob's rejection")
	assert.Equal(t, store.ReviewRejected, rc.State)
}

// testConcurrentFirstDecisions: eight reviewers make the first decision of
// one four-eyes case at once; exactly one is recorded, the others get
// ErrChanged naming the winner.
func testConcurrentFirstDecisions(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	id := Complete(t, s, org, c, "wf", "review")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.DecideReview(ctx, org.ID, id, store.ReviewDecision{Reason: "other", Reviewer: fmt.Sprintf("r%d", i), First: true}, nil)
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else {
			assert.ErrorIs(t, err, store.ErrChanged)
		}
	}
	assert.Equal(t, 1, wins)
	rc, err := s.ReviewCase(ctx, org.ID, id)
	require.NoError(t, err)
	require.Len(t, rc.History, 2, "queued and the one first decision")
	require.NotNil(t, rc.First)
	assert.Equal(t, store.ActionRejectionProposed, rc.History[1].Action)
	assert.Equal(t, store.ReviewOpen, rc.State)
}

// testConcurrentDecisions: eight reviewers decide one case at once;
// exactly one wins, one event is written, the others get ErrDecided.
func testConcurrentDecisions(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	id := Complete(t, s, org, c, "wf", "review")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.DecideReview(ctx, org.ID, id, store.ReviewDecision{Approve: i%2 == 0, Reason: "other",
				Reviewer: fmt.Sprintf("r%d", i)}, func(rc store.ReviewCase, v store.Verification) ([]store.Event, error) {
				return []store.Event{event(org.ID, "verification.decided")}, nil
			})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else {
			assert.ErrorIs(t, err, store.ErrDecided)
		}
	}
	assert.Equal(t, 1, wins)
	assert.Equal(t, []string{"verification.decided"}, eventNames(allEvents(t, s)), "one event for the one decision")
	rc, err := s.ReviewCase(ctx, org.ID, id)
	require.NoError(t, err)
	require.Len(t, rc.History, 2, "queued and the one decision")
	v, err := s.StoredVerification(ctx, org.ID, id)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{store.ReviewApproved: "accept", store.ReviewRejected: "reject"}[rc.State], v.Decision)
	log, err := s.AuditLog(ctx, org.ID, store.AuditFilter{})
	require.NoError(t, err)
	assert.Len(t, log, 1, "one audit line for the one decision")
}

func scrub(json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{"erased":true}`), nil }

func testErase(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	other, _ := Fixture(t, s, 0)
	id := Complete(t, s, org, c, "wf", "accept")
	_, _, err := s.EraseVerification(ctx, other.ID, id, scrub, store.ReviewAction{})
	assert.ErrorIs(t, err, store.ErrNotFound, "another organisation cannot erase it")
	_, _, err = s.EraseVerification(ctx, org.ID, "no-such-id", scrub, store.ReviewAction{})
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, _, err = s.EraseVerification(ctx, org.ID, id, func(json.RawMessage) (json.RawMessage, error) {
		return nil, fmt.Errorf("scrubber broke")
	}, store.ReviewAction{})
	assert.ErrorContains(t, err, "scrubber broke")
	v, err := s.StoredVerification(ctx, org.ID, id)
	require.NoError(t, err)
	assert.Nil(t, v.ErasedAt, "a failed erasure changes nothing")
	assert.Len(t, v.Files, 1)

	keys, already, err := s.EraseVerification(ctx, org.ID, id, scrub, store.ReviewAction{Actor: "admin", Address: "192.0.2.1"})
	require.NoError(t, err)
	assert.False(t, already)
	assert.Equal(t, []string{"v/" + id + "/front.jpg"}, keys)
	keys, already, err = s.EraseVerification(ctx, org.ID, id, scrub, store.ReviewAction{Actor: "admin"})
	require.NoError(t, err)
	assert.True(t, already)
	assert.Empty(t, keys)
	v, err = s.StoredVerification(ctx, org.ID, id)
	require.NoError(t, err)
	assert.JSONEq(t, `{"erased":true}`, string(v.Result))
	assert.Empty(t, v.Files)
	require.NotNil(t, v.ErasedAt)
	assert.Equal(t, "accept", v.Decision, "the verdict is kept")
	log, err := s.AuditLog(ctx, org.ID, store.AuditFilter{Action: "verification.erased"})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, id, log[0].ObjectID)
	assert.Equal(t, "192.0.2.1", log[0].Address)
}

// testConcurrentErase: an API erasure and a retention sweep (of another
// replica) erase one verification at once; exactly one does it.
func testConcurrentErase(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	id := Complete(t, s, org, c, "wf", "review")
	var wg sync.WaitGroup
	done := make([]bool, 6)
	for i := range done {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys, already, err := s.EraseVerification(ctx, org.ID, id, scrub, store.ReviewAction{Actor: "retention"})
			assert.NoError(t, err)
			done[i] = !already && len(keys) == 1
		}()
	}
	wg.Wait()
	n := 0
	for _, d := range done {
		if d {
			n++
		}
	}
	assert.Equal(t, 1, n, "one erasure returns the keys, the others find it erased")
	log, err := s.AuditLog(ctx, org.ID, store.AuditFilter{Action: "verification.erased"})
	require.NoError(t, err)
	assert.Len(t, log, 1)
}

func testAppendOnly(t *testing.T, s ReviewBackend) {
	x, ok := s.(RawExecer)
	if !ok {
		t.Skipf("%T has no Exec in this test binary", s)
	}
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	id := Complete(t, s, org, c, "wf", "review")
	require.NoError(t, s.AddAudit(ctx, store.AuditEntry{OrganisationID: org.ID, Actor: "admin", Action: "units.added"}))
	for _, q := range []string{"DELETE FROM review_actions", "UPDATE review_actions SET actor = 'x'",
		"DELETE FROM audit_log", "UPDATE audit_log SET actor = 'x'"} {
		assert.ErrorContains(t, x.Exec(ctx, q), "append-only", q)
	}
	rc, err := s.ReviewCase(ctx, org.ID, id)
	require.NoError(t, err)
	assert.Len(t, rc.History, 1)
	log, err := s.AuditLog(ctx, org.ID, store.AuditFilter{})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "admin", log[0].Actor)
}

func testAuditLog(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	other, _ := Fixture(t, s, 0)
	past := time.Now().Add(-48 * time.Hour).UTC().Truncate(time.Millisecond)
	require.NoError(t, s.AddAudit(ctx, store.AuditEntry{OrganisationID: org.ID, Actor: "admin", Action: "client.created",
		ObjectType: "client", ObjectID: "c1", Detail: "name=x", Address: "192.0.2.9", CreatedAt: past}))
	require.NoError(t, s.AddAudit(ctx, store.AuditEntry{OrganisationID: org.ID, Actor: "admin", Action: "units.added", Detail: "100"}))
	require.NoError(t, s.AddAudit(ctx, store.AuditEntry{OrganisationID: other.ID, Actor: "eve", Action: "units.added"}))
	require.NoError(t, s.AddAudit(ctx, store.AuditEntry{Actor: "root", Action: "organisation.created"}))

	log, err := s.AuditLog(ctx, org.ID, store.AuditFilter{})
	require.NoError(t, err)
	require.Len(t, log, 2, "another organisation's lines are its own")
	assert.Equal(t, "units.added", log[0].Action, "newest first")
	e := log[1]
	assert.Equal(t, store.AuditEntry{ID: e.ID, OrganisationID: org.ID, Actor: "admin", Action: "client.created", ObjectType: "client",
		ObjectID: "c1", Detail: "name=x", Address: "192.0.2.9", CreatedAt: e.CreatedAt}, e)
	assert.True(t, past.Equal(e.CreatedAt), "a given time is kept: %v, want %v", e.CreatedAt, past)
	assert.Greater(t, log[0].ID, e.ID)

	log, err = s.AuditLog(ctx, org.ID, store.AuditFilter{Action: "client.created"})
	require.NoError(t, err)
	assert.Len(t, log, 1)
	log, err = s.AuditLog(ctx, org.ID, store.AuditFilter{Since: time.Now().Add(-time.Hour)})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "units.added", log[0].Action)
	log, err = s.AuditLog(ctx, org.ID, store.AuditFilter{Until: time.Now().Add(-time.Hour)})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "client.created", log[0].Action)
	log, err = s.AuditLog(ctx, org.ID, store.AuditFilter{ObjectID: "c1"})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "client.created", log[0].Action)
	log, err = s.AuditLog(ctx, org.ID, store.AuditFilter{Actor: "admin", Action: "units.added"})
	require.NoError(t, err)
	assert.Len(t, log, 1)
	log, err = s.AuditLog(ctx, org.ID, store.AuditFilter{Actor: "eve"})
	require.NoError(t, err)
	assert.Empty(t, log, "another organisation's actor")
	log, err = s.AuditLog(ctx, org.ID, store.AuditFilter{Limit: 1})
	require.NoError(t, err)
	assert.Len(t, log, 1)
	log, err = s.AuditLog(ctx, 0, store.AuditFilter{})
	require.NoError(t, err)
	require.Len(t, log, 1, "lines outside any organisation")
	assert.Equal(t, "root", log[0].Actor)
}

func testRetention(t *testing.T, s ReviewBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	keep, kc := Fixture(t, s, 100)
	days, err := s.Retention(ctx, org.ID)
	require.NoError(t, err)
	assert.Zero(t, days, "kept by default")
	_, err = s.Retention(ctx, org.ID+keep.ID+100)
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, s.SetRetention(ctx, org.ID+keep.ID+100, 3), store.ErrNotFound)
	assert.Error(t, s.SetRetention(ctx, org.ID, -1))

	first := Complete(t, s, org, c, "wf", "accept")
	second := Complete(t, s, org, c, "wf", "review")
	Complete(t, s, keep, kc, "wf", "accept")
	now := time.Now()
	expired, err := s.ExpiredVerifications(ctx, now.Add(1000*24*time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, expired, "no retention: nothing expires")

	require.NoError(t, s.SetRetention(ctx, org.ID, 30))
	days, err = s.Retention(ctx, org.ID)
	require.NoError(t, err)
	assert.Equal(t, 30, days)
	expired, err = s.ExpiredVerifications(ctx, now.Add(29*24*time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, expired, "within the period")
	expired, err = s.ExpiredVerifications(ctx, now.Add(31*24*time.Hour), 10)
	require.NoError(t, err)
	assert.Equal(t, []store.Expired{{OrganisationID: org.ID, VerificationID: first}, {OrganisationID: org.ID, VerificationID: second}},
		expired, "oldest first, only the organisation with a retention")
	expired, err = s.ExpiredVerifications(ctx, now.Add(31*24*time.Hour), 1)
	require.NoError(t, err)
	assert.Len(t, expired, 1, "the limit holds")

	_, _, err = s.EraseVerification(ctx, org.ID, first, scrub, store.ReviewAction{Actor: "retention"})
	require.NoError(t, err)
	expired, err = s.ExpiredVerifications(ctx, now.Add(31*24*time.Hour), 10)
	require.NoError(t, err)
	assert.Equal(t, []store.Expired{{OrganisationID: org.ID, VerificationID: second}}, expired, "erased ones are done")
	require.NoError(t, s.SetRetention(ctx, org.ID, 0))
	expired, err = s.ExpiredVerifications(ctx, now.Add(31*24*time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, expired, "retention turned off")
}
