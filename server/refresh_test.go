package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

// TestWorkflowRefreshTokenLifecycle (issue 14, medium 6): rotation
// revokes the old token at once, an optional lifetime ends the new one,
// archiving revokes and re-activating does not restore, and an edit never
// writes an old token back.
func TestWorkflowRefreshTokenLifecycle(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	// refresh answers 200 on success, else the v_field39 code.
	refresh := func(tok string) int {
		r := e.postJSON("/postdata", "", envelope("auth_config", "refreshAccessToken",
			map[string]any{"refresh_token": tok, "organisation_id": e.org.ID}))
		if r.status == 200 && r.str("access_token") != "" {
			return 200
		}
		return r.code()
	}
	first := e.wfFace.RefreshToken
	require.Equal(t, 200, refresh(first))
	_, ok := server.RefreshTokenExpiry(first)
	assert.False(t, ok, "a token made at creation has no lifetime")

	rotated, err := e.admin.RotateRefreshToken(ctx, e.wfFace.ID, 0)
	require.NoError(t, err)
	require.NotEqual(t, first, rotated.RefreshToken)
	stored, err := e.db.Workflow(ctx, e.wfFace.ID)
	require.NoError(t, err)
	assert.Equal(t, rotated.RefreshToken, stored.RefreshToken)

	// An edit made from a read taken before the rotation keeps the new
	// token.
	edited := e.wfFace.Definition
	edited.Description = "edited after the rotation"
	_, err = e.admin.EditWorkflow(ctx, e.wfFace.ID, edited)
	require.NoError(t, err)

	tests := []struct {
		name string
		tok  string
		want int
	}{
		{"old token after rotation", first, 401},
		{"new token", rotated.RefreshToken, 200},
		{"other workflow's token unaffected", e.wfOCR.RefreshToken, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, refresh(tc.tok)) })
	}

	t.Run("lifetime", func(t *testing.T) {
		w, err := e.admin.RotateRefreshToken(ctx, e.wfFace.ID, time.Hour)
		require.NoError(t, err)
		at, ok := server.RefreshTokenExpiry(w.RefreshToken)
		require.True(t, ok)
		assert.WithinDuration(t, time.Now().Add(time.Hour), at, 5*time.Second)
		assert.Equal(t, 200, refresh(w.RefreshToken))
		assert.Equal(t, 401, refresh(rotated.RefreshToken), "the rotation revoked the previous token")
		e.clock.Add(int64(59 * time.Minute))
		assert.Equal(t, 200, refresh(w.RefreshToken), "within its lifetime")
		e.clock.Add(int64(2 * time.Minute))
		assert.Equal(t, 401, refresh(w.RefreshToken), "past its lifetime")
		e.clock.Store(0)
		_, err = e.admin.RotateRefreshToken(ctx, e.wfFace.ID, -time.Second)
		assert.Equal(t, idv.EInvalid, idv.ErrorCode(err))
	})

	t.Run("archive revokes, activate does not restore", func(t *testing.T) {
		before, err := e.admin.RotateRefreshToken(ctx, e.wfFace.ID, 0)
		require.NoError(t, err)
		require.Equal(t, 200, refresh(before.RefreshToken))
		for _, status := range []string{idv.WorkflowArchived, idv.WorkflowDraft} {
			_, err = e.admin.SetWorkflowStatus(ctx, e.wfFace.ID, status)
			require.NoError(t, err)
			assert.Equal(t, 401, refresh(before.RefreshToken), "while %s", status)
			w, err := e.admin.SetWorkflowStatus(ctx, e.wfFace.ID, idv.WorkflowActive)
			require.NoError(t, err)
			assert.Equal(t, 401, refresh(before.RefreshToken), "re-activated after %s: the old token stays revoked", status)
			assert.NotEqual(t, before.RefreshToken, w.RefreshToken)
			// The re-activated workflow works with a rotated token.
			after, err := e.admin.RotateRefreshToken(ctx, e.wfFace.ID, 0)
			require.NoError(t, err)
			assert.Equal(t, 200, refresh(after.RefreshToken))
			before = after
		}
		// Activating an active workflow, or archiving an archived one,
		// changes nothing.
		_, err = e.admin.SetWorkflowStatus(ctx, e.wfFace.ID, idv.WorkflowActive)
		require.NoError(t, err)
		assert.Equal(t, 200, refresh(before.RefreshToken))
	})

	_, err = e.admin.RotateRefreshToken(ctx, idv.NewRequestID(), 0)
	assert.ErrorIs(t, err, server.ErrNotFound)
}
