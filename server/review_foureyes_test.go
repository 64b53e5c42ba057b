package server_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

// TestReviewFourEyes: under the workflow's four-eyes rule a rejection
// waits for a second, different reviewer (no verdict change, no event);
// its maker cannot confirm it; another reviewer's approval overturns it;
// a confirmation decides the case with verification.failed naming both;
// with four_eyes all an approval waits too.
func TestReviewFourEyes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	def := e.wfFace.Definition
	def.ManualReview = &idv.ManualReview{Enabled: true, FourEyes: idv.FourEyesRejections}
	_, err := e.admin.EditWorkflow(ctx, e.wfFace.ID, def)
	require.NoError(t, err)
	tok := e.token()
	other := jpegBytes(t, blocks(99, 480, 300))
	ids := make([]string, 3)
	for i := range ids {
		r := e.reviewUpload(tok, other)
		require.Equal(t, "review", r.str("verification_decision"))
		ids[i] = r.str("idv_unique_id")
	}
	decide := func(id, decision, reviewer string) response {
		t.Helper()
		return e.call("POST", "/v1/verifications/"+id+"/review/decision", tok,
			map[string]any{"decision": decision, "reason": "face_mismatch", "reviewer": reviewer, "note": "n-" + reviewer})
	}

	// Ann's rejection waits.
	r := decide(ids[0], "reject", "ann@example.com")
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "open", r.str("state"))
	first := r.obj["first_decision"].(map[string]any)
	assert.Equal(t, "reject", first["decision"])
	assert.Equal(t, "ann@example.com", first["reviewer"])
	assert.Empty(t, e.events()["verification.failed"], "no event before the second reviewer")
	v := e.call("GET", "/v1/verifications/"+ids[0], tok, nil)
	assert.Equal(t, "review", v.str("verification_decision"))
	assert.EqualValues(t, 3, e.call("GET", "/v1/reviews", tok, nil).obj["open"], "still in the queue")

	// She cannot confirm it herself, whatever the case of her address.
	again := decide(ids[0], "reject", "ANN@example.com")
	assert.Equal(t, 409, again.code())
	assert.Contains(t, again.str("v_field48"), "another reviewer must confirm or overturn it")

	// Bob overturns it: an approval needs one reviewer under this rule.
	r = decide(ids[0], "approve", "bob@example.com")
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "approved", r.str("state"))
	done := e.events()["verification.completed"]
	require.Len(t, done, 1)
	assert.NotContains(t, string(done[0].Data), "first_reviewer", "an overturned first decision is not a confirmation")

	// Ann rejects, Bob confirms: decided, one event naming both.
	require.Equal(t, 200, decide(ids[1], "reject", "ann@example.com").status)
	r = decide(ids[1], "reject", "bob@example.com")
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "rejected", r.str("state"))
	assert.Equal(t, "bob@example.com", r.str("reviewer"))
	failed := e.events()["verification.failed"]
	require.Len(t, failed, 1)
	assert.Contains(t, string(failed[0].Data), `"first_reviewer":"ann@example.com"`)
	assert.Contains(t, string(failed[0].Data), `"reviewer":"bob@example.com"`)
	late := decide(ids[1], "reject", "carl@example.com")
	assert.Equal(t, 409, late.code())
	assert.Contains(t, late.str("v_field48"), "already decided")

	// Every decision under four_eyes all.
	def.ManualReview.FourEyes = idv.FourEyesAll
	_, err = e.admin.EditWorkflow(ctx, e.wfFace.ID, def)
	require.NoError(t, err)
	r = decide(ids[2], "approve", "ann@example.com")
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "open", r.str("state"))
	r = decide(ids[2], "approve", "carl@example.com")
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "approved", r.str("state"))
	var actions []string
	for _, a := range r.obj["history"].([]any) {
		actions = append(actions, a.(map[string]any)["action"].(string))
	}
	assert.Equal(t, []string{"queued", "approval_proposed", "approved"}, actions)

	// The audit log has both steps of each case.
	count := map[string]int{}
	log, err := e.db.AuditLog(ctx, e.org.ID, server.AuditFilter{})
	require.NoError(t, err)
	for _, a := range log {
		count[a.Action]++
	}
	assert.Equal(t, 2, count["review.rejection_proposed"])
	assert.Equal(t, 1, count["review.approval_proposed"])
	assert.Equal(t, 1, count["review.rejected"])
	assert.Equal(t, 2, count["review.approved"])
}
