//go:build load

package cli

// The load test is not in the normal suite: it keeps every core busy for
// its whole duration. Run it with
//
//	TAMBUA_LOAD_DURATION=5m go test -tags load -run TestServeLoad -v -timeout 30m ./internal/cli
//
// (default duration 60 s; TAMBUA_LOAD_CLIENTS, default 50).

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/server/sqlite"
)

// TestServeLoad runs tambua serve as a child process with the real checks
// and sends /upload from many clients at once for a bounded time, a fifth
// of them repeating a request_id already sent (perhaps still running). It
// checks: no 5xx but the documented busy answer (code 230), one
// idv_unique_id per request_id, each verification billed once, and the
// server's resident memory at the end within 20 % of what it was after
// warm-up; it reports p50 and p99 of the successes.
func TestServeLoad(t *testing.T) {
	passport, err := os.ReadFile(fixtures.Path(t, "ids", "passeye_passport-td3.jpg"))
	require.NoError(t, err)
	duration := 60 * time.Second
	if d, err := time.ParseDuration(os.Getenv("TAMBUA_LOAD_DURATION")); err == nil {
		duration = d
	}
	clients := 50
	if n, err := strconv.Atoi(os.Getenv("TAMBUA_LOAD_CLIENTS")); err == nil && n > 0 {
		clients = n
	}
	data := t.TempDir()
	ctx := context.Background()
	c := startChild(t, data)
	defer c.stop()
	id, wf, org, tok := childDemo(t, c)
	db, err := sqlite.Open(ctx, filepath.Join(data, "tambua.db"))
	require.NoError(t, err)
	defer db.Close()
	// Enough units for the whole run.
	_, err = db.AddUnits(ctx, org, 1_000_000, "load test")
	require.NoError(t, err)

	type result struct {
		rid     string
		status  int
		code    float64
		idv     string
		latency time.Duration
	}
	var mu sync.Mutex
	var results []result
	var sent []string
	start := time.Now()
	warm := start.Add(duration / 5)
	var rssWarm int64
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 14))
			for n := 0; time.Since(start) < duration; n++ {
				rid := fmt.Sprintf("load-%d-%d", i, n)
				mu.Lock()
				if len(sent) > 0 && r.IntN(5) == 0 {
					rid = sent[r.IntN(len(sent))]
				} else {
					sent = append(sent, rid)
				}
				mu.Unlock()
				t0 := time.Now()
				status, body := childUpload(t, c.base, tok, id, wf, rid, passport)
				res := result{rid: rid, status: status, latency: time.Since(t0)}
				var obj map[string]any
				if json.Unmarshal(body, &obj) == nil {
					res.idv, _ = obj["idv_unique_id"].(string)
					res.code, _ = obj["v_field39"].(float64)
				}
				mu.Lock()
				results = append(results, res)
				if rssWarm == 0 && time.Now().After(warm) {
					rssWarm = rss(t, c.cmd.Process.Pid)
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	rssEnd := rss(t, c.cmd.Process.Pid)

	byStatus := map[string]int{}
	idvOf := map[string]string{}
	gaveUp := map[string]bool{} // the client's own timeout: the server may still have run it
	var ok []time.Duration
	for _, r := range results {
		byStatus[fmt.Sprintf("%d/%v", r.status, r.code)]++
		switch {
		case r.status == 200:
			ok = append(ok, r.latency)
			if prev, seen := idvOf[r.rid]; seen {
				assert.Equal(t, prev, r.idv, "request_id %s answered with two verifications", r.rid)
			}
			idvOf[r.rid] = r.idv
		case r.status == 503 && r.code == 230:
		case r.status == 0:
			gaveUp[r.rid] = true
			t.Logf("request %s: no answer within the client's timeout", r.rid)
		default:
			t.Errorf("request %s: HTTP %d code %v", r.rid, r.status, r.code)
		}
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i] < ok[j] })
	pct := func(p float64) time.Duration {
		if len(ok) == 0 {
			return 0
		}
		return ok[min(len(ok)-1, int(p*float64(len(ok))))]
	}
	done, pending, billed, err := db.VerificationCounts(ctx, org)
	require.NoError(t, err)
	var cost int64
	if done > 0 {
		cost = billed / done
	}
	var debits int64
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(data, "tambua.db")+"?mode=ro")
	require.NoError(t, err)
	defer raw.Close()
	require.NoError(t, raw.QueryRowContext(ctx, "SELECT COUNT(*) FROM unit_ledger WHERE organisation_id = ? AND reason = 'verification'", org).Scan(&debits))
	var statuses []string
	for k, v := range byStatus {
		statuses = append(statuses, fmt.Sprintf("%s x%d", k, v))
	}
	sort.Strings(statuses)
	t.Logf("%d clients for %s: %d requests (%s); %d successes, %d distinct request_ids verified; p50 %s, p99 %s",
		clients, duration, len(results), strings.Join(statuses, ", "), len(ok), len(idvOf), pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond))
	t.Logf("stored: %d verifications, %d pending, %d ledger debits, %d units billed (%d each); RSS after warm-up %d MiB, at the end %d MiB",
		done, pending, debits, billed, cost, rssWarm>>20, rssEnd>>20)
	// Every request_id answered is stored once (the table's unique key
	// makes "once" structural); a request whose client gave up may have
	// run too, and nothing else may be stored.
	stored := map[string]bool{}
	rows, err := raw.QueryContext(ctx, "SELECT request_id FROM verifications WHERE organisation_id = ?", org)
	require.NoError(t, err)
	for rows.Next() {
		var rid string
		require.NoError(t, rows.Scan(&rid))
		stored[rid] = true
	}
	require.NoError(t, rows.Err())
	for rid := range idvOf {
		assert.True(t, stored[rid], "request_id %s answered but not stored", rid)
	}
	for rid := range stored {
		assert.True(t, idvOf[rid] != "" || gaveUp[rid], "request_id %s stored but neither answered nor abandoned", rid)
	}
	assert.Equal(t, int64(len(stored)), done, "one stored verification per request_id")
	assert.Equal(t, done, debits, "one debit per verification")
	assert.Equal(t, done*cost, billed, "billed once each")
	assert.Zero(t, pending)
	if rssWarm > 0 {
		assert.LessOrEqual(t, float64(rssEnd), 1.2*float64(rssWarm), "RSS grew more than 20 %% after warm-up")
	}
}

// rss is a process's resident memory in bytes (Linux).
func rss(t *testing.T, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Logf("rss: %v", err)
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
