package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/server/store"
)

// reviewData stores, in the database loc names (a SQLite data folder or a
// PostgreSQL URL), an organisation with one verification in review and
// one accepted, stored as the server stores them.
func reviewData(t *testing.T, loc []string) (org int64, inReview, accepted string) {
	t.Helper()
	ctx := context.Background()
	db, err := openBackend(ctx, flagValue(loc, "--data"), flagValue(loc, "--db"))
	require.NoError(t, err)
	defer db.Close()
	o, err := db.CreateOrganisation(ctx, "Acme")
	require.NoError(t, err)
	_, err = db.AddUnits(ctx, o.ID, 100, "test")
	require.NoError(t, err)
	c := store.Client{ID: idv.NewRequestID(), OrganisationID: o.ID, SecretHash: "h", Active: true}
	require.NoError(t, db.CreateClient(ctx, c))
	done := func(decision string) string {
		claim := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: o.ID, WorkflowID: "wf", RequestID: idv.NewRequestID(), Units: 5}
		require.NoError(t, db.ClaimVerification(ctx, claim))
		res := fmt.Sprintf(`{"idv_unique_id":%q,"verification_decision":%q,"decision_reasons":["face_low_confidence"],"combined":{},"check_results":[{"name":"face_matching","status":"review","confidence":0.5,"threshold":0.8,"reasons":["face_low_confidence"],"pieces":[],"units":3}],"units_consumed":5}`, claim.ID, decision)
		_, err := db.CompleteVerification(ctx, store.Verification{ID: claim.ID, ClientID: c.ID, OrganisationID: o.ID, WorkflowID: "wf",
			RequestID: claim.RequestID, Units: 5, Decision: decision, Result: json.RawMessage(res), Files: map[string]string{}}, nil)
		require.NoError(t, err)
		return claim.ID
	}
	return o.ID, done("review"), done("accept")
}

// TestReviewsCommands runs the review and audit commands on SQLite (a
// data folder) and on PostgreSQL (--db), which keep the same queue.
func TestReviewsCommands(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testReviewsCommands(t, []string{"--data", t.TempDir()}) })
	t.Run("postgres", func(t *testing.T) {
		keys := sharedIdentity(t)[:2] // --keys-file F: --db needs the replicas' keys
		testReviewsCommands(t, append([]string{"--data", t.TempDir(), "--db", pgtest.Shared(t).NewDatabase(t)}, keys...))
	})
}

func testReviewsCommands(t *testing.T, loc []string) {
	org, id, accepted := reviewData(t, loc)
	orgArg := fmt.Sprint(org)
	cli := func(args ...string) (int, string, string) { return runCLI(t, "", append(args, loc...)...) }

	code, out, errOut := cli("reviews", "list", "--org", orgArg)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, id)
	assert.NotContains(t, out, accepted)
	assert.Contains(t, out, "1 open")

	code, out, errOut = cli("reviews", "assign", id, "--org", orgArg, "--assignee", "ann@example.com", "--json")
	require.Equal(t, ExitOK, code, errOut)
	var c struct {
		State    string `json:"state"`
		Assignee string `json:"assignee"`
		History  []struct {
			Action string `json:"action"`
			Actor  string `json:"actor"`
		} `json:"history"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	assert.Equal(t, "ann@example.com", c.Assignee)
	assert.Len(t, c.History, 2)

	bad := []struct {
		name string
		args []string
		msg  string
	}{
		{"bad reason", []string{"reviews", "decide", id, "--decision", "approve", "--reason", "fine", "--reviewer", "ann"}, "reason must be one of"},
		{"no reviewer", []string{"reviews", "decide", id, "--decision", "approve", "--reason", "other"}, "reviewer"},
		{"not in review", []string{"reviews", "decide", accepted, "--decision", "reject", "--reason", "other", "--reviewer", "ann"}, "not in review"},
		{"other organisation", []string{"reviews", "decide", id, "--org", "99", "--decision", "reject", "--reason", "other", "--reviewer", "ann"}, "no such verification"},
		{"no org", []string{"reviews", "list"}, "--org"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, loc...)
			if !contains(tc.args, "--org") && tc.name != "no org" {
				args = append(args, "--org", orgArg)
			}
			code, _, errOut := runCLI(t, "", args...)
			assert.Equal(t, ExitBadInput, code)
			assert.Contains(t, errOut, tc.msg)
		})
	}

	code, out, errOut = cli("reviews", "decide", id, "--org", orgArg, "--decision", "reject", "--reason", "face_mismatch",
		"--note", "different person", "--reviewer", "ann@example.com", "--json")
	require.Equal(t, ExitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	assert.Equal(t, "rejected", c.State)
	require.Len(t, c.History, 3)
	assert.True(t, strings.HasPrefix(c.History[2].Actor, "ann@example.com (admin-cli:"), c.History[2].Actor)

	code, _, errOut = cli("reviews", "decide", id, "--org", orgArg, "--decision", "approve", "--reason", "other", "--reviewer", "bob")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "already decided (rejected by ann@example.com")

	// The rejection is in the outbox for the webhooks, with its review.
	db, err := openBackend(context.Background(), flagValue(loc, "--data"), flagValue(loc, "--db"))
	require.NoError(t, err)
	defer db.Close()
	evs, err := db.Events(context.Background(), 0, 100)
	require.NoError(t, err)
	var failed []store.Event
	for _, e := range evs {
		if e.Event == "verification.failed" {
			failed = append(failed, e)
		}
	}
	require.Len(t, failed, 1)
	var d struct {
		Reason      string `json:"reason"`
		FailedCheck string `json:"failed_check"`
		Threshold   float64
		Review      struct {
			Decision, Reason, Reviewer string
		} `json:"review"`
	}
	require.NoError(t, json.Unmarshal(failed[0].Data, &d))
	assert.Equal(t, "face_mismatch", d.Reason)
	assert.Equal(t, "manual_review", d.FailedCheck)
	assert.Equal(t, 0.8, d.Threshold)
	assert.Equal(t, "rejected", d.Review.Decision)
	assert.Equal(t, "ann@example.com", d.Review.Reviewer)
	assert.NotContains(t, string(failed[0].Data), "different person")

	code, out, _ = cli("reviews", "show", id, "--org", orgArg)
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "different person")
	assert.Contains(t, out, "rejected")

	code, out, errOut = cli("audit", "list", "--org", orgArg, "--json")
	require.Equal(t, ExitOK, code, errOut)
	var audit struct {
		Entries []struct {
			Actor, Action string
			ObjectID      string `json:"object_id"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &audit))
	require.Len(t, audit.Entries, 2, out)
	assert.Equal(t, "review.rejected", audit.Entries[0].Action)
	assert.Equal(t, id, audit.Entries[0].ObjectID)
	assert.Contains(t, audit.Entries[0].Actor, "admin-cli:")

	code, out, errOut = cli("org", "retention", "--org", orgArg, "--days", "90", "--json")
	require.Equal(t, ExitOK, code, errOut)
	assert.JSONEq(t, fmt.Sprintf(`{"organisation_id":%d,"retention_days":90}`, org), out)
	code, _, _ = cli("org", "retention", "--org", orgArg, "--days", "-3")
	assert.Equal(t, ExitBadInput, code)
	code, out, _ = cli("audit", "list", "--org", orgArg, "--action", "organisation.retention")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "organisation.retention")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// flagValue returns the value after name in args, "" when absent.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
