package migrate_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/internal/s3test"
	"github.com/tambua/tambua/server/files"
	"github.com/tambua/tambua/server/migrate"
	"github.com/tambua/tambua/server/postgres"
	"github.com/tambua/tambua/server/s3"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/store/storetest"
	"github.com/tambua/tambua/server/webhook"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	s3test.StopShared()
	os.Exit(code)
}

// TestCopy fills a SQLite installation through its store, copies it, and
// reads everything back through the PostgreSQL store and the bucket.
func TestCopy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, err := sqlite.Open(ctx, filepath.Join(dir, "tambua.db"))
	require.NoError(t, err)
	org, c := storetest.Fixture(t, src, 50)
	other, _ := storetest.Fixture(t, src, 0)
	def := idv.Workflow{Name: "KYC", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}}
	wf := store.Workflow{ID: idv.NewRequestID(), ClientID: c.ID, Status: idv.WorkflowActive, RefreshToken: "rt", Definition: def}
	require.NoError(t, src.CreateWorkflow(ctx, wf, store.Event{Event: "workflow.created", OrganisationID: org.ID, Data: json.RawMessage(`{}`)}))
	done := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: wf.ID, RequestID: "r-done", Units: 3}
	require.NoError(t, src.ClaimVerification(ctx, done))
	result := json.RawMessage(`{"decision":"accept",  "spacing":"kept"}`)
	_, err = src.CompleteVerification(ctx, store.Verification{ID: done.ID, OrganisationID: org.ID, Units: 3, Decision: "accept",
		Result: result, Files: map[string]string{"https://x/files/a": "v/" + done.ID + "/front.jpg"}}, nil)
	require.NoError(t, err)
	pending := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: wf.ID, RequestID: "r-pending", Units: 2}
	require.NoError(t, src.ClaimVerification(ctx, pending))
	key, err := src.Setting(ctx, "token_key", func() ([]byte, error) { return []byte{0, 1, 2, 0xfe}, nil })
	require.NoError(t, err)
	hook := webhook.Webhook{ID: webhook.NewWebhookID(), OrganisationID: org.ID, Type: webhook.TypeEventNotification, Name: "h",
		URL: "https://example.com/h", Method: "POST", CACertificate: "pem", Events: []string{"verification.completed"}, Status: webhook.StatusInactive}
	require.NoError(t, src.CreateWebhook(ctx, hook))
	require.NoError(t, src.SetWebhookStatus(ctx, hook.ID, webhook.StatusActive))
	require.NoError(t, src.AppendLog(ctx, webhook.LogEntry{WebhookID: hook.ID, Event: "verification.check", Timestamp: time.Now(), Status: webhook.LogSuccess, Attempt: 1}))
	// Console accounts: one member locked out (a time), one never locked
	// (SQLite's '' becomes PostgreSQL's NULL), a session, a profile.
	lockedUntil := time.Now().Add(10 * time.Minute).UTC()
	ada := store.User{ID: idv.NewID(), OrganisationID: org.ID, Email: "ada@example.com", Role: store.RoleAdmin, PasswordHash: "phc",
		TOTPEnabled: true, TOTPLastStep: 7, RecoveryCodes: []string{"r1"}, FailedAttempts: 0}
	bob := store.User{ID: idv.NewID(), OrganisationID: org.ID, Email: "bob@example.com", Role: store.RoleReviewer}
	require.NoError(t, src.CreateUser(ctx, ada))
	require.NoError(t, src.CreateUser(ctx, bob))
	bob.FailedAttempts, bob.LockedUntil = 2, lockedUntil
	require.NoError(t, src.UpdateUser(ctx, bob))
	sessID := idv.NewID()
	require.NoError(t, src.CreateSession(ctx, store.Session{ID: sessID, UserID: ada.ID, OrganisationID: org.ID, ExpiresAt: lockedUntil}))
	require.NoError(t, src.PutOrgProfile(ctx, store.OrgProfile{OrganisationID: org.ID, Industry: "Lending"}))
	wantEvents, err := src.Events(ctx, 0, 100)
	require.NoError(t, err)
	require.NoError(t, src.Close())

	folder, err := files.Open(filepath.Join(dir, "files"))
	require.NoError(t, err)
	require.NoError(t, folder.Put(ctx, "v/"+done.ID+"/front.jpg", []byte("front bytes")))
	require.NoError(t, folder.Put(ctx, "v/"+done.ID+"/back.jpg", []byte{0, 0xff}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "files", "v", ".put-123"), []byte("half"), 0o600))

	dsn := pgtest.Shared(t).NewDatabase(t)
	counts, err := migrate.Database(ctx, filepath.Join(dir, "tambua.db"), dsn)
	require.NoError(t, err)
	assert.EqualValues(t, 2, counts["organisations"])
	assert.EqualValues(t, 2, counts["verifications"])
	assert.EqualValues(t, 1, counts["webhooks"])
	_, err = migrate.Database(ctx, filepath.Join(dir, "tambua.db"), dsn)
	assert.ErrorContains(t, err, "not empty", "never into a used database")

	gw := s3test.Shared(t)
	gw.Env(t)
	bucket, err := s3.Open(ctx, gw.NewBucketURL())
	require.NoError(t, err)
	n, size, err := migrate.Files(ctx, filepath.Join(dir, "files"), bucket)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the temporary file of an unfinished write is left")
	assert.EqualValues(t, 13, size)

	dst, err := postgres.Open(ctx, dsn)
	require.NoError(t, err)
	defer dst.Close()
	o, err := dst.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 47, o.Balance)
	assert.True(t, org.CreatedAt.Round(time.Microsecond).Equal(o.CreatedAt.Round(time.Microsecond)) ||
		o.CreatedAt.Sub(org.CreatedAt).Abs() < time.Millisecond, "times survive")
	gotC, err := dst.Client(ctx, c.ID)
	require.NoError(t, err)
	assert.True(t, gotC.Active)
	assert.Equal(t, c.SecretHash, gotC.SecretHash)
	gotW, err := dst.Workflow(ctx, wf.ID)
	require.NoError(t, err)
	assert.Equal(t, def.Checks, gotW.Definition.Checks)
	assert.Equal(t, org.ID, gotW.OrganisationID)
	v, err := dst.Verification(ctx, c.ID, "r-done")
	require.NoError(t, err)
	assert.Equal(t, string(result), string(v.Result), "the stored response replays byte for byte")
	assert.Equal(t, map[string]string{"https://x/files/a": "v/" + done.ID + "/front.jpg"}, v.Files)
	_, err = dst.Verification(ctx, c.ID, "r-pending")
	assert.ErrorIs(t, err, store.ErrPending)
	assert.ErrorIs(t, dst.ClaimVerification(ctx, store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, RequestID: "r-done", Units: 1}),
		store.ErrConflict, "idempotency keys carry over")
	used, err := dst.UnitsUsedSince(ctx, org.ID, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.EqualValues(t, 3, used, "the ledger carries over")
	gotKey, err := dst.Setting(ctx, "token_key", func() ([]byte, error) { return []byte("new"), nil })
	require.NoError(t, err)
	assert.Equal(t, key, gotKey, "signing keys carry over: tokens and file URLs stay valid")
	gotEvents, err := dst.Events(ctx, 0, 100)
	require.NoError(t, err)
	require.Len(t, gotEvents, len(wantEvents))
	for i := range wantEvents {
		assert.Equal(t, wantEvents[i].Seq, gotEvents[i].Seq)
		assert.Equal(t, wantEvents[i].EventID, gotEvents[i].EventID)
		assert.Equal(t, string(wantEvents[i].Data), string(gotEvents[i].Data))
	}
	h, err := dst.Webhook(ctx, hook.ID)
	require.NoError(t, err)
	assert.Equal(t, webhook.StatusActive, h.Status)
	require.NotNil(t, h.ActivatedAt)
	st, err := dst.Stats(ctx, hook.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 1, st.Total)

	gotAda, err := dst.UserByEmail(ctx, "ada@example.com")
	require.NoError(t, err)
	assert.Equal(t, ada.ID, gotAda.ID)
	assert.True(t, gotAda.TOTPEnabled)
	assert.Equal(t, []string{"r1"}, gotAda.RecoveryCodes)
	assert.True(t, gotAda.LockedUntil.IsZero(), "never locked stays never: %v", gotAda.LockedUntil)
	gotBob, err := dst.User(ctx, bob.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, gotBob.FailedAttempts)
	assert.True(t, gotBob.LockedUntil.Sub(lockedUntil).Abs() < time.Millisecond, "lock time %v, want %v", gotBob.LockedUntil, lockedUntil)
	sess, err := dst.Session(ctx, sessID)
	require.NoError(t, err)
	assert.Equal(t, ada.ID, sess.UserID)
	prof, err := dst.OrgProfile(ctx, org.ID)
	require.NoError(t, err)
	assert.Equal(t, "Lending", prof.Industry)
	members, err := dst.ListUsers(ctx, org.ID)
	require.NoError(t, err)
	assert.Len(t, members, 2)

	// New rows continue after the copied ids.
	next, err := dst.CreateOrganisation(ctx, "After")
	require.NoError(t, err)
	assert.Equal(t, max(org.ID, other.ID)+1, next.ID)
	require.NoError(t, dst.AddEvents(ctx, store.Event{Event: "x", OrganisationID: org.ID, Data: json.RawMessage(`{}`)}))
	all, err := dst.Events(ctx, 0, 100)
	require.NoError(t, err)
	assert.Equal(t, wantEvents[len(wantEvents)-1].Seq+1, all[len(all)-1].Seq)

	f, _, err := bucket.Open(ctx, "v/"+done.ID+"/front.jpg")
	require.NoError(t, err)
	b, _ := io.ReadAll(f)
	f.Close()
	assert.Equal(t, "front bytes", string(b))
}

func TestMissingSource(t *testing.T) {
	_, err := migrate.Database(context.Background(), filepath.Join(t.TempDir(), "none.db"), "postgres://127.0.0.1:1/x")
	assert.Error(t, err)
	n, _, err := migrate.Files(context.Background(), filepath.Join(t.TempDir(), "none"), nil)
	assert.NoError(t, err, "no images yet is fine")
	assert.Zero(t, n)
}
