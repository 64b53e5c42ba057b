package webhook_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/webhook"
)

// TestHelperDispatcher is not a test: it is the dispatcher process that
// TestKillAndRestart starts and kills.
func TestHelperDispatcher(t *testing.T) {
	dbPath := os.Getenv("TAMBUA_WEBHOOK_HELPER_DB")
	if dbPath == "" {
		t.Skip("helper process only")
	}
	dir := filepath.Dir(dbPath)
	id, err := webhook.LoadIdentity(filepath.Join(dir, "c.crt"), filepath.Join(dir, "c.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	d := &webhook.Dispatcher{Store: db, Sender: webhook.NewSender(id, &webhook.Guard{AllowPrivate: true}),
		Poll: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
	_ = d.Run(context.Background()) // runs until killed
}

// TestKillAndRestart kills a dispatcher process between the first attempt
// of a delivery and its retry; a new dispatcher on the same database
// resumes the delivery with the same delivery id and payload.
func TestKillAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "tambua.db")
	e := newEnvAt(t, dbPath)
	identity(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.crt"), identCertPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.key"), identKeyPEM, 0o600))
	rc := newReceiver(t, func(n int) int {
		if n == 1 {
			return 503
		}
		return 200
	})
	w := e.hook(t, rc, "k", webhook.EventVerificationCompleted)
	eventID := e.emit(t, webhook.EventVerificationCompleted, map[string]any{"verification_id": "v1"})

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDispatcher$")
	cmd.Env = append(os.Environ(), "TAMBUA_WEBHOOK_HELPER_DB="+dbPath)
	require.NoError(t, cmd.Start())
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	ctx := context.Background()
	require.Eventually(t, func() bool {
		ds, err := e.db.Deliveries(ctx, w.ID, 0)
		return err == nil && len(ds) == 1 && ds[0].Attempts == 1
	}, 20*time.Second, 10*time.Millisecond, "the child made its first attempt")
	require.NoError(t, cmd.Process.Kill()) // SIGKILL: no cleanup, mid-retry
	_ = cmd.Wait()
	killed = true
	ds, err := e.db.Deliveries(ctx, w.ID, 0)
	require.NoError(t, err)
	require.Equal(t, webhook.DeliveryRetrying, ds[0].Status)
	require.Len(t, rc.requests(), 1)

	// Restart: a fresh dispatcher on the same file, on the real clock.
	d := &webhook.Dispatcher{Store: e.db, Sender: webhook.NewSender(identity(t), &webhook.Guard{AllowPrivate: true}),
		Poll: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.Run(rctx) }()
	require.Eventually(t, func() bool {
		dl, err := e.db.Delivery(ctx, ds[0].ID)
		return err == nil && dl.Status == webhook.DeliverySuccess
	}, 20*time.Second, 20*time.Millisecond)
	cancel()
	require.NoError(t, <-done)

	reqs := rc.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, reqs[0].Header.Get("X-Delivery-ID"), reqs[1].Header.Get("X-Delivery-ID"))
	assert.Equal(t, reqs[0].Body, reqs[1].Body)
	assert.Contains(t, string(reqs[1].Body), eventID)
	dl, err := e.db.Delivery(ctx, ds[0].ID)
	require.NoError(t, err)
	assert.Equal(t, 2, dl.Attempts)
}
