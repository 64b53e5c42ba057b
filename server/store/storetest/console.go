package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
)

// ConsoleBackend is a store that keeps the web console's accounts.
type ConsoleBackend interface {
	store.Store
	store.Console
}

// RunConsole runs the store.Console suite: members (one email once, also
// under concurrency, fields that round-trip, deletion that revokes the
// sessions and stays inside the organisation), one-time codes, sessions,
// profiles, and the listings the console's pages show, each kept to its
// organisation.
func RunConsole(t *testing.T, open func(t *testing.T) ConsoleBackend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s ConsoleBackend)
	}{
		{"Users", testUsers},
		{"ConcurrentSignupsOneEmailOnce", testConcurrentUsers},
		{"DeleteUserRevokesSessions", testDeleteUser},
		{"EmailCodes", testEmailCodes},
		{"Sessions", testSessions},
		{"OrgProfile", testOrgProfile},
		{"ClientsOfOrganisation", testConsoleClients},
		{"WorkflowsOfOrganisation", testConsoleWorkflows},
		{"UnitLedger", testUnitLedger},
		{"LowBalanceThreshold", testLowBalanceThreshold},
		{"DecisionCounts", testDecisionCounts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

// sameTime compares stored times to the microsecond PostgreSQL keeps.
func sameTime(t *testing.T, want, got time.Time, what string) {
	t.Helper()
	assert.True(t, want.Truncate(time.Microsecond).Equal(got.Truncate(time.Microsecond)), "%s: want %v, got %v", what, want, got)
}

func newUser(org int64, email, role string) store.User {
	return store.User{ID: idv.NewID(), OrganisationID: org, Email: email, Name: "Member " + email, Role: role}
}

func testUsers(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	before := time.Now().Add(-time.Second)

	u := newUser(org.ID, "ada@example.com", store.RoleAdmin)
	require.NoError(t, s.CreateUser(ctx, u))
	got, err := s.User(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, u.Email, got.Email)
	assert.Equal(t, store.RoleAdmin, got.Role)
	assert.Empty(t, got.PasswordHash)
	assert.Empty(t, got.RecoveryCodes)
	assert.False(t, got.TOTPEnabled)
	assert.True(t, got.LockedUntil.IsZero(), "a new member is not locked: %v", got.LockedUntil)
	assert.True(t, got.CreatedAt.After(before), "created_at %v", got.CreatedAt)
	byEmail, err := s.UserByEmail(ctx, u.Email)
	require.NoError(t, err)
	assert.Equal(t, u.ID, byEmail.ID)

	// One email, one member, across organisations too.
	other, _ := Fixture(t, s, 0)
	dup := newUser(other.ID, u.Email, store.RoleDeveloper)
	assert.ErrorIs(t, s.CreateUser(ctx, dup), store.ErrConflict)
	assert.ErrorIs(t, s.CreateUser(ctx, newUser(org.ID+1000, "ghost@example.com", store.RoleAdmin)), store.ErrNotFound)
	_, err = s.User(ctx, "no-such-user")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.UserByEmail(ctx, "nobody@example.com")
	assert.ErrorIs(t, err, store.ErrNotFound)

	// Every mutable field round-trips, the lock time included.
	locked := time.Now().Add(15 * time.Minute).UTC()
	got.Name, got.Role, got.PasswordHash = "Ada L.", store.RoleReviewer, "$argon2id$v=19$m=65536,t=1,p=4$c2FsdA$aGFzaA"
	got.TOTPSecret, got.TOTPEnabled, got.TOTPLastStep = "sealed-secret", true, 59_000_123
	got.RecoveryCodes = []string{"h1", "h2", "h3"}
	got.FailedAttempts, got.LockedUntil = 4, locked
	require.NoError(t, s.UpdateUser(ctx, got))
	back, err := s.User(ctx, u.ID)
	require.NoError(t, err)
	sameTime(t, locked, back.LockedUntil, "locked_until")
	sameTime(t, got.CreatedAt, back.CreatedAt, "created_at")
	back.LockedUntil, got.LockedUntil, back.CreatedAt = time.Time{}, time.Time{}, got.CreatedAt
	assert.Equal(t, got, back)

	// Unlocking and spending the last recovery code clear them.
	back.LockedUntil, back.RecoveryCodes, back.FailedAttempts = time.Time{}, nil, 0
	require.NoError(t, s.UpdateUser(ctx, back))
	again, err := s.User(ctx, u.ID)
	require.NoError(t, err)
	assert.True(t, again.LockedUntil.IsZero(), "unlocked: %v", again.LockedUntil)
	assert.Empty(t, again.RecoveryCodes)
	assert.Zero(t, again.FailedAttempts)
	assert.ErrorIs(t, s.UpdateUser(ctx, newUser(org.ID, "x@example.com", store.RoleAdmin)), store.ErrNotFound)

	// Listing: by email, one organisation only.
	for _, e := range []string{"zoe@example.com", "bob@example.com"} {
		require.NoError(t, s.CreateUser(ctx, newUser(org.ID, e, store.RoleDeveloper)))
	}
	require.NoError(t, s.CreateUser(ctx, newUser(other.ID, "eve@example.com", store.RoleAdmin)))
	list, err := s.ListUsers(ctx, org.ID)
	require.NoError(t, err)
	var emails []string
	for _, m := range list {
		emails = append(emails, m.Email)
		assert.Equal(t, org.ID, m.OrganisationID)
	}
	assert.Equal(t, []string{"ada@example.com", "bob@example.com", "zoe@example.com"}, emails)
	none, err := s.ListUsers(ctx, org.ID+1000)
	require.NoError(t, err)
	assert.Empty(t, none)
}

// testConcurrentUsers: signups racing for one email (on one replica or
// several) leave one member; the others get ErrConflict.
func testConcurrentUsers(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	const n = 12
	orgs := make([]store.Organisation, n)
	for i := range orgs {
		orgs[i], _ = Fixture(t, s, 0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.CreateUser(ctx, newUser(orgs[i].ID, "race@example.com", store.RoleAdmin))
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		assert.ErrorIs(t, err, store.ErrConflict)
	}
	assert.Equal(t, 1, won)
	u, err := s.UserByEmail(ctx, "race@example.com")
	require.NoError(t, err)
	found := false
	for i, err := range errs {
		if err == nil {
			found = u.OrganisationID == orgs[i].ID
		}
	}
	assert.True(t, found, "the stored member belongs to the signup that won")
}

func testDeleteUser(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	other, _ := Fixture(t, s, 0)
	u := newUser(org.ID, "bob@example.com", store.RoleDeveloper)
	require.NoError(t, s.CreateUser(ctx, u))
	exp := time.Now().Add(24 * time.Hour)
	ids := []string{idv.NewID(), idv.NewID()}
	for _, id := range ids {
		require.NoError(t, s.CreateSession(ctx, store.Session{ID: id, UserID: u.ID, OrganisationID: org.ID, ExpiresAt: exp}))
	}
	// An admin of another organisation cannot remove this member.
	assert.ErrorIs(t, s.DeleteUser(ctx, other.ID, u.ID), store.ErrNotFound)
	_, err := s.User(ctx, u.ID)
	require.NoError(t, err)
	for _, id := range ids {
		sess, err := s.Session(ctx, id)
		require.NoError(t, err)
		assert.Nil(t, sess.RevokedAt)
	}

	require.NoError(t, s.DeleteUser(ctx, org.ID, u.ID))
	_, err = s.User(ctx, u.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	for _, id := range ids {
		sess, err := s.Session(ctx, id)
		require.NoError(t, err)
		assert.NotNil(t, sess.RevokedAt, "session %s of a removed member", id)
	}
	assert.ErrorIs(t, s.DeleteUser(ctx, org.ID, u.ID), store.ErrNotFound)
	// The email is free again.
	require.NoError(t, s.CreateUser(ctx, newUser(other.ID, u.Email, store.RoleAdmin)))
}

func testEmailCodes(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	_, err := s.EmailCode(ctx, "ada@example.com", "signup")
	assert.ErrorIs(t, err, store.ErrNotFound)

	exp := time.Now().Add(10 * time.Minute).UTC()
	require.NoError(t, s.PutEmailCode(ctx, store.EmailCode{Email: "ada@example.com", Purpose: "signup", CodeHash: "h1", ExpiresAt: exp}))
	c, err := s.EmailCode(ctx, "ada@example.com", "signup")
	require.NoError(t, err)
	assert.Equal(t, "h1", c.CodeHash)
	assert.Zero(t, c.Attempts)
	assert.Nil(t, c.UsedAt)
	sameTime(t, exp, c.ExpiresAt, "expires_at")
	assert.False(t, c.CreatedAt.IsZero())
	// Another purpose is another code.
	_, err = s.EmailCode(ctx, "ada@example.com", "invite")
	assert.ErrorIs(t, err, store.ErrNotFound)

	c.Attempts = 3
	require.NoError(t, s.UpdateEmailCode(ctx, c))
	c, err = s.EmailCode(ctx, "ada@example.com", "signup")
	require.NoError(t, err)
	assert.Equal(t, 3, c.Attempts)

	// A new code replaces the old one with no attempts, and an update
	// meant for the old code (a guess racing the resend) changes nothing.
	stale := c
	require.NoError(t, s.PutEmailCode(ctx, store.EmailCode{Email: "ada@example.com", Purpose: "signup", CodeHash: "h2", ExpiresAt: exp}))
	stale.Attempts = 5
	require.NoError(t, s.UpdateEmailCode(ctx, stale))
	c, err = s.EmailCode(ctx, "ada@example.com", "signup")
	require.NoError(t, err)
	assert.Equal(t, "h2", c.CodeHash)
	assert.Zero(t, c.Attempts)

	used := time.Now().UTC()
	c.UsedAt = &used
	require.NoError(t, s.UpdateEmailCode(ctx, c))
	c, err = s.EmailCode(ctx, "ada@example.com", "signup")
	require.NoError(t, err)
	require.NotNil(t, c.UsedAt)
	sameTime(t, used, *c.UsedAt, "used_at")

	// Resending after use gives a fresh, unused code.
	require.NoError(t, s.PutEmailCode(ctx, store.EmailCode{Email: "ada@example.com", Purpose: "signup", CodeHash: "h3", ExpiresAt: exp}))
	c, err = s.EmailCode(ctx, "ada@example.com", "signup")
	require.NoError(t, err)
	assert.Nil(t, c.UsedAt)
	assert.Equal(t, "h3", c.CodeHash)
}

func testSessions(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	u := newUser(org.ID, "ada@example.com", store.RoleAdmin)
	require.NoError(t, s.CreateUser(ctx, u))
	_, err := s.Session(ctx, "no-such-session")
	assert.ErrorIs(t, err, store.ErrNotFound)

	exp := time.Now().Add(24 * time.Hour).UTC()
	id := idv.NewID()
	require.NoError(t, s.CreateSession(ctx, store.Session{ID: id, UserID: u.ID, OrganisationID: org.ID, ExpiresAt: exp}))
	sess, err := s.Session(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, u.ID, sess.UserID)
	assert.Equal(t, org.ID, sess.OrganisationID)
	sameTime(t, exp, sess.ExpiresAt, "expires_at")
	assert.Nil(t, sess.RevokedAt)

	require.NoError(t, s.RevokeSession(ctx, id))
	sess, err = s.Session(ctx, id)
	require.NoError(t, err)
	require.NotNil(t, sess.RevokedAt)
	first := *sess.RevokedAt
	// Revoking again (sign-out from two tabs) keeps the first time.
	time.Sleep(5 * time.Millisecond)
	require.NoError(t, s.RevokeSession(ctx, id))
	sess, err = s.Session(ctx, id)
	require.NoError(t, err)
	sameTime(t, first, *sess.RevokedAt, "revoked_at")
	require.NoError(t, s.RevokeSession(ctx, "no-such-session"))
}

func testOrgProfile(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	_, err := s.OrgProfile(ctx, org.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)

	p := store.OrgProfile{OrganisationID: org.ID, RegistrationNumber: "PVT-123", Industry: "Lending", MonthlyVolume: "under 1,000"}
	require.NoError(t, s.PutOrgProfile(ctx, p))
	got, err := s.OrgProfile(ctx, org.ID)
	require.NoError(t, err)
	assert.False(t, got.UpdatedAt.IsZero())
	got.UpdatedAt = time.Time{}
	assert.Equal(t, p, got)

	// Recording the admin's own verification replaces the row.
	p.AdminVerificationID, p.AdminVerificationDecision = "v-1", "accept"
	require.NoError(t, s.PutOrgProfile(ctx, p))
	got, err = s.OrgProfile(ctx, org.ID)
	require.NoError(t, err)
	assert.Equal(t, "v-1", got.AdminVerificationID)
	assert.Equal(t, "accept", got.AdminVerificationDecision)
	assert.Equal(t, "PVT-123", got.RegistrationNumber)

	other, _ := Fixture(t, s, 0)
	_, err = s.OrgProfile(ctx, other.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.Error(t, s.PutOrgProfile(ctx, store.OrgProfile{OrganisationID: org.ID + 1000}), "a profile of no organisation")
}

func testConsoleClients(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, first := Fixture(t, s, 0)
	other, foreign := Fixture(t, s, 0)
	var want []string
	for i := range 3 {
		// Apart by more than the microsecond PostgreSQL keeps, so
		// "newest first" has one answer.
		time.Sleep(2 * time.Millisecond)
		c := store.Client{ID: idv.NewRequestID(), OrganisationID: org.ID, Name: fmt.Sprintf("c%d", i), SecretHash: "hash", Active: i != 1}
		require.NoError(t, s.CreateClient(ctx, c))
		want = append([]string{c.ID}, want...)
	}
	want = append(want, first.ID)
	list, err := s.ListClients(ctx, org.ID)
	require.NoError(t, err)
	var got []string
	for _, c := range list {
		got = append(got, c.ID)
		assert.Equal(t, org.ID, c.OrganisationID)
	}
	assert.Equal(t, want, got, "newest first, this organisation's only")
	assert.False(t, list[1].Active)

	require.NoError(t, s.SetClientSecret(ctx, first.ID, "rotated"))
	c, err := s.Client(ctx, first.ID)
	require.NoError(t, err)
	assert.Equal(t, "rotated", c.SecretHash)
	c, err = s.Client(ctx, foreign.ID)
	require.NoError(t, err)
	assert.Equal(t, "hash", c.SecretHash, "another client's secret stays")
	assert.ErrorIs(t, s.SetClientSecret(ctx, "no-such-client", "x"), store.ErrNotFound)

	ol, err := s.ListClients(ctx, other.ID)
	require.NoError(t, err)
	require.Len(t, ol, 1)
	assert.Equal(t, foreign.ID, ol[0].ID)
}

func testConsoleWorkflows(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 0)
	other, oc := Fixture(t, s, 0)
	c2 := store.Client{ID: idv.NewRequestID(), OrganisationID: org.ID, Name: "second", SecretHash: "hash", Active: true}
	require.NoError(t, s.CreateClient(ctx, c2))
	for _, w := range []store.Workflow{newWorkflow(c, "Zulu"), newWorkflow(c2, "Alpha"), newWorkflow(c, "Mike"), newWorkflow(oc, "Bravo")} {
		require.NoError(t, s.CreateWorkflow(ctx, w))
	}
	list, err := s.ListOrgWorkflows(ctx, org.ID)
	require.NoError(t, err)
	var names []string
	for _, w := range list {
		names = append(names, w.Definition.Name)
		assert.Equal(t, org.ID, w.OrganisationID)
		assert.Equal(t, w.ID, w.Definition.ID)
	}
	assert.Equal(t, []string{"Alpha", "Mike", "Zulu"}, names, "by name, across the organisation's clients")
	ol, err := s.ListOrgWorkflows(ctx, other.ID)
	require.NoError(t, err)
	require.Len(t, ol, 1)
	assert.Equal(t, "Bravo", ol[0].Definition.Name)
}

func testUnitLedger(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 10) // ledger: +10 "test"
	other, _ := Fixture(t, s, 7)
	_, err := s.AddUnits(ctx, org.ID, 5, "top-up")
	require.NoError(t, err)
	id := Complete(t, s, org, c, "wf", "accept") // -1, balance 14
	_, err = s.AddUnits(ctx, org.ID, -4, "correction")
	require.NoError(t, err)

	all, err := s.UnitLedger(ctx, org.ID, 100)
	require.NoError(t, err)
	require.Len(t, all, 4)
	type row struct {
		delta, balance int64
		verification   string
	}
	var got []row
	for i, e := range all {
		got = append(got, row{e.Delta, e.Balance, e.VerificationID})
		assert.NotEmpty(t, e.Reason)
		assert.False(t, e.CreatedAt.IsZero())
		if i > 0 {
			assert.Less(t, e.ID, all[i-1].ID, "newest first")
		}
	}
	assert.Equal(t, []row{{-4, 10, ""}, {-1, 14, id}, {5, 15, ""}, {10, 10, ""}}, got)
	assert.Equal(t, "correction", all[0].Reason)

	two, err := s.UnitLedger(ctx, org.ID, 2)
	require.NoError(t, err)
	assert.Equal(t, all[:2], two)
	ol, err := s.UnitLedger(ctx, other.ID, 100)
	require.NoError(t, err)
	require.Len(t, ol, 1)
	assert.EqualValues(t, 7, ol[0].Delta)
}

func testLowBalanceThreshold(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, _ := Fixture(t, s, 0)
	other, _ := Fixture(t, s, 0)
	require.NoError(t, s.SetLowBalanceThreshold(ctx, org.ID, 123))
	o, err := s.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 123, o.LowBalanceThreshold)
	o2, err := s.Organisation(ctx, other.ID)
	require.NoError(t, err)
	assert.Equal(t, other.LowBalanceThreshold, o2.LowBalanceThreshold)
	assert.ErrorIs(t, s.SetLowBalanceThreshold(ctx, org.ID+1000, 1), store.ErrNotFound)
}

func testDecisionCounts(t *testing.T, s ConsoleBackend) {
	ctx := context.Background()
	org, c := Fixture(t, s, 100)
	other, oc := Fixture(t, s, 100)
	since := time.Now().Add(-time.Minute)
	for _, d := range []string{"accept", "accept", "reject", "review"} {
		Complete(t, s, org, c, "wf", d)
	}
	Complete(t, s, other, oc, "wf", "reject")
	// A running verification is not counted.
	require.NoError(t, s.ClaimVerification(ctx, claimFor(org, c, "running", 1)))

	got, err := s.DecisionCounts(ctx, org.ID, since)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"accept": 2, "reject": 1, "review": 1}, got)
	got, err = s.DecisionCounts(ctx, other.ID, since)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"reject": 1}, got)
	got, err = s.DecisionCounts(ctx, org.ID, time.Now().Add(time.Minute))
	require.NoError(t, err)
	assert.Empty(t, got, "nothing completed after the time asked")
}
