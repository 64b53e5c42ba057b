package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
)

// TestOrgApproveAdmin: an operator records an admin's verification that
// ended in review as accepted; there must be a verification to approve.
func TestOrgApproveAdmin(t *testing.T) {
	data := t.TempDir()
	code, out, errOut := runCLI(t, "", "org", "create", "--data", data, "--name", "Acme", "--json")
	require.Equal(t, ExitOK, code, errOut)
	var org struct {
		ID int64 `json:"organisation_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &org), out)
	id := strconv.FormatInt(org.ID, 10)

	code, _, errOut = runCLI(t, "", "org", "approve-admin", "--data", data, "--org", id)
	assert.Equal(t, ExitBadInput, code, "no verification yet: %s", errOut)
	code, _, _ = runCLI(t, "", "org", "approve-admin", "--data", data)
	assert.Equal(t, ExitBadInput, code, "--org is required")

	// The console recorded a verification that needs a person.
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(data, "tambua.db"))
	require.NoError(t, err)
	require.NoError(t, db.PutOrgProfile(ctx, store.OrgProfile{OrganisationID: org.ID, Industry: "Lending", AdminVerificationID: "av1", AdminVerificationDecision: "review"}))
	require.NoError(t, db.Close())

	code, out, errOut = runCLI(t, "", "org", "approve-admin", "--data", data, "--org", id, "--json")
	require.Equal(t, ExitOK, code, errOut)
	assert.JSONEq(t, `{"organisation_id":`+id+`,"admin_verification_decision":"accept"}`, out)

	db, err = sqlite.Open(ctx, filepath.Join(data, "tambua.db"))
	require.NoError(t, err)
	defer db.Close()
	p, err := db.OrgProfile(ctx, org.ID)
	require.NoError(t, err)
	assert.Equal(t, "accept", p.AdminVerificationDecision)
	assert.Equal(t, "Lending", p.Industry, "the rest of the profile is kept")
	entries, err := db.AuditLog(ctx, org.ID, store.AuditFilter{})
	require.NoError(t, err)
	found := false
	for _, e := range entries {
		found = found || e.Action == "organisation.admin_approved"
	}
	assert.True(t, found, "the approval is in the audit log")
}
