package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

// TestSweepDeadCaptures: the start-up sweep of a replica on a shared
// database keeps what running verifications (of other replicas) have: a
// pending claim's captures and fresh temporary files; it removes capture
// folders with no verification row (a dead replica's released claim) and
// temporary files over an hour old.
func TestSweepDeadCaptures(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	front, back := captures(t)
	v := e.upload(e.token(), e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
	require.Equal(t, 200, v.status, string(v.body))
	root := filepath.Join(e.dir, "files")

	// Another replica's running verification: claimed, captures stored.
	running := server.Claim{ID: idv.NewID(), ClientID: e.client.ID, OrganisationID: e.org.ID, WorkflowID: e.wfOCR.ID,
		RequestID: "running", Units: 1}
	require.NoError(t, e.db.ClaimVerification(ctx, running))
	dead := "0123456789abcdef"
	for _, id := range []string{running.ID, dead} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, "v", id), 0o750))
		require.NoError(t, os.WriteFile(filepath.Join(root, "v", id, "front.jpg"), front, 0o640))
	}
	fresh, stale := filepath.Join(root, "v", running.ID, ".put-1"), filepath.Join(root, ".put-2")
	for _, p := range []string{fresh, stale} {
		require.NoError(t, os.WriteFile(p, front[:100], 0o640))
	}
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))

	sw, err := e.srv.SweepDeadCaptures(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sw.Orphans, "the folder with no row")
	assert.Equal(t, 1, sw.Temp, "the hour-old temporary file")
	assert.NoDirExists(t, filepath.Join(root, "v", dead))
	assert.FileExists(t, filepath.Join(root, "v", running.ID, "front.jpg"), "a running verification's capture stays")
	assert.FileExists(t, fresh, "a write under way stays")
	assert.NoFileExists(t, stale)
	assert.Equal(t, 200, e.get(v.str("front_url")).status, "a completed verification's files stay")

	// Released (its replica died and the claim aged out): now it goes.
	_, err = e.db.ReleaseClaimsBefore(ctx, time.Now().Add(time.Minute))
	require.NoError(t, err)
	sw, err = e.srv.SweepDeadCaptures(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sw.Orphans)
	assert.NoDirExists(t, filepath.Join(root, "v", running.ID))
}
