package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

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

func TestBalanceNeverNegative(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "t.db"))
	org, _ := fixture(t, db, 5)
	_, err := db.AddUnits(context.Background(), org.ID, -6, "test")
	assert.ErrorIs(t, err, store.ErrInsufficientUnits)
	_, err = db.AddUnits(context.Background(), 999, 1, "test")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func TestClaimHoldsUnitsAndCompleteDebitsOnce(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := context.Background()
	org, c := fixture(t, db, 10)
	claim := func(rid string, units int64) (store.Claim, error) {
		cl := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "w", RequestID: rid, Units: units}
		return cl, db.ClaimVerification(ctx, cl, store.Event{Event: "verification.started", OrganisationID: org.ID, Data: json.RawMessage(`{}`)})
	}
	a, err := claim("a", 6)
	require.NoError(t, err)
	_, err = claim("b", 6)
	assert.ErrorIs(t, err, store.ErrInsufficientUnits, "a pending claim holds its units")
	_, err = claim("a", 1)
	assert.ErrorIs(t, err, store.ErrConflict)
	_, err = db.Verification(ctx, c.ID, "a")
	assert.ErrorIs(t, err, store.ErrPending)

	v := store.Verification{ID: a.ID, ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "w", RequestID: "a", Units: 6,
		Decision: "accept", Result: json.RawMessage(`{"x":1}`), Files: map[string]string{"u": "k"}}
	var seenBefore int64
	bal, err := db.CompleteVerification(ctx, v, func(before store.Organisation, after int64) []store.Event {
		seenBefore = before.Balance
		return []store.Event{{Event: "verification.completed", OrganisationID: org.ID, Data: json.RawMessage(`{"id":1}`)}}
	})
	require.NoError(t, err)
	assert.EqualValues(t, 4, bal)
	assert.EqualValues(t, 10, seenBefore)
	_, err = db.CompleteVerification(ctx, v, nil)
	assert.Error(t, err, "a claim completes once")
	got, err := db.Verification(ctx, c.ID, "a")
	require.NoError(t, err)
	assert.JSONEq(t, `{"x":1}`, string(got.Result))
	assert.Equal(t, map[string]string{"u": "k"}, got.Files)
	o, _ := db.Organisation(ctx, org.ID)
	assert.EqualValues(t, 4, o.Balance)
	used, err := db.UnitsUsedSince(ctx, org.ID, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.EqualValues(t, 6, used)

	evs, err := db.Events(ctx, 0, 10)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, "verification.started", evs[0].Event)
	assert.Equal(t, "verification.completed", evs[1].Event)
	assert.NotEmpty(t, evs[1].EventID)
	assert.Nil(t, evs[1].DeliveredAt)

	// A failed completion changes nothing: the events callback's rows, the
	// debit and the result roll back together.
	b, err := claim("b", 4)
	require.NoError(t, err)
	bad := v
	bad.ID, bad.RequestID, bad.Units = b.ID, "b", 5 // more than the balance: the CHECK fails
	_, err = db.CompleteVerification(ctx, bad, func(store.Organisation, int64) []store.Event {
		return []store.Event{{Event: "verification.completed", OrganisationID: org.ID, Data: json.RawMessage(`{}`)}}
	})
	require.Error(t, err)
	o, _ = db.Organisation(ctx, org.ID)
	assert.EqualValues(t, 4, o.Balance)
	evs, _ = db.Events(ctx, 0, 10)
	assert.Len(t, evs, 3, "only b's started event")
	_, err = db.Verification(ctx, c.ID, "b")
	assert.ErrorIs(t, err, store.ErrPending)
	require.NoError(t, db.ReleaseClaim(ctx, b.ID))
	_, err = db.Verification(ctx, c.ID, "b")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func TestConcurrentClaimsNeverOverspend(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := context.Background()
	org, c := fixture(t, db, 20)
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "w", RequestID: idv.NewRequestID(), Units: 2}
			err := db.ClaimVerification(ctx, cl)
			if errors.Is(err, store.ErrInsufficientUnits) {
				return
			}
			if err != nil {
				t.Error(i, err)
				return
			}
			_, err = db.CompleteVerification(ctx, store.Verification{ID: cl.ID, OrganisationID: org.ID, Units: 2, Result: json.RawMessage(`{}`)}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			granted++
			mu.Unlock()
		}()
	}
	wg.Wait()
	assert.Equal(t, 10, granted)
	o, _ := db.Organisation(ctx, org.ID)
	assert.Zero(t, o.Balance)
	done, pending, billed, err := db.VerificationCounts(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 10, done)
	assert.Zero(t, pending)
	assert.EqualValues(t, 20, billed)
}

func TestWorkflowsAndSettings(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := context.Background()
	_, c := fixture(t, db, 0)
	def := idv.Workflow{Name: "One", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}}
	w := store.Workflow{ID: idv.NewRequestID(), ClientID: c.ID, Status: idv.WorkflowActive, RefreshToken: "rt", Definition: def}
	require.NoError(t, db.CreateWorkflow(ctx, w))
	dup := w
	dup.ID = idv.NewRequestID()
	assert.ErrorIs(t, db.CreateWorkflow(ctx, dup), store.ErrConflict, "name unique per client")
	got, err := db.Workflow(ctx, w.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 1, got.Version)
	assert.Equal(t, "rt", got.RefreshToken)
	assert.Equal(t, def.Checks, got.Definition.Checks)
	got.Status = idv.WorkflowArchived
	up, err := db.UpdateWorkflow(ctx, got)
	require.NoError(t, err)
	assert.EqualValues(t, 2, up.Version)
	assert.Equal(t, idv.WorkflowArchived, up.Status)
	_, err = db.Workflow(ctx, "nope")
	assert.ErrorIs(t, err, store.ErrNotFound)

	n := 0
	gen := func() ([]byte, error) { n++; return []byte{byte(n)}, nil }
	a, err := db.Setting(ctx, "k", gen)
	require.NoError(t, err)
	b, err := db.Setting(ctx, "k", gen)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.Equal(t, 1, n)
}
