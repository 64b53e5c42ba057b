package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync/atomic"
	"time"

	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/webhook"
)

func init() {
	Register(&Command{Path: "bench webhooks", Summary: "deliver N events through the outbox, dispatcher and mutual TLS to a local receiver; prints throughput, latency and memory", Run: runBenchWebhooks})
}

func runBenchWebhooks(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench webhooks")
	events := fs.Int("events", 2000, "events to deliver")
	hooks := fs.Int("webhooks", 1, "subscribed webhooks (each event is delivered to each)")
	workers := fs.Int("workers", 4, "concurrent deliveries (overall, and to one webhook)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *events < 1 || *hooks < 1 || *workers < 1 {
		return Usagef("--events, --webhooks and --workers must be positive")
	}
	dir, err := os.MkdirTemp("", "tambua-bench-webhooks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(ctx, filepath.Join(dir, "tambua.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := webhook.DevIdentity(dir)
	if err != nil {
		return err
	}
	var received atomic.Int64
	rc := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		received.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(id.CAPEM)
	rc.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	rc.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.StartTLS()
	defer rc.Close()
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Certificate().Raw}))

	org, err := db.CreateOrganisation(ctx, "bench")
	if err != nil {
		return err
	}
	sender := webhook.NewSender(id, &webhook.Guard{AllowPrivate: true})
	svc := webhook.NewService(db, sender)
	for i := range *hooks {
		ev := []string{webhook.EventVerificationCompleted}
		secret := "bench-secret"
		name := fmt.Sprintf("bench %d", i)
		w, err := svc.Create(ctx, org.ID, webhook.Input{Type: ptr(webhook.TypeEventNotification), Name: &name, URL: &rc.URL,
			CACertificate: &caPEM, Secret: &secret, Events: &ev})
		if err != nil {
			return err
		}
		if _, err := svc.Activate(ctx, org.ID, w.ID); err != nil {
			return err
		}
	}
	data, err := json.Marshal(webhook.SampleData(webhook.EventVerificationCompleted, time.Now()))
	if err != nil {
		return err
	}
	batch := make([]server.Event, 0, 100)
	for i := 0; i < *events; i++ {
		batch = append(batch, server.Event{EventID: webhook.NewEventID(), Event: webhook.EventVerificationCompleted, OrganisationID: org.ID, Data: data})
		if len(batch) == cap(batch) || i == *events-1 {
			if err := db.AddEvents(ctx, batch...); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}

	d := &webhook.Dispatcher{Store: db, Sender: sender, Workers: *workers, PerWebhook: *workers, Logger: slog.New(slog.DiscardHandler)}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start, cpu0 := time.Now(), processCPU()
	want := int64(*events * *hooks)
	// The server's scheduler (Run), stopped once every attempt is recorded.
	rctx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- d.Run(rctx) }()
	// Wait for the receiver to see every delivery, then for the last
	// attempts to be recorded (counting the log is the costly part, so it
	// waits for the first).
	for recorded := int64(0); recorded < want; {
		select {
		case <-ctx.Done():
			stop()
			<-ran
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if received.Load() < want {
			continue
		}
		if recorded, err = webhookAttempts(ctx, db, org.ID); err != nil {
			stop()
			<-ran
			return err
		}
	}
	elapsed, cpu := time.Since(start), processCPU()-cpu0
	stop()
	if err := <-ran; err != nil {
		return err
	}
	if n := received.Load(); n < want {
		return fmt.Errorf("bench webhooks: %d attempts recorded but the receiver saw %d", want, n)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	ws, err := db.ListWebhooks(ctx, org.ID)
	if err != nil {
		return err
	}
	var ms []int64
	for _, w := range ws {
		logs, err := db.Logs(ctx, w.ID, webhook.LogFilter{})
		if err != nil {
			return err
		}
		for _, l := range logs {
			ms = append(ms, l.ResponseTimeMS)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i] < ms[j] })
	pct := func(p float64) int64 {
		if len(ms) == 0 {
			return 0
		}
		return ms[min(len(ms)-1, int(p*float64(len(ms))))]
	}
	out := env.Stdout
	fmt.Fprintf(out, "deliveries  %d (%d events x %d webhooks), %d workers\n", want, *events, *hooks, *workers)
	fmt.Fprintf(out, "time        %s\n", elapsed.Round(time.Millisecond))
	fmt.Fprintf(out, "throughput  %.0f deliveries/s\n", float64(want)/elapsed.Seconds())
	fmt.Fprintf(out, "cpu         %s (this process: dispatcher, SQLite and the receiver), %.0f us per delivery\n",
		cpu.Round(time.Millisecond), float64(cpu.Microseconds())/float64(want))
	fmt.Fprintf(out, "attempt     p50 %d ms, p95 %d ms, p99 %d ms (request to response, mutual TLS, local receiver)\n", pct(0.50), pct(0.95), pct(0.99))
	fmt.Fprintf(out, "memory      %.1f MiB allocated in total, %.1f KiB per delivery; heap in use %.1f MiB\n",
		float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), float64(after.TotalAlloc-before.TotalAlloc)/1024/float64(want),
		float64(after.HeapInuse)/(1<<20))
	return nil
}

func ptr[T any](v T) *T { return &v }

// webhookAttempts counts the recorded attempts of an organisation's
// webhooks.
func webhookAttempts(ctx context.Context, db *sqlite.DB, org int64) (int64, error) {
	ws, err := db.ListWebhooks(ctx, org)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, w := range ws {
		st, err := db.Stats(ctx, w.ID)
		if err != nil {
			return 0, err
		}
		n += st.Total
	}
	return n, nil
}
