// Package storetest is the conformance suite every store.Store and
// store.FileStore backend passes: the documented semantics of each method
// (idempotent claims, units held by pending claims, a balance that never
// goes negative under concurrency, outbox rows written in the transaction
// of their cause, ...) checked the same way against SQLite, PostgreSQL, a
// folder and an S3 bucket.
//
// A backend's test calls Run with a function that opens a fresh, empty
// store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { db.Close() })
//			return db
//		})
//	}
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
)

// Run runs the store.Store suite. open returns a new, empty store for
// each subtest and arranges its closing with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Organisations", testOrganisations},
		{"Units", testUnits},
		{"ConcurrentDebitsNeverOverdraw", testConcurrentDebits},
		{"Clients", testClients},
		{"Workflows", testWorkflows},
		{"WorkflowEventsShareTheTransaction", testWorkflowEvents},
		{"Claims", testClaims},
		{"Fingerprint", testFingerprint},
		{"DebitKeepsHeldUnits", testDebitHeld},
		{"RefreshToken", testRefreshToken},
		{"ClaimEventsShareTheTransaction", testClaimEvents},
		{"CompleteVerification", testComplete},
		{"FailedCompletionChangesNothing", testCompleteRollback},
		{"ConcurrentClaimsNeverOverspend", testConcurrentClaims},
		{"ConcurrentSameRequestID", testConcurrentSameRequestID},
		{"ReleaseClaim", testReleaseClaim},
		{"ReleaseClaimsBefore", testReleaseClaimsBefore},
		{"UnitsUsedSince", testUnitsUsedSince},
		{"Events", testEvents},
		{"Setting", testSetting},
		{"SettingConcurrentCreateOnce", testSettingConcurrent},
		{"Ping", func(t *testing.T, s store.Store) { require.NoError(t, s.Ping(context.Background())) }},
		{"VerificationKnown", testVerificationKnown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, open(t))
		})
	}
}

// Fixture creates an organisation holding units and an active client of it.
func Fixture(t testing.TB, s store.Store, units int64) (store.Organisation, store.Client) {
	t.Helper()
	ctx := context.Background()
	org, err := s.CreateOrganisation(ctx, "Org")
	require.NoError(t, err)
	if units > 0 {
		_, err = s.AddUnits(ctx, org.ID, units, "test")
		require.NoError(t, err)
		org.Balance = units
	}
	c := store.Client{ID: idv.NewRequestID(), OrganisationID: org.ID, Name: "client", SecretHash: "hash", Active: true}
	require.NoError(t, s.CreateClient(ctx, c))
	return org, c
}

func event(org int64, name string) store.Event {
	return store.Event{Event: name, OrganisationID: org, Data: json.RawMessage(`{"e":"` + name + `"}`)}
}

// allEvents returns every outbox event, oldest first.
func allEvents(t testing.TB, s store.Store) []store.Event {
	t.Helper()
	evs, err := s.Events(context.Background(), 0, 100000)
	require.NoError(t, err)
	return evs
}

func eventNames(evs []store.Event) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}

func testOrganisations(t *testing.T, s store.Store) {
	ctx := context.Background()
	n, err := s.CountOrganisations(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "a new store is empty")
	a, err := s.CreateOrganisation(ctx, "Acme")
	require.NoError(t, err)
	b, err := s.CreateOrganisation(ctx, "Beta")
	require.NoError(t, err)
	assert.NotEqual(t, a.ID, b.ID)
	assert.Equal(t, "Acme", a.Name)
	assert.Zero(t, a.Balance, "a new organisation has no units")
	assert.False(t, a.CreatedAt.IsZero())
	assert.WithinDuration(t, time.Now(), a.CreatedAt, time.Minute)
	got, err := s.Organisation(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, "Beta", got.Name)
	assert.Equal(t, b.LowBalanceThreshold, got.LowBalanceThreshold)
	n, err = s.CountOrganisations(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 2, n)
	_, err = s.Organisation(ctx, a.ID+b.ID+100)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testUnits(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	bal, err := s.AddUnits(ctx, org.ID, 5, "top-up")
	require.NoError(t, err)
	assert.EqualValues(t, 5, bal)
	bal, err = s.AddUnits(ctx, org.ID, -2, "refund")
	require.NoError(t, err)
	assert.EqualValues(t, 3, bal)
	_, err = s.AddUnits(ctx, org.ID, -4, "too much")
	assert.ErrorIs(t, err, store.ErrInsufficientUnits, "never below zero")
	bal, err = s.AddUnits(ctx, org.ID, -3, "all of it")
	require.NoError(t, err)
	assert.Zero(t, bal, "down to zero is allowed")
	o, err := s.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.Zero(t, o.Balance)
	_, err = s.AddUnits(ctx, org.ID+1000, 1, "nobody")
	assert.ErrorIs(t, err, store.ErrNotFound)
	used, err := s.UnitsUsedSince(ctx, org.ID, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, used, "administrative changes are not verification use")
}

// testConcurrentDebits: 40 debits of 3 against 60 units from many
// goroutines grant exactly 20 and leave zero.
func testConcurrentDebits(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 60)
	var wg sync.WaitGroup
	var granted, refused atomic.Int64
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.AddUnits(ctx, org.ID, -3, "debit")
			switch {
			case err == nil:
				granted.Add(1)
			case errors.Is(err, store.ErrInsufficientUnits):
				refused.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 20, granted.Load())
	assert.EqualValues(t, 20, refused.Load())
	o, err := s.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.Zero(t, o.Balance)
}

func testClients(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	got, err := s.Client(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, c.ID, got.ID)
	assert.Equal(t, org.ID, got.OrganisationID)
	assert.Equal(t, "client", got.Name)
	assert.Equal(t, "hash", got.SecretHash)
	assert.True(t, got.Active)
	assert.False(t, got.CreatedAt.IsZero())

	assert.ErrorIs(t, s.CreateClient(ctx, c), store.ErrConflict, "client ids are unique")
	orphan := store.Client{ID: idv.NewRequestID(), OrganisationID: org.ID + 1000, SecretHash: "h", Active: true}
	assert.ErrorIs(t, s.CreateClient(ctx, orphan), store.ErrNotFound, "a client belongs to an existing organisation")

	require.NoError(t, s.SetClientActive(ctx, c.ID, false))
	got, err = s.Client(ctx, c.ID)
	require.NoError(t, err)
	assert.False(t, got.Active)
	require.NoError(t, s.SetClientActive(ctx, c.ID, true))
	got, _ = s.Client(ctx, c.ID)
	assert.True(t, got.Active)
	assert.ErrorIs(t, s.SetClientActive(ctx, "nobody", false), store.ErrNotFound)
	_, err = s.Client(ctx, "nobody")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func newWorkflow(c store.Client, name string) store.Workflow {
	def := idv.Workflow{Name: name, DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckFace}}}
	return store.Workflow{ID: idv.NewRequestID(), ClientID: c.ID, OrganisationID: c.OrganisationID,
		Status: idv.WorkflowActive, RefreshToken: "rt-" + name, Definition: def}
}

func testWorkflows(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	_, other := Fixture(t, s, 0)
	w := newWorkflow(c, "Onboarding")
	require.NoError(t, s.CreateWorkflow(ctx, w))
	got, err := s.Workflow(ctx, w.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 1, got.Version, "a new workflow is version 1")
	assert.Equal(t, c.ID, got.ClientID)
	assert.Equal(t, org.ID, got.OrganisationID, "the organisation comes from the client")
	assert.Equal(t, "rt-Onboarding", got.RefreshToken)
	assert.Equal(t, idv.WorkflowActive, got.Status)
	assert.Equal(t, w.Definition.Checks, got.Definition.Checks)
	assert.Equal(t, w.Definition.DocumentTypes, got.Definition.DocumentTypes)
	assert.Equal(t, w.ID, got.Definition.ID, "the definition carries the stored id")
	assert.Equal(t, idv.WorkflowActive, got.Definition.Status)
	assert.False(t, got.CreatedAt.IsZero())

	dup := newWorkflow(c, "Onboarding")
	assert.ErrorIs(t, s.CreateWorkflow(ctx, dup), store.ErrConflict, "names are unique per client")
	require.NoError(t, s.CreateWorkflow(ctx, newWorkflow(other, "Onboarding")), "another client may use the name")
	second := newWorkflow(c, "Address")
	require.NoError(t, s.CreateWorkflow(ctx, second))

	list, err := s.ListWorkflows(ctx, c.ID)
	require.NoError(t, err)
	require.Len(t, list, 2, "only the client's own workflows")
	assert.Equal(t, "Address", list[0].Definition.Name, "ordered by name")
	assert.Equal(t, "Onboarding", list[1].Definition.Name)
	list, err = s.ListWorkflows(ctx, "nobody")
	require.NoError(t, err)
	assert.Empty(t, list)

	got.Status = idv.WorkflowArchived
	got.Definition.Checks = got.Definition.Checks[:1]
	up, err := s.UpdateWorkflow(ctx, got)
	require.NoError(t, err)
	assert.EqualValues(t, 2, up.Version, "every update bumps the version")
	assert.Equal(t, idv.WorkflowArchived, up.Status)
	assert.Len(t, up.Definition.Checks, 1)
	assert.False(t, up.UpdatedAt.Before(got.UpdatedAt))
	up.Status = idv.WorkflowActive
	up2, err := s.UpdateWorkflow(ctx, up)
	require.NoError(t, err)
	assert.EqualValues(t, 3, up2.Version)
	again, err := s.Workflow(ctx, w.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 3, again.Version)

	renamed := second
	renamed.Definition.Name = "Onboarding"
	_, err = s.UpdateWorkflow(ctx, renamed)
	assert.ErrorIs(t, err, store.ErrConflict, "renaming onto another workflow's name")
	ghost := newWorkflow(c, "Ghost")
	_, err = s.UpdateWorkflow(ctx, ghost)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.Workflow(ctx, "nope")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testWorkflowEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	w := newWorkflow(c, "One")
	require.NoError(t, s.CreateWorkflow(ctx, w, event(org.ID, "workflow.created")))
	assert.Equal(t, []string{"workflow.created"}, eventNames(allEvents(t, s)))

	// A refused create writes no event.
	assert.ErrorIs(t, s.CreateWorkflow(ctx, newWorkflow(c, "One"), event(org.ID, "workflow.created")), store.ErrConflict)
	assert.Len(t, allEvents(t, s), 1)

	// An event that cannot be written (its id is taken) undoes the change
	// it belongs to.
	taken := allEvents(t, s)[0].EventID
	bad := event(org.ID, "workflow.created")
	bad.EventID = taken
	require.Error(t, s.CreateWorkflow(ctx, newWorkflow(c, "Two"), bad))
	list, err := s.ListWorkflows(ctx, c.ID)
	require.NoError(t, err)
	assert.Len(t, list, 1, "the workflow rolled back with its event")

	w.Definition.Name = "One renamed"
	bad = event(org.ID, "workflow.updated")
	bad.EventID = taken
	_, err = s.UpdateWorkflow(ctx, w, event(org.ID, "workflow.updated"), bad)
	require.Error(t, err)
	got, err := s.Workflow(ctx, w.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 1, got.Version, "the update rolled back with its events")
	assert.Equal(t, "One", got.Definition.Name)
	assert.Len(t, allEvents(t, s), 1)

	_, err = s.UpdateWorkflow(ctx, w, event(org.ID, "workflow.updated"), event(org.ID, "workflow.deactivated"))
	require.NoError(t, err)
	assert.Equal(t, []string{"workflow.created", "workflow.updated", "workflow.deactivated"}, eventNames(allEvents(t, s)))
}

func claimFor(org store.Organisation, c store.Client, rid string, units int64) store.Claim {
	return store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "wf", RequestID: rid, Units: units}
}

func completion(cl store.Claim, result string) store.Verification {
	return store.Verification{ID: cl.ID, ClientID: cl.ClientID, OrganisationID: cl.OrganisationID, WorkflowID: cl.WorkflowID,
		RequestID: cl.RequestID, Units: cl.Units, Decision: "accept", Result: json.RawMessage(result),
		Files: map[string]string{"https://files/x": "v/" + cl.ID + "/front.jpg"}}
}

func testClaims(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 10)
	_, err := s.Verification(ctx, c.ID, "a")
	assert.ErrorIs(t, err, store.ErrNotFound)

	a := claimFor(org, c, "a", 6)
	require.NoError(t, s.ClaimVerification(ctx, a))
	_, err = s.Verification(ctx, c.ID, "a")
	assert.ErrorIs(t, err, store.ErrPending, "a claim is pending until completed")
	assert.ErrorIs(t, s.ClaimVerification(ctx, claimFor(org, c, "a", 1)), store.ErrConflict, "same (client, request id) while pending")
	assert.ErrorIs(t, s.ClaimVerification(ctx, claimFor(org, c, "b", 5)), store.ErrInsufficientUnits,
		"the pending claim holds 6 of the 10 units")
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, "b", 4)), "exactly what is left")
	assert.ErrorIs(t, s.ClaimVerification(ctx, claimFor(org, c, "c", 1)), store.ErrInsufficientUnits)
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, "free", 0)), "a free workflow needs no units")

	o, err := s.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 10, o.Balance, "claims hold units without debiting them")

	// The request id belongs to the client: another client of the same
	// organisation may use it.
	other := store.Client{ID: idv.NewRequestID(), OrganisationID: org.ID, SecretHash: "h", Active: true}
	require.NoError(t, s.CreateClient(ctx, other))
	_, err = s.AddUnits(ctx, org.ID, 1, "more")
	require.NoError(t, err)
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, other, "a", 1)))

	_, err = s.CompleteVerification(ctx, completion(a, `{"n":1}`), nil)
	require.NoError(t, err)
	assert.ErrorIs(t, s.ClaimVerification(ctx, claimFor(org, c, "a", 1)), store.ErrConflict, "same (client, request id) once done")

	missing := claimFor(store.Organisation{ID: org.ID + 1000}, c, "m", 1)
	assert.ErrorIs(t, s.ClaimVerification(ctx, missing), store.ErrNotFound, "unknown organisation")
}

// testFingerprint: the claim's fingerprint and workflow are returned with
// ErrPending while it runs and with the stored result after; a store with
// store.VerificationFinder finds only completed verifications.
func testFingerprint(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 10)
	a := claimFor(org, c, "a", 1)
	a.Fingerprint = "3f2a"
	require.NoError(t, s.ClaimVerification(ctx, a))
	v, err := s.Verification(ctx, c.ID, "a")
	require.ErrorIs(t, err, store.ErrPending)
	assert.Equal(t, "3f2a", v.Fingerprint)
	assert.Equal(t, "wf", v.WorkflowID)
	finder, _ := s.(store.VerificationFinder)
	if finder != nil {
		ok, err := finder.VerificationStored(ctx, a.ID)
		require.NoError(t, err)
		assert.False(t, ok, "a pending claim is not stored")
	}
	_, err = s.CompleteVerification(ctx, completion(a, `{}`), nil)
	require.NoError(t, err)
	v, err = s.Verification(ctx, c.ID, "a")
	require.NoError(t, err)
	assert.Equal(t, "3f2a", v.Fingerprint, "kept by the completion")

	b := claimFor(org, c, "b", 1)
	require.NoError(t, s.ClaimVerification(ctx, b))
	_, err = s.CompleteVerification(ctx, completion(b, `{}`), nil)
	require.NoError(t, err)
	v, err = s.Verification(ctx, c.ID, "b")
	require.NoError(t, err)
	assert.Empty(t, v.Fingerprint, "none given, none stored")

	if finder != nil {
		ok, err := finder.VerificationStored(ctx, a.ID)
		require.NoError(t, err)
		assert.True(t, ok)
		ok, err = finder.VerificationStored(ctx, idv.NewID())
		require.NoError(t, err)
		assert.False(t, ok)
	}
}

// testDebitHeld: an administrative debit may not take the balance below
// the units pending claims hold.
func testDebitHeld(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 10)
	a := claimFor(org, c, "a", 6)
	require.NoError(t, s.ClaimVerification(ctx, a))
	_, err := s.AddUnits(ctx, org.ID, -5, "refund")
	assert.ErrorIs(t, err, store.ErrInsufficientUnits, "10-5 is below the 6 held")
	bal, err := s.AddUnits(ctx, org.ID, -4, "refund")
	require.NoError(t, err)
	assert.EqualValues(t, 6, bal, "down to what is held")
	bal, err = s.CompleteVerification(ctx, completion(a, `{}`), nil)
	require.NoError(t, err)
	assert.Zero(t, bal, "the running verification is still paid for")
	_, err = s.AddUnits(ctx, org.ID+1000, -1, "nobody")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

// testRefreshToken: SetWorkflowRefreshToken replaces the token alone, and
// UpdateWorkflow never writes it back.
func testRefreshToken(t *testing.T, s store.Store) {
	ctx := context.Background()
	_, c := Fixture(t, s, 0)
	w := newWorkflow(c, "Onboarding")
	require.NoError(t, s.CreateWorkflow(ctx, w))
	require.NoError(t, s.SetWorkflowRefreshToken(ctx, w.ID, "rt-new"))
	got, err := s.Workflow(ctx, w.ID)
	require.NoError(t, err)
	assert.Equal(t, "rt-new", got.RefreshToken)
	assert.EqualValues(t, 1, got.Version, "not an edit of the definition")
	_, err = s.UpdateWorkflow(ctx, w) // w still carries the old token
	require.NoError(t, err)
	got, err = s.Workflow(ctx, w.ID)
	require.NoError(t, err)
	assert.Equal(t, "rt-new", got.RefreshToken, "an edit cannot bring back a rotated token")
	assert.ErrorIs(t, s.SetWorkflowRefreshToken(ctx, "nope", "x"), store.ErrNotFound)
}

func testClaimEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 10)
	a := claimFor(org, c, "a", 1)
	require.NoError(t, s.ClaimVerification(ctx, a, event(org.ID, "verification.started")))
	evs := allEvents(t, s)
	require.Len(t, evs, 1)

	// A conflicting or refused claim writes no event.
	assert.ErrorIs(t, s.ClaimVerification(ctx, claimFor(org, c, "a", 1), event(org.ID, "verification.started")), store.ErrConflict)
	assert.ErrorIs(t, s.ClaimVerification(ctx, claimFor(org, c, "big", 100), event(org.ID, "verification.started")), store.ErrInsufficientUnits)
	assert.Len(t, allEvents(t, s), 1)

	// An event that cannot be written undoes the claim.
	bad := event(org.ID, "verification.started")
	bad.EventID = evs[0].EventID
	b := claimFor(org, c, "b", 1)
	require.Error(t, s.ClaimVerification(ctx, b, bad))
	_, err := s.Verification(ctx, c.ID, "b")
	assert.ErrorIs(t, err, store.ErrNotFound, "the claim rolled back with its event")
	require.NoError(t, s.ClaimVerification(ctx, b), "and its request id is free")
}

func testComplete(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 10)
	a := claimFor(org, c, "a", 6)
	require.NoError(t, s.ClaimVerification(ctx, a, event(org.ID, "verification.started")))
	var before store.Organisation
	var after int64
	bal, err := s.CompleteVerification(ctx, completion(a, `{"x":[1,2]}`), func(b store.Organisation, a int64) []store.Event {
		before, after = b, a
		return []store.Event{event(org.ID, "verification.completed"), event(org.ID, "verification.accepted")}
	})
	require.NoError(t, err)
	assert.EqualValues(t, 4, bal)
	assert.EqualValues(t, 10, before.Balance, "events see the balance before the debit")
	assert.Equal(t, org.ID, before.ID)
	assert.EqualValues(t, 4, after, "and after it")

	got, err := s.Verification(ctx, c.ID, "a")
	require.NoError(t, err)
	assert.Equal(t, a.ID, got.ID)
	assert.Equal(t, c.ID, got.ClientID)
	assert.Equal(t, org.ID, got.OrganisationID)
	assert.Equal(t, "wf", got.WorkflowID)
	assert.Equal(t, "a", got.RequestID)
	assert.EqualValues(t, 6, got.Units)
	assert.Equal(t, "accept", got.Decision)
	assert.JSONEq(t, `{"x":[1,2]}`, string(got.Result))
	assert.Equal(t, map[string]string{"https://files/x": "v/" + a.ID + "/front.jpg"}, got.Files)
	assert.False(t, got.CreatedAt.IsZero())
	assert.False(t, got.CompletedAt.Before(got.CreatedAt))

	o, err := s.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 4, o.Balance)
	_, err = s.CompleteVerification(ctx, completion(a, `{}`), nil)
	assert.ErrorIs(t, err, store.ErrNotFound, "a claim completes once")
	o, _ = s.Organisation(ctx, org.ID)
	assert.EqualValues(t, 4, o.Balance, "and is debited once")
	_, err = s.CompleteVerification(ctx, completion(claimFor(org, c, "never", 1), `{}`), nil)
	assert.ErrorIs(t, err, store.ErrNotFound, "no claim, no completion")

	assert.Equal(t, []string{"verification.started", "verification.completed", "verification.accepted"}, eventNames(allEvents(t, s)))

	// Files may be empty.
	b := claimFor(org, c, "b", 1)
	require.NoError(t, s.ClaimVerification(ctx, b))
	v := completion(b, `{}`)
	v.Files = nil
	_, err = s.CompleteVerification(ctx, v, nil)
	require.NoError(t, err)
	got, err = s.Verification(ctx, c.ID, "b")
	require.NoError(t, err)
	assert.Empty(t, got.Files)
}

func testCompleteRollback(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 4)
	b := claimFor(org, c, "b", 4)
	require.NoError(t, s.ClaimVerification(ctx, b, event(org.ID, "verification.started")))
	// An administrator's refund cannot take the held units away, so the
	// debit at completion cannot fail for want of units
	// (DebitKeepsHeldUnits).
	_, err := s.AddUnits(ctx, org.ID, -1, "refund")
	require.ErrorIs(t, err, store.ErrInsufficientUnits)

	// An event that cannot be written undoes the completion: no debit, no
	// event, no ledger row, the claim still pending.
	taken := allEvents(t, s)[0].EventID
	_, err = s.CompleteVerification(ctx, completion(b, `{}`), func(store.Organisation, int64) []store.Event {
		e := event(org.ID, "verification.completed")
		e.EventID = taken
		return []store.Event{e}
	})
	require.Error(t, err)
	o, err := s.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 4, o.Balance, "no debit")
	assert.Equal(t, []string{"verification.started"}, eventNames(allEvents(t, s)), "no event")
	_, err = s.Verification(ctx, c.ID, "b")
	assert.ErrorIs(t, err, store.ErrPending, "the claim is still pending")
	used, err := s.UnitsUsedSince(ctx, org.ID, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, used, "no ledger row")
	bal, err := s.CompleteVerification(ctx, completion(b, `{}`), nil)
	require.NoError(t, err)
	assert.Zero(t, bal)
}

// testConcurrentClaims: 30 goroutines each claim and complete 2 units
// against 20: exactly 10 are granted, the balance ends at zero.
func testConcurrentClaims(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 20)
	var wg sync.WaitGroup
	var granted atomic.Int64
	for range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := claimFor(org, c, idv.NewRequestID(), 2)
			err := s.ClaimVerification(ctx, cl, event(org.ID, "verification.started"))
			if errors.Is(err, store.ErrInsufficientUnits) {
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := s.CompleteVerification(ctx, completion(cl, `{}`), nil); err != nil {
				t.Error(err)
				return
			}
			granted.Add(1)
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 10, granted.Load())
	o, err := s.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.Zero(t, o.Balance)
	used, err := s.UnitsUsedSince(ctx, org.ID, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.EqualValues(t, 20, used)
	assert.Len(t, allEvents(t, s), 10, "one started event per granted claim")
}

// testConcurrentSameRequestID: of 20 simultaneous claims of one request
// id exactly one wins; the rest see ErrConflict.
func testConcurrentSameRequestID(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	var wg sync.WaitGroup
	var won, conflict atomic.Int64
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.ClaimVerification(ctx, claimFor(org, c, "same", 1), event(org.ID, "verification.started"))
			switch {
			case err == nil:
				won.Add(1)
			case errors.Is(err, store.ErrConflict):
				conflict.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 1, won.Load())
	assert.EqualValues(t, 19, conflict.Load())
	assert.Len(t, allEvents(t, s), 1)
}

func testReleaseClaim(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 5)
	a := claimFor(org, c, "a", 5)
	require.NoError(t, s.ClaimVerification(ctx, a))
	assert.ErrorIs(t, s.ClaimVerification(ctx, claimFor(org, c, "b", 1)), store.ErrInsufficientUnits)
	require.NoError(t, s.ReleaseClaim(ctx, a.ID, event(org.ID, "verification.timeout")))
	_, err := s.Verification(ctx, c.ID, "a")
	assert.ErrorIs(t, err, store.ErrNotFound, "a released claim is gone")
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, "b", 5)), "its units are free again")
	assert.Equal(t, []string{"verification.timeout"}, eventNames(allEvents(t, s)))

	// Releasing again, or releasing a completed verification, does nothing.
	require.NoError(t, s.ReleaseClaim(ctx, a.ID, event(org.ID, "verification.timeout")))
	assert.Len(t, allEvents(t, s), 1, "no event when nothing was pending")
	d := claimFor(org, c, "a", 0)
	require.NoError(t, s.ClaimVerification(ctx, d), "the request id is free again")
	_, err = s.CompleteVerification(ctx, completion(d, `{"done":true}`), nil)
	require.NoError(t, err)
	require.NoError(t, s.ReleaseClaim(ctx, d.ID, event(org.ID, "verification.timeout")))
	got, err := s.Verification(ctx, c.ID, "a")
	require.NoError(t, err, "a completed verification stays")
	assert.JSONEq(t, `{"done":true}`, string(got.Result))
	assert.Len(t, allEvents(t, s), 1)
	require.NoError(t, s.ReleaseClaim(ctx, "never-claimed"))
}

func testReleaseClaimsBefore(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 10)
	old := claimFor(org, c, "old", 1)
	require.NoError(t, s.ClaimVerification(ctx, old))
	done := claimFor(org, c, "done", 1)
	require.NoError(t, s.ClaimVerification(ctx, done))
	_, err := s.CompleteVerification(ctx, completion(done, `{}`), nil)
	require.NoError(t, err)
	// Timestamps of a few milliseconds apart: stores keep at least
	// microseconds.
	time.Sleep(20 * time.Millisecond)
	cut := time.Now()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, "new", 1)))

	n, err := s.ReleaseClaimsBefore(ctx, cut)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "only the old pending claim")
	_, err = s.Verification(ctx, c.ID, "old")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.Verification(ctx, c.ID, "new")
	assert.ErrorIs(t, err, store.ErrPending)
	_, err = s.Verification(ctx, c.ID, "done")
	assert.NoError(t, err, "completed verifications are not claims")
	n, err = s.ReleaseClaimsBefore(ctx, cut)
	require.NoError(t, err)
	assert.Zero(t, n)
}

func testUnitsUsedSince(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 20)
	other, oc := Fixture(t, s, 20)
	use := func(o store.Organisation, cl store.Client, units int64) {
		t.Helper()
		claim := claimFor(o, cl, idv.NewRequestID(), units)
		require.NoError(t, s.ClaimVerification(ctx, claim))
		_, err := s.CompleteVerification(ctx, completion(claim, `{}`), nil)
		require.NoError(t, err)
	}
	use(org, c, 3)
	time.Sleep(20 * time.Millisecond)
	cut := time.Now()
	time.Sleep(20 * time.Millisecond)
	use(org, c, 2)
	use(org, c, 4)
	use(other, oc, 7)
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, "pending", 5)))
	_, err := s.AddUnits(ctx, org.ID, -1, "refund")
	require.NoError(t, err)

	used, err := s.UnitsUsedSince(ctx, org.ID, cut)
	require.NoError(t, err)
	assert.EqualValues(t, 6, used, "debits after the cut, this organisation, completed only")
	used, err = s.UnitsUsedSince(ctx, org.ID, cut.Add(-time.Hour))
	require.NoError(t, err)
	assert.EqualValues(t, 9, used)
	used, err = s.UnitsUsedSince(ctx, org.ID, time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Zero(t, used)
}

func testEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	evs, err := s.Events(ctx, 0, 10)
	require.NoError(t, err)
	assert.Empty(t, evs)

	given := store.Event{EventID: "evt-given", Event: "verification.started", OrganisationID: org.ID, Data: json.RawMessage(`{"a":1}`)}
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, "r0", 1), given))
	for i := 1; i < 12; i++ {
		require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, fmt.Sprintf("r%d", i), 1),
			event(org.ID, fmt.Sprintf("e%02d", i))))
	}
	all := allEvents(t, s)
	require.Len(t, all, 12)
	assert.Equal(t, "evt-given", all[0].EventID, "a given event id is kept")
	assert.JSONEq(t, `{"a":1}`, string(all[0].Data))
	assert.Equal(t, org.ID, all[0].OrganisationID)
	ids := map[string]bool{}
	for i, e := range all {
		assert.NotEmpty(t, e.EventID, "an event id is assigned when none is given")
		ids[e.EventID] = true
		assert.Nil(t, e.DeliveredAt)
		assert.False(t, e.CreatedAt.IsZero())
		if i > 0 {
			assert.Greater(t, e.Seq, all[i-1].Seq, "sequence numbers grow in commit order")
			assert.Equal(t, fmt.Sprintf("e%02d", i), e.Event)
		}
	}
	assert.Len(t, ids, 12, "event ids are unique")
	assert.True(t, sort.SliceIsSorted(all, func(i, j int) bool { return all[i].Seq < all[j].Seq }))

	// Paging: after a sequence number, at most limit.
	page, err := s.Events(ctx, all[3].Seq, 4)
	require.NoError(t, err)
	require.Len(t, page, 4)
	assert.Equal(t, all[4:8], page)
	page, err = s.Events(ctx, all[11].Seq, 4)
	require.NoError(t, err)
	assert.Empty(t, page)

	// A given creation time is kept (to the microsecond).
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)
	stamped := event(org.ID, "stamped")
	stamped.CreatedAt = at
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, "stamped", 1), stamped))
	last, err := s.Events(ctx, all[11].Seq, 10)
	require.NoError(t, err)
	require.Len(t, last, 1)
	assert.True(t, at.Equal(last[0].CreatedAt), "%v != %v", at, last[0].CreatedAt)
}

func testSetting(t *testing.T, s store.Store) {
	ctx := context.Background()
	n := 0
	gen := func() ([]byte, error) { n++; return []byte{0, byte(n), 0xff}, nil }
	a, err := s.Setting(ctx, "signing_key", gen)
	require.NoError(t, err)
	b, err := s.Setting(ctx, "signing_key", gen)
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 1, 0xff}, a, "binary values survive")
	assert.Equal(t, a, b)
	assert.Equal(t, 1, n, "created once")
	other, err := s.Setting(ctx, "other", gen)
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 2, 0xff}, other, "settings are per name")

	boom := errors.New("no entropy")
	_, err = s.Setting(ctx, "failing", func() ([]byte, error) { return nil, boom })
	assert.ErrorIs(t, err, boom)
	v, err := s.Setting(ctx, "failing", func() ([]byte, error) { return []byte("ok"), nil })
	require.NoError(t, err)
	assert.Equal(t, "ok", string(v), "a failed creation stores nothing")
}

// testSettingConcurrent: callers racing on a first use all get the one
// stored value, whichever creator won.
func testSettingConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	var wg sync.WaitGroup
	got := make([][]byte, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := s.Setting(ctx, "key", func() ([]byte, error) { return []byte(fmt.Sprintf("v%d", i)), nil })
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = v
		}()
	}
	wg.Wait()
	for _, v := range got {
		assert.Equal(t, got[0], v)
	}
	v, err := s.Setting(ctx, "key", func() ([]byte, error) { return []byte("late"), nil })
	require.NoError(t, err)
	assert.Equal(t, got[0], v)
}

// testVerificationKnown: a backend with store.ClaimFinder knows pending
// and completed verifications, and forgets a released claim.
func testVerificationKnown(t *testing.T, s store.Store) {
	cf, ok := s.(store.ClaimFinder)
	if !ok {
		t.Skip("no store.ClaimFinder")
	}
	ctx := context.Background()
	org, c := Fixture(t, s, 10)
	known := func(id string) bool {
		t.Helper()
		k, err := cf.VerificationKnown(ctx, id)
		require.NoError(t, err)
		return k
	}
	assert.False(t, known("never"))
	pending := claimFor(org, c, "p", 1)
	require.NoError(t, s.ClaimVerification(ctx, pending))
	assert.True(t, known(pending.ID), "pending")
	done := claimFor(org, c, "d", 1)
	require.NoError(t, s.ClaimVerification(ctx, done))
	_, err := s.CompleteVerification(ctx, completion(done, `{}`), nil)
	require.NoError(t, err)
	assert.True(t, known(done.ID), "completed")
	require.NoError(t, s.ReleaseClaim(ctx, pending.ID))
	assert.False(t, known(pending.ID), "released")
}
