package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
)

// complete stores one finished verification with the given decision.
func complete(t *testing.T, db *sqlite.DB, org store.Organisation, c store.Client, decision string) string {
	t.Helper()
	ctx := context.Background()
	claim := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "wf", RequestID: idv.NewRequestID(), Units: 1}
	require.NoError(t, db.ClaimVerification(ctx, claim))
	res := fmt.Sprintf(`{"idv_unique_id":%q,"verification_decision":%q,"decision_reasons":["face_low_confidence"],"combined":{"surname":"WANJIKU"}}`, claim.ID, decision)
	_, err := db.CompleteVerification(ctx, store.Verification{ID: claim.ID, ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "wf",
		RequestID: claim.RequestID, Units: 1, Decision: decision, Result: json.RawMessage(res), Files: map[string]string{"u1": "v/" + claim.ID + "/front.jpg"}}, nil)
	require.NoError(t, err)
	return claim.ID
}

func TestReviewQueueAndDecisions(t *testing.T) {
	ctx := context.Background()
	db := open(t, filepath.Join(t.TempDir(), "t.db"))
	org, c := fixture(t, db, 100)
	other, _ := fixture(t, db, 0)
	inReview := complete(t, db, org, c, "review")
	accepted := complete(t, db, org, c, "accept")

	open, err := db.ListReviews(ctx, org.ID, store.ReviewFilter{})
	require.NoError(t, err)
	require.Len(t, open, 1, "only the review verdict is queued")
	assert.Equal(t, inReview, open[0].VerificationID)
	assert.Equal(t, []string{"face_low_confidence"}, open[0].AutomatedReasons)
	n, oldest, err := db.CountReviews(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	assert.False(t, oldest.IsZero())

	_, err = db.ReviewCase(ctx, other.ID, inReview)
	assert.ErrorIs(t, err, store.ErrNotFound, "another organisation does not see the case")
	_, err = db.ReviewCase(ctx, org.ID, accepted)
	assert.ErrorIs(t, err, store.ErrNotInReview)
	_, err = db.DecideReview(ctx, org.ID, accepted, store.ReviewDecision{Approve: true, Reason: "other", Reviewer: "a"}, nil)
	assert.ErrorIs(t, err, store.ErrNotInReview)
	_, err = db.DecideReview(ctx, other.ID, inReview, store.ReviewDecision{Approve: true, Reason: "other", Reviewer: "a"}, nil)
	assert.ErrorIs(t, err, store.ErrNotFound)

	_, err = db.AssignReview(ctx, org.ID, inReview, "ann@example.com", store.ReviewAction{Actor: "admin"})
	require.NoError(t, err)
	mine, err := db.ListReviews(ctx, org.ID, store.ReviewFilter{Assignee: "ann@example.com"})
	require.NoError(t, err)
	assert.Len(t, mine, 1)

	// Eight reviewers decide at once: exactly one wins.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.DecideReview(ctx, org.ID, inReview, store.ReviewDecision{Approve: i%2 == 0, Reason: "other",
				Reviewer: fmt.Sprintf("r%d", i)}, func(rc store.ReviewCase, v store.Verification) ([]store.Event, error) {
				return []store.Event{{Event: "verification.completed", OrganisationID: org.ID, Data: json.RawMessage(`{}`)}}, nil
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
	evs, err := db.Events(ctx, 0, 100)
	require.NoError(t, err)
	decided := 0
	for _, e := range evs {
		if e.Event == "verification.completed" {
			decided++
		}
	}
	assert.Equal(t, 1, decided, "one event for the one decision")

	rc, err := db.ReviewCase(ctx, org.ID, inReview)
	require.NoError(t, err)
	assert.NotEqual(t, store.ReviewOpen, rc.State)
	require.Len(t, rc.History, 3)
	assert.Equal(t, []string{store.ActionQueued, store.ActionAssigned}, []string{rc.History[0].Action, rc.History[1].Action})
	v, err := db.StoredVerification(ctx, org.ID, inReview)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{store.ReviewApproved: "accept", store.ReviewRejected: "reject"}[rc.State], v.Decision)
	_, err = db.AssignReview(ctx, org.ID, inReview, "bob", store.ReviewAction{})
	assert.ErrorIs(t, err, store.ErrDecided)

	// Erasure: once, then a no-op; the history is append-only.
	scrub := func(json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{"erased":true}`), nil }
	keys, already, err := db.EraseVerification(ctx, org.ID, inReview, scrub, store.ReviewAction{Actor: "admin"})
	require.NoError(t, err)
	assert.False(t, already)
	assert.Equal(t, []string{"v/" + inReview + "/front.jpg"}, keys)
	keys, already, err = db.EraseVerification(ctx, org.ID, inReview, scrub, store.ReviewAction{Actor: "admin"})
	require.NoError(t, err)
	assert.True(t, already)
	assert.Empty(t, keys)
	_, _, err = db.EraseVerification(ctx, other.ID, inReview, scrub, store.ReviewAction{})
	assert.ErrorIs(t, err, store.ErrNotFound)
	v, err = db.StoredVerification(ctx, org.ID, inReview)
	require.NoError(t, err)
	assert.JSONEq(t, `{"erased":true}`, string(v.Result))
	assert.Empty(t, v.Files)
	require.NotNil(t, v.ErasedAt)

	err = db.Exec(ctx, "DELETE FROM review_actions")
	assert.ErrorContains(t, err, "append-only")
	err = db.Exec(ctx, "UPDATE review_actions SET actor = 'x'")
	assert.ErrorContains(t, err, "append-only")
	rc, err = db.ReviewCase(ctx, org.ID, inReview)
	require.NoError(t, err)
	assert.Len(t, rc.History, 4, "decision and erasure lines kept")
	log, err := db.AuditLog(ctx, org.ID, store.AuditFilter{})
	require.NoError(t, err)
	require.Len(t, log, 3, "assigned, decided, erased (queueing is the system's)")
	assert.Equal(t, "verification.erased", log[0].Action, "newest first")
	assert.ErrorContains(t, db.Exec(ctx, "DELETE FROM audit_log"), "append-only")
	assert.ErrorContains(t, db.Exec(ctx, "UPDATE audit_log SET actor = 'x'"), "append-only")
	none, err := db.AuditLog(ctx, other.ID, store.AuditFilter{})
	require.NoError(t, err)
	assert.Empty(t, none, "another organisation's log is its own")
}
