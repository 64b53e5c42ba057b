package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/webhook"
)

// reviewUpload runs one verification of the face workflow; a selfie that
// is not the front's face sends it to review.
func (e *env) reviewUpload(tok string, selfie []byte) response {
	e.t.Helper()
	front, back := captures(e.t)
	r := e.upload(tok, e.uploadMessage(e.wfFace, map[string]any{"metadata": map[string]any{"user_id": "u-77"}}),
		part{"front", front}, part{"back", back}, part{"selfie", selfie})
	require.Equal(e.t, 200, r.status, string(r.body))
	return r
}

// delivered steps the dispatcher once and returns the envelope the HTTPS
// receiver got.
func (e *webhookEnv) delivered(t *testing.T) (webhook.Envelope, []byte) {
	t.Helper()
	d := &webhook.Dispatcher{Store: e.db, Sender: e.sender, Logger: slog.New(slog.DiscardHandler)}
	must(t, d.Step(context.Background()))
	got := <-e.got
	body, err := io.ReadAll(got.Body)
	must(t, err)
	var env webhook.Envelope
	must(t, json.Unmarshal(body, &env))
	return env, body
}

// TestReviewLateOutcome: verifications that end in review are queued; a
// reviewer assigns, approves with a note, and the HTTPS receiver gets
// verification.completed with the review object; deciding again, deciding
// a case not in review, a bad reason and another organisation are
// refused in the error shape; of reviewers deciding at once exactly one
// wins, and a rejection sends verification.failed.
func TestReviewLateOutcome(t *testing.T) {
	e := newWebhookEnv(t)
	tok := e.token()
	front, _ := captures(t)
	other := jpegBytes(t, blocks(99, 480, 300))
	r1 := e.reviewUpload(tok, other)
	r2 := e.reviewUpload(tok, other)
	acc := e.reviewUpload(tok, front)
	require.Equal(t, "review", r1.str("verification_decision"))
	require.Equal(t, "accept", acc.str("verification_decision"))
	id1, id2 := r1.str("idv_unique_id"), r2.str("idv_unique_id")

	hook := e.call("POST", "/v1/webhooks", tok, map[string]any{"type": "event_notification", "name": "Outcomes",
		"url": e.receiver.URL + "/in", "ca_certificate": e.caPEM, "secret": "s3cret",
		"events": []string{"verification.completed", "verification.failed"}})
	require.Equal(t, 201, hook.status, string(hook.body))
	require.Equal(t, 200, e.call("POST", "/v1/webhooks/"+hook.str("id")+"/activate", tok, nil).status)

	q := e.call("GET", "/v1/reviews", tok, nil)
	require.Equal(t, 200, q.status, string(q.body))
	assert.EqualValues(t, 2, q.obj["open"])
	require.Len(t, q.obj["reviews"], 2)
	assert.Equal(t, id1, q.obj["reviews"].([]any)[0].(map[string]any)["idv_unique_id"], "oldest first")
	assert.Contains(t, string(q.body), "face_low_confidence")

	r := e.call("POST", "/v1/verifications/"+id1+"/review/assign", tok, map[string]any{"assignee": "ann@example.com"})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "ann@example.com", r.str("assignee"))
	mine := e.call("GET", "/v1/reviews?assignee=ann@example.com", tok, nil)
	assert.Len(t, mine.obj["reviews"], 1)

	bad := []struct {
		name string
		id   string
		body any
		code int
	}{
		{"unknown reason", id1, map[string]any{"decision": "approve", "reason": "looks_fine", "reviewer": "ann@example.com"}, 104},
		{"unknown decision", id1, map[string]any{"decision": "maybe", "reason": "other", "reviewer": "ann@example.com"}, 104},
		{"no reviewer", id1, map[string]any{"decision": "approve", "reason": "other"}, 104},
		{"unknown field", id1, map[string]any{"decision": "approve", "reason": "other", "reviewer": "a", "verdict": "x"}, 104},
		{"not in review", acc.str("idv_unique_id"), map[string]any{"decision": "reject", "reason": "other", "reviewer": "ann@example.com"}, 409},
		{"no such verification", "nope", map[string]any{"decision": "reject", "reason": "other", "reviewer": "ann@example.com"}, 404},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call("POST", "/v1/verifications/"+tc.id+"/review/decision", tok, tc.body)
			assert.Equal(t, tc.code, r.code(), string(r.body))
			assert.NotEmpty(t, r.str("v_field48"))
		})
	}

	approve := map[string]any{"decision": "approve", "reason": "other", "note": "selfie taken in poor light; matches on inspection", "reviewer": "ann@example.com"}
	r = e.call("POST", "/v1/verifications/"+id1+"/review/decision", tok, approve)
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "approved", r.str("state"))

	env, body := e.delivered(t)
	require.Equal(t, "verification.completed", env.Event)
	var done webhook.VerificationCompleted
	dec := json.NewDecoder(bytes.NewReader(env.Data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&done), string(env.Data))
	assert.Equal(t, id1, done.VerificationID)
	assert.Equal(t, "accept", done.Status)
	assert.Equal(t, "u-77", done.Metadata["user_id"])
	require.NotNil(t, done.Review)
	assert.Equal(t, webhook.ReviewOutcome{Decision: "approved", Reason: "other", Reviewer: "ann@example.com", DecidedAt: done.Review.DecidedAt}, *done.Review)
	assert.NotEmpty(t, done.Review.DecidedAt)
	assert.NotContains(t, string(body), "poor light", "the reviewer's note stays inside")

	again := e.call("POST", "/v1/verifications/"+id1+"/review/decision", tok, map[string]any{"decision": "reject", "reason": "face_mismatch", "reviewer": "bob@example.com"})
	assert.Equal(t, 409, again.code())
	assert.Contains(t, again.str("v_field48"), "already decided (approved by ann@example.com")
	assert.Equal(t, 409, e.call("POST", "/v1/verifications/"+id1+"/review/assign", tok, map[string]any{"assignee": "bob"}).code())

	// Another organisation sees none of it.
	orgB, err := e.admin.CreateOrganisation(context.Background(), "Other")
	must(t, err)
	clientB, secretB, err := e.admin.CreateClient(context.Background(), orgB.ID, "other")
	must(t, err)
	tokB := e.tokenFor(clientB.ID, secretB)
	assert.Equal(t, 404, e.call("GET", "/v1/verifications/"+id1, tokB, nil).status)
	assert.Equal(t, 404, e.call("POST", "/v1/verifications/"+id2+"/review/decision", tokB, approve).status)
	qb := e.call("GET", "/v1/reviews", tokB, nil)
	assert.EqualValues(t, 0, qb.obj["open"])
	assert.NotContains(t, string(qb.body), id2)

	// The current verdict, the automated one and the history.
	v := e.call("GET", "/v1/verifications/"+id1, tok, nil)
	require.Equal(t, 200, v.status, string(v.body))
	assert.Equal(t, "accept", v.str("verification_decision"))
	assert.Equal(t, "review", v.str("automated_decision"))
	rev := v.obj["review"].(map[string]any)
	var actions []string
	for _, a := range rev["history"].([]any) {
		actions = append(actions, a.(map[string]any)["action"].(string))
	}
	assert.Equal(t, []string{"queued", "assigned", "approved"}, actions)
	assert.Equal(t, "selfie taken in poor light; matches on inspection", rev["note"])
	assert.Equal(t, 200, e.get(v.str("front_url")).status, "the view mints working file URLs")

	// Six reviewers decide id2 at once: exactly one wins.
	var wg sync.WaitGroup
	statuses := make([]response, 6)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = e.call("POST", "/v1/verifications/"+id2+"/review/decision", tok, map[string]any{
				"decision": "reject", "reason": "face_mismatch", "reviewer": "reviewer" + string(rune('a'+i)) + "@example.com"})
		}()
	}
	wg.Wait()
	wins := 0
	for _, s := range statuses {
		switch s.status {
		case 200:
			wins++
		case 409:
			assert.Contains(t, s.str("v_field48"), "already decided")
		default:
			t.Errorf("unexpected answer %d: %s", s.status, s.body)
		}
	}
	assert.Equal(t, 1, wins)
	env, _ = e.delivered(t)
	require.Equal(t, "verification.failed", env.Event)
	var failed webhook.VerificationFailed
	dec = json.NewDecoder(bytes.NewReader(env.Data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&failed), string(env.Data))
	assert.Equal(t, id2, failed.VerificationID)
	assert.Equal(t, "reject", failed.Status)
	assert.Equal(t, "face_mismatch", failed.Reason)
	assert.Equal(t, "manual_review", failed.FailedCheck)
	assert.Greater(t, failed.Threshold, 0.0, "the threshold of the check that sent it to review")
	require.NotNil(t, failed.Review)
	assert.Equal(t, "rejected", failed.Review.Decision)
	assert.Len(t, e.events()["verification.failed"], 1, "one event for the one decision")
	assert.EqualValues(t, 0, e.call("GET", "/v1/reviews", tok, nil).obj["open"])

	// The audit log: who, what, which verification, from where; one
	// decision line for id2 whatever the race.
	log, err := e.db.AuditLog(context.Background(), e.org.ID, server.AuditFilter{})
	require.NoError(t, err)
	count := map[string]int{}
	for _, a := range log {
		count[a.Action+" "+a.ObjectID]++
		if strings.HasPrefix(a.Action, "review.") {
			assert.Contains(t, a.Actor, e.client.ID)
			assert.NotEmpty(t, a.Address, "the caller's address")
		}
	}
	assert.Equal(t, 1, count["review.assigned "+id1])
	assert.Equal(t, 1, count["review.approved "+id1])
	assert.Equal(t, 1, count["review.rejected "+id2])
	_, err = e.db.AuditLog(context.Background(), orgB.ID, server.AuditFilter{})
	require.NoError(t, err)
}

// TestEraseVerification: DELETE removes the images from the disk and the
// personal fields from the stored result, idempotently; minted URLs stop
// working; another organisation cannot erase.
func TestEraseVerification(t *testing.T) {
	e := newEnv(t)
	tok := e.token()
	front, back := captures(t)
	msg := e.uploadMessage(e.wfFace, map[string]any{"request_id": "erase-1", "metadata": map[string]any{"user_id": "u-9"}})
	r := e.upload(tok, msg, part{"front", front}, part{"back", back}, part{"selfie", front})
	require.Equal(t, 200, r.status, string(r.body))
	id := r.str("idv_unique_id")
	dir := filepath.Join(e.dir, "files", "v", id)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(entries), 3, "captures and derived images on disk")
	frontURL := r.str("front_url")
	require.Equal(t, 200, e.get(frontURL).status)
	personal := []string{"u-9", "front_url", "/v/" + id + "/"}
	for _, s := range personal {
		require.Contains(t, string(r.body), s)
	}

	orgB, err := e.admin.CreateOrganisation(context.Background(), "Other")
	must(t, err)
	clientB, secretB, err := e.admin.CreateClient(context.Background(), orgB.ID, "other")
	must(t, err)
	assert.Equal(t, 404, e.call("DELETE", "/v1/verifications/"+id, e.tokenFor(clientB.ID, secretB), nil).status)
	_, err = os.Stat(dir)
	require.NoError(t, err, "another organisation's DELETE removes nothing")

	d1 := e.call("DELETE", "/v1/verifications/"+id, tok, nil)
	require.Equal(t, 200, d1.status, string(d1.body))
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "the verification's folder is gone: %v", err)
	assert.Equal(t, 404, e.get(frontURL).status, "a minted URL stops working")
	assert.NotEmpty(t, d1.str("erased_at"))
	assert.Equal(t, "accept", d1.str("verification_decision"), "the verdict is kept")
	assert.Equal(t, map[string]any{}, d1.obj["combined"])
	assert.Equal(t, map[string]any{}, d1.obj["images"])
	assert.Equal(t, map[string]any{"status": "erased"}, d1.obj["photo_comparison"])
	for _, s := range personal {
		assert.NotContains(t, string(d1.body), s)
	}

	d2 := e.call("DELETE", "/v1/verifications/"+id, tok, nil)
	require.Equal(t, 200, d2.status, string(d2.body))
	assert.Equal(t, d1.str("erased_at"), d2.str("erased_at"), "erasing twice changes nothing")
	g := e.call("GET", "/v1/verifications/"+id, tok, nil)
	assert.JSONEq(t, string(d1.body), string(g.body))

	// A retry of the original request gets the erased result, not the
	// images back.
	again := e.upload(tok, msg, part{"front", front}, part{"back", back}, part{"selfie", front})
	require.Equal(t, 200, again.status, string(again.body))
	assert.NotContains(t, string(again.body), "/v/"+id+"/")
	assert.Equal(t, 404, e.call("DELETE", "/v1/verifications/no-such-id", tok, nil).status)
	assert.Equal(t, 405, e.call("PUT", "/v1/verifications/"+id, tok, nil).status)
	sdk := e.scopedToken(e.wfFace)
	assert.Equal(t, 403, e.call("GET", "/v1/verifications/"+id, sdk, nil).status, "SDK tokens cannot read verifications")
	assert.False(t, strings.Contains(e.logs.String(), "u-9"), "no personal data in the logs")
}

var _ = server.ReviewReasons

// TestRetentionSweep: an organisation's retention erases its verifications
// once the period has passed, as DELETE does, and the audit log says so.
func TestRetentionSweep(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tok := e.token()
	front, back := captures(t)
	r := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
	id := r.str("idv_unique_id")
	dir := filepath.Join(e.dir, "files", "v", id)

	n, err := e.srv.SweepRetention(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "no retention set: kept")
	must(t, e.db.SetRetention(ctx, e.org.ID, 30))
	e.clock.Store(int64(29 * 24 * time.Hour))
	n, err = e.srv.SweepRetention(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "within the period: kept")
	_, err = os.Stat(dir)
	require.NoError(t, err)

	e.clock.Store(int64(31 * 24 * time.Hour))
	n, err = e.srv.SweepRetention(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "files gone: %v", err)
	v, err := e.db.StoredVerification(ctx, e.org.ID, id)
	require.NoError(t, err)
	require.NotNil(t, v.ErasedAt)
	assert.NotContains(t, string(v.Result), "front_url")
	n, err = e.srv.SweepRetention(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "erased once")

	log, err := e.db.AuditLog(ctx, e.org.ID, server.AuditFilter{Action: "verification.erased"})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "retention", log[0].Actor)
	assert.Equal(t, id, log[0].ObjectID)
}
