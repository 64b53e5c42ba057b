package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
)

func open(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// fixture is an organisation with units and a client.
func fixture(t *testing.T, db *sqlite.DB, units int64) (store.Organisation, store.Client) {
	t.Helper()
	ctx := context.Background()
	org, err := db.CreateOrganisation(ctx, "Org")
	require.NoError(t, err)
	if units > 0 {
		_, err = db.AddUnits(ctx, org.ID, units, "test")
		require.NoError(t, err)
	}
	c := store.Client{ID: idv.NewRequestID(), OrganisationID: org.ID, SecretHash: "h", Active: true}
	require.NoError(t, db.CreateClient(ctx, c))
	return org, c
}

func TestMigrationsApplyOnceAndSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db := open(t, path)
	ctx := context.Background()
	org, _ := fixture(t, db, 10)
	v1, err := db.Migrations(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, v1)
	require.NoError(t, db.Close())

	db2 := open(t, path)
	v2, err := db2.Migrations(ctx)
	require.NoError(t, err)
	assert.Equal(t, v1, v2)
	got, err := db2.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 10, got.Balance)
}

// TestVerificationCounts covers the SQLite-only operator figures; the
// semantics shared with every backend are in storetest (conformance_test.go).
func TestVerificationCounts(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := context.Background()
	org, c := fixture(t, db, 10)
	for i, rid := range []string{"a", "b", "c"} {
		cl := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "w", RequestID: rid, Units: 2}
		require.NoError(t, db.ClaimVerification(ctx, cl))
		if i < 2 {
			_, err := db.CompleteVerification(ctx, store.Verification{ID: cl.ID, OrganisationID: org.ID, Units: 2, Result: json.RawMessage(`{}`)}, nil)
			require.NoError(t, err)
		}
	}
	done, pending, billed, err := db.VerificationCounts(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 2, done)
	assert.EqualValues(t, 1, pending)
	assert.EqualValues(t, 4, billed)
}
