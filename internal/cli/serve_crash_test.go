package cli

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/server/sqlite"
)

// TestServeCrashMidVerification kills tambua serve (SIGKILL) while a
// verification runs its checks, with the claim taken and the captures on
// disk, then starts it again on the same data: nothing half-stored
// remains (no pending claim, no captures without a record, no temporary
// file, nothing billed), and the retried request_id runs once and is
// billed once; a second retry gets the stored result (issue 14, "Prove
// it").
func TestServeCrashMidVerification(t *testing.T) {
	passport, err := os.ReadFile(fixtures.Path(t, "ids", "passeye_passport-td3.jpg"))
	require.NoError(t, err)
	data := t.TempDir()
	ctx := context.Background()

	c := startChild(t, data, "--workers", "1")
	id, wf, org, tok := childDemo(t, c)

	db, err := sqlite.Open(ctx, filepath.Join(data, "tambua.db"))
	require.NoError(t, err)
	defer db.Close()
	before, err := db.Organisation(ctx, org)
	require.NoError(t, err)

	answered := make(chan int, 1)
	go func() {
		status, _ := childUpload(t, c.base, tok, id, wf, "crash-1", passport)
		answered <- status
	}()
	// Kill once the claim is taken and the captures are stored.
	require.Eventually(t, func() bool {
		_, pending, _, err := db.VerificationCounts(ctx, org)
		return err == nil && pending == 1 && len(storedUnder(t, data, "v")) >= 2
	}, 60*time.Second, 10*time.Millisecond, "the verification never got under way")
	c.kill()
	assert.Equal(t, 0, <-answered, "the client's connection breaks")
	done, pending, billed, err := db.VerificationCounts(ctx, org)
	require.NoError(t, err)
	t.Logf("after kill -9: done %d, pending %d, billed %d, files under v/: %d", done, pending, billed, len(storedUnder(t, data, "v")))
	require.Equal(t, int64(1), pending, "the crash left the claim pending")

	c = startChild(t, data, "--workers", "1")
	done, pending, billed, err = db.VerificationCounts(ctx, org)
	require.NoError(t, err)
	assert.Equal(t, [3]int64{0, 0, 0}, [3]int64{done, pending, billed}, "after restart: done, pending, billed")
	assert.Empty(t, storedUnder(t, data, "v"), "captures of the interrupted verification are removed")
	for _, f := range storedUnder(t, data, "") {
		assert.False(t, strings.HasPrefix(filepath.Base(f), ".put-"), "temporary file left: %s", f)
	}
	o, err := db.Organisation(ctx, org)
	require.NoError(t, err)
	assert.Equal(t, before.Balance, o.Balance, "nothing billed for the interrupted verification")

	status, body := childUpload(t, c.base, tok, id, wf, "crash-1", passport)
	require.Equal(t, 200, status, string(body))
	var first map[string]any
	require.NoError(t, json.Unmarshal(body, &first))
	status, body = childUpload(t, c.base, tok, id, wf, "crash-1", passport)
	require.Equal(t, 200, status, string(body))
	var again map[string]any
	require.NoError(t, json.Unmarshal(body, &again))
	assert.Equal(t, first["idv_unique_id"], again["idv_unique_id"], "the retry gets the stored result")
	c.stop()

	done, pending, billed, err = db.VerificationCounts(ctx, org)
	require.NoError(t, err)
	o, err = db.Organisation(ctx, org)
	require.NoError(t, err)
	cost := int64(first["units_consumed"].(float64))
	t.Logf("after restart and two retries: done %d, pending %d, billed %d units (cost %d), balance %d -> %d", done, pending, billed, cost, before.Balance, o.Balance)
	assert.Equal(t, int64(1), done, "run once")
	assert.Equal(t, int64(0), pending)
	assert.Equal(t, cost, billed, "billed once")
	assert.Equal(t, before.Balance-cost, o.Balance)
	assert.Len(t, dirs(t, data, "v"), 1, "one stored verification's files")
}

// storedUnder lists the regular files under data/files/sub.
func storedUnder(t *testing.T, data, sub string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(data, "files", sub), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// dirs lists the folders directly under data/files/sub.
func dirs(t *testing.T, data, sub string) []string {
	ents, _ := os.ReadDir(filepath.Join(data, "files", sub))
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestServeGracefulShutdown sends SIGTERM to tambua serve while a
// verification runs: /readyz turns 503 at once (liveness stays 200) while
// the listener still takes requests for --shutdown-delay, the running
// verification finishes and its client gets the result, it is stored and
// billed once, and the process exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	passport, err := os.ReadFile(fixtures.Path(t, "ids", "passeye_passport-td3.jpg"))
	require.NoError(t, err)
	data := t.TempDir()
	ctx := context.Background()
	c := startChild(t, data, "--workers", "1", "--shutdown-delay", "1500ms", "--shutdown-timeout", "2m")
	id, wf, org, tok := childDemo(t, c)
	status := func(path string) int {
		resp, err := http.Get(c.base + path)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, 200, status("/readyz"))

	db, err := sqlite.Open(ctx, filepath.Join(data, "tambua.db"))
	require.NoError(t, err)
	defer db.Close()
	type answer struct {
		status int
		body   []byte
	}
	answered := make(chan answer, 1)
	go func() {
		s, b := childUpload(t, c.base, tok, id, wf, "graceful-1", passport)
		answered <- answer{s, b}
	}()
	require.Eventually(t, func() bool {
		_, pending, _, err := db.VerificationCounts(ctx, org)
		return err == nil && pending == 1
	}, 60*time.Second, 10*time.Millisecond, "the verification never got under way")
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	c.done = true
	require.Eventually(t, func() bool { return status("/readyz") == 503 }, 5*time.Second, 20*time.Millisecond, "not ready once draining")
	assert.Equal(t, 200, status("/healthz"), "alive while draining")
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	var a answer
	select {
	case a = <-answered:
	case <-time.After(2 * time.Minute):
		t.Fatal("the running verification was not answered")
	}
	require.Equal(t, 200, a.status, "the running verification finishes: %s", a.body)
	select {
	case err := <-exited:
		require.NoError(t, err, "exit status 0: %s", c.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit after its last request")
	}
	assert.Contains(t, c.stderr.String(), "shut down: every request finished")
	done, pending, billed, err := db.VerificationCounts(ctx, org)
	require.NoError(t, err)
	var res map[string]any
	require.NoError(t, json.Unmarshal(a.body, &res))
	t.Logf("after SIGTERM mid-verification: done %d, pending %d, billed %d", done, pending, billed)
	assert.Equal(t, [3]int64{1, 0, int64(res["units_consumed"].(float64))}, [3]int64{done, pending, billed}, "stored and billed once")
}
