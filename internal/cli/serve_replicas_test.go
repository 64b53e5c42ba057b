package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/internal/s3test"
	"github.com/tambua/tambua/server/postgres"
	"github.com/tambua/tambua/server/s3"
	"github.com/tambua/tambua/server/webhook"
)

// Replica test timings, chosen so the whole test stays under a minute on a
// shared 2-core machine (46 s measured): a verification of a small image
// takes 3 to 6 s there with six running at once, so some reach the 5 s
// run timeout and complete in review, which is what a slow check does; a
// dead replica's claims are free at most 18 s (the least --stale-claim-age
// allows over 2 s + 5 s) plus a 4.5 s tick after it took them, and its
// webhook leases 35 s (the least --webhook-lease allows) after it took
// them.
const (
	replicaLoad  = 12 * time.Second
	replicaIDs   = 40 // distinct request ids the clients draw from
	replicaUsers = 30 // concurrent clients
)

// TestServeReplicas (issue 22): three tambua serve processes on one
// PostgreSQL and one S3 bucket behind a loopback load balancer; 30 clients
// send /upload with request ids drawn from 40 for a bounded time while one
// replica is killed (SIGKILL) with a verification running and webhook
// retries pending, then restarted. An HTTPS receiver (mutual TLS) fails
// the first attempt of every event. Then: every request was answered or
// safely retryable, every answer for one request id is the same
// verification, every request id ends with exactly one verification
// (retried to completion), each debited once, no claim left pending, every
// stored file in the bucket, every verification.* event delivered at
// least once and every delivery successful.
func TestServeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers")
	}
	pg := pgtest.Shared(t)
	gw := s3test.Shared(t)
	gw.Env(t)
	dsn, bucket := pg.NewDatabase(t), gw.NewBucketURL()
	ident := sharedIdentity(t)
	ctx := context.Background()

	// The organisation, client and a cheap workflow (OCR of one document
	// type on a small image): storage and replicas are under test here,
	// not OCR.
	admin := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, "", append(append(args, "--db", dsn, "--data", t.TempDir()), ident[:2]...)...)
		require.Equal(t, ExitOK, code, errOut)
		return out
	}
	org := field(t, admin("org", "create", "--name", "Replicas"), "organisation_id")
	out := admin("clients", "create", "--org", org)
	clientID, secret := field(t, out, "client_id"), field(t, out, "client_secret")
	wfFile := writeFile(t, "wf.yaml", "name: OCR\ndocument_types: [generic_passport]\nchecks:\n  - name: ocr_extraction\n")
	out = admin("workflows", "create", "--client", clientID, "--secret", secret, "--file", wfFile)
	wf := field(t, out, "work_flow_id")
	cost, err := strconv.ParseInt(field(t, out, "units"), 10, 64)
	require.NoError(t, err)
	admin("units", "add", "100000", "--org", org)
	orgID, _ := strconv.ParseInt(org, 10, 64)

	db, err := postgres.Open(ctx, dsn)
	require.NoError(t, err)
	defer db.Close()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	before, err := db.Organisation(ctx, orgID)
	require.NoError(t, err)

	rc := newFlakyReceiver(t, ident[7])
	hook := webhook.Webhook{ID: webhook.NewWebhookID(), OrganisationID: orgID, Type: webhook.TypeEventNotification, Name: "receiver",
		URL: rc.URL + "/hook", CACertificate: rc.caPEM, Secret: "replica-secret", Events: webhook.Events[:5]} // the verification.* events
	require.NoError(t, hook.Normalize())
	require.NoError(t, db.CreateWebhook(ctx, hook))
	require.NoError(t, db.SetWebhookStatus(ctx, hook.ID, webhook.StatusActive))

	flags := append([]string{"--db", dsn, "--files", bucket, "--demo=false", "--workers", "2", "--allow-private-webhooks",
		"--queue-timeout", "2s", "--run-timeout", "5s", "--stale-claim-age", "18s", "--webhook-lease", "35s"}, ident...)
	lb := newBalancer(t)
	replicas := make([]*childServer, 3)
	for i := range replicas {
		replicas[i] = startChild(t, t.TempDir(), flags...)
		lb.add(replicas[i].base)
	}
	tok := childToken(t, lb.URL, clientID, secret)
	img := smallCapture(t)

	var (
		mu                            sync.Mutex
		answers                       = map[string]string{} // request id -> idv_unique_id
		sent, ok, busy, broken, other atomic.Int64
	)
	record := func(rid string, status int, body []byte) bool {
		sent.Add(1)
		switch {
		case status == 200:
			var r struct {
				ID string `json:"idv_unique_id"`
			}
			if err := json.Unmarshal(body, &r); err != nil || r.ID == "" {
				t.Errorf("200 without a verification: %s", body)
				return false
			}
			mu.Lock()
			defer mu.Unlock()
			if prev, seen := answers[rid]; seen && prev != r.ID {
				t.Errorf("request id %s answered as %s and as %s", rid, prev, r.ID)
			}
			answers[rid] = r.ID
			ok.Add(1)
			return true
		case status == 503 && bytes.Contains(body, []byte(`"v_field39":230`)):
			busy.Add(1) // the busy answer: safely retryable
		case status == 502 && bytes.Contains(body, []byte("replica unreachable")), status == 0:
			broken.Add(1) // the replica died under the request: safely retryable
		default:
			other.Add(1)
			t.Errorf("request id %s: unexpected answer %d %s", rid, status, body)
		}
		return false
	}

	deadline := time.Now().Add(replicaLoad)
	var wg sync.WaitGroup
	for range replicaUsers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				rid := fmt.Sprintf("replica-%02d", rand.IntN(replicaIDs))
				status, body := childUpload(t, lb.URL, tok, clientID, wf, rid, img)
				record(rid, status, body)
			}
		}()
	}

	// Kill replica 1 while it runs a verification and webhook retries are
	// waiting, then start it again.
	victim := replicas[1]
	var retrying, leased int
	require.Eventually(t, func() bool {
		if err := conn.QueryRow(ctx, `SELECT COUNT(*) FILTER (WHERE status = 'retrying'), COUNT(*) FILTER (WHERE lease_until > now())
			FROM webhook_deliveries`).Scan(&retrying, &leased); err != nil {
			return false
		}
		return retrying > 0 && childBusy(victim.base) > 0
	}, replicaLoad, 20*time.Millisecond, "replica 1 never ran a verification while retries waited")
	busyAtKill := childBusy(victim.base)
	lb.remove(victim.base)
	victim.kill()
	killedAt := time.Now()
	var pendingAtKill int
	require.NoError(t, conn.QueryRow(ctx, "SELECT COUNT(*) FROM verifications WHERE state = 'pending'").Scan(&pendingAtKill))
	t.Logf("kill -9 of replica 1: %d verifications running on it, %d claims pending, %d deliveries retrying, %d leased",
		busyAtKill, pendingAtKill, retrying, leased)
	time.Sleep(2 * time.Second)
	replicas[1] = startChild(t, t.TempDir(), flags...)
	lb.add(replicas[1].base)
	wg.Wait()
	t.Logf("load: %d requests in %v by %d clients: %d answered 200, %d busy (230), %d broken by the kill, %d other",
		sent.Load(), replicaLoad, replicaUsers, ok.Load(), busy.Load(), broken.Load(), other.Load())

	// Every request id is retried until it has its verification. Those
	// whose claims the dead replica held get the busy answer until a live
	// replica releases the claims.
	ids := make(chan string, replicaIDs)
	for i := range replicaIDs {
		ids <- fmt.Sprintf("replica-%02d", i)
	}
	close(ids)
	retryUntil := time.Now().Add(60 * time.Second)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rid := range ids {
				for {
					status, body := childUpload(t, lb.URL, tok, clientID, wf, rid, img)
					if record(rid, status, body) {
						break
					}
					if time.Now().After(retryUntil) {
						t.Errorf("request id %s never completed", rid)
						break
					}
					time.Sleep(250 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("every request id completed %v after the kill", time.Since(killedAt).Round(time.Second))

	done, pending, billed, err := db.VerificationCounts(ctx, orgID)
	require.NoError(t, err)
	assert.Equal(t, int64(replicaIDs), done, "one verification per request id")
	assert.Zero(t, pending, "nothing half-stored")
	assert.Equal(t, done*cost, billed, "each verification billed once")
	var twice, ledger int64
	require.NoError(t, conn.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT verification_id FROM unit_ledger WHERE reason = 'verification'
		GROUP BY verification_id HAVING COUNT(*) > 1) d`).Scan(&twice))
	require.NoError(t, conn.QueryRow(ctx, "SELECT COUNT(*) FROM unit_ledger WHERE reason = 'verification'").Scan(&ledger))
	assert.Zero(t, twice, "no verification debited twice")
	assert.Equal(t, done, ledger)
	after, err := db.Organisation(ctx, orgID)
	require.NoError(t, err)
	assert.Equal(t, before.Balance-done*cost, after.Balance)
	mu.Lock()
	assert.Len(t, answers, replicaIDs)
	mu.Unlock()

	// Every file a stored verification names is in the bucket.
	files, err := s3.Open(ctx, bucket)
	require.NoError(t, err)
	rows, err := conn.Query(ctx, "SELECT files FROM verifications WHERE state = 'done'")
	require.NoError(t, err)
	keys := 0
	for rows.Next() {
		var raw string
		require.NoError(t, rows.Scan(&raw))
		var m map[string]string
		require.NoError(t, json.Unmarshal([]byte(raw), &m))
		for _, k := range m {
			f, _, err := files.Open(ctx, k)
			if assert.NoError(t, err, "stored file %s", k) {
				f.Close()
			}
			keys++
		}
	}
	require.NoError(t, rows.Err())
	assert.GreaterOrEqual(t, keys, 2*replicaIDs, "front and back of each verification")

	// Every verification event reaches the receiver at least once, the
	// held leases of the dead replica included, once they lapse.
	var events []string
	rows, err = conn.Query(ctx, "SELECT event_id FROM outbox WHERE organisation_id = $1 AND event LIKE 'verification.%'", orgID)
	require.NoError(t, err)
	events, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.NotEmpty(t, events)
	require.Eventually(t, func() bool {
		var waiting int
		if err := conn.QueryRow(ctx, "SELECT COUNT(*) FROM webhook_deliveries WHERE status <> 'success'").Scan(&waiting); err != nil || waiting > 0 {
			return false
		}
		return rc.missing(events) == 0
	}, 60*time.Second, 250*time.Millisecond, "events not delivered: %d of %d", rc.missing(events), len(events))
	var deliveries, attempts int
	require.NoError(t, conn.QueryRow(ctx, "SELECT COUNT(*), COALESCE(SUM(attempts), 0) FROM webhook_deliveries").Scan(&deliveries, &attempts))
	assert.Equal(t, len(events), deliveries, "one delivery per event")
	w, err := db.Webhook(ctx, hook.ID)
	require.NoError(t, err)
	assert.Equal(t, webhook.StatusActive, w.Status, "retried deliveries do not pause the webhook")
	received, dup := rc.counts()
	t.Logf("webhooks: %d events, %d deliveries, %d attempts recorded, %d requests received (%d event ids received more than twice); all %v after the kill",
		len(events), deliveries, attempts, received, dup, time.Since(killedAt).Round(time.Second))

	for _, r := range replicas {
		r.stop()
	}
}

// childBusy returns the verifications running on a child, from /healthz.
func childBusy(base string) int {
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var h struct {
		Busy int `json:"busy"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&h)
	return h.Busy
}

// balancer is a loopback round-robin load balancer over live replicas. A
// replica that dies under a request gives 502 "replica unreachable", as a
// real balancer would; the client may retry it.
type balancer struct {
	*httptest.Server
	mu       sync.Mutex
	backends []string
	next     int
}

func newBalancer(t *testing.T) *balancer {
	b := &balancer{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			b.mu.Lock()
			target := b.backends[b.next%len(b.backends)]
			b.next++
			b.mu.Unlock()
			u, _ := url.Parse(target)
			pr.SetURL(u)
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "replica unreachable", http.StatusBadGateway)
		},
		ErrorLog: log.New(io.Discard, "", 0),
	}
	b.Server = httptest.NewServer(rp)
	t.Cleanup(b.Close)
	return b
}

func (b *balancer) add(base string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.backends = append(b.backends, base)
}

func (b *balancer) remove(base string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, s := range b.backends {
		if s == base {
			b.backends = append(b.backends[:i], b.backends[i+1:]...)
			return
		}
	}
}

// flakyReceiver is an HTTPS webhook receiver requiring the replicas'
// client certificate that fails the first attempt of every event (503)
// and accepts the later ones.
type flakyReceiver struct {
	*httptest.Server
	caPEM string
	mu    sync.Mutex
	seen  map[string]int // event id -> requests
	ok    map[string]bool
}

func newFlakyReceiver(t *testing.T, clientCAFile string) *flakyReceiver {
	caPEM, err := os.ReadFile(clientCAFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	rc := &flakyReceiver{seen: map[string]int{}, ok: map[string]bool{}}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env struct {
			EventID string `json:"event_id"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &env) != nil || env.EventID == "" {
			http.Error(w, "bad envelope", http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.seen[env.EventID]++
		first := rc.seen[env.EventID] == 1
		if !first {
			rc.ok[env.EventID] = true
		}
		rc.mu.Unlock()
		if first {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	rc.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	rc.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.StartTLS()
	t.Cleanup(rc.Close)
	rc.caPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Certificate().Raw}))
	return rc
}

// missing counts the events not yet accepted.
func (rc *flakyReceiver) missing(events []string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, e := range events {
		if !rc.ok[e] {
			n++
		}
	}
	return n
}

// counts returns the requests received and the event ids received more
// than twice (the failed first attempt and one success are expected).
func (rc *flakyReceiver) counts() (requests, extra int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, n := range rc.seen {
		requests += n
		if n > 2 {
			extra++
		}
	}
	return requests, extra
}

// smallCapture is a 320x200 JPEG, blank but for one dark block (a photo's
// place): OCR finds no text in it at once, so a verification costs the
// server's own work, not OCR's.
func smallCapture(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for y := range 200 {
		for x := range 320 {
			v := uint8(235)
			if x >= 20 && x < 100 && y >= 40 && y < 150 {
				v = 60
			}
			img.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}))
	return b.Bytes()
}
