// Package webhooksbench measures webhook delivery for tambua bench
// webhooks: events go through the outbox (SQLite), the dispatcher and
// mutual TLS to a local HTTPS receiver; the report has the throughput,
// CPU time, each attempt's response time and memory.
package webhooksbench

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
	"sync/atomic"
	"time"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

// Options of Run.
type Options struct {
	// Events to deliver, each to every one of Webhooks subscribed
	// webhooks, with Workers concurrent deliveries (overall and to one
	// webhook).
	Events, Webhooks, Workers int
}

// Report is what one run measured.
type Report struct {
	Options
	// Deliveries is Events times Webhooks.
	Deliveries int64
	// Elapsed and CPU (this process: dispatcher, SQLite and the receiver)
	// run from the dispatcher's start until every attempt is recorded.
	Elapsed, CPU time.Duration
	// AttemptMS is the response time of each recorded attempt.
	AttemptMS []int64
	// AllocBytes is what the run allocated; HeapInuse the heap after it.
	AllocBytes, HeapInuse uint64
}

// AttemptPercentile is the p-th percentile of the attempts' response
// times in milliseconds.
func (r *Report) AttemptPercentile(p int) int64 { return bench.Percentile(r.AttemptMS, p) }

// Run delivers o.Events events to each of o.Webhooks webhooks through
// the outbox, the dispatcher and mutual TLS to a local HTTPS receiver,
// with a SQLite database in a temporary folder.
func Run(ctx context.Context, o Options) (*Report, error) {
	dir, err := os.MkdirTemp("", "tambua-bench-webhooks-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(ctx, filepath.Join(dir, "tambua.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	id, err := webhook.DevIdentity(dir)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	sender := webhook.NewSender(id, &webhook.Guard{AllowPrivate: true})
	svc := webhook.NewService(db, sender)
	for i := range o.Webhooks {
		ev := []string{webhook.EventVerificationCompleted}
		secret := "bench-secret"
		name := fmt.Sprintf("bench %d", i)
		w, err := svc.Create(ctx, org.ID, webhook.Input{Type: ptr(webhook.TypeEventNotification), Name: &name, URL: &rc.URL,
			CACertificate: &caPEM, Secret: &secret, Events: &ev})
		if err != nil {
			return nil, err
		}
		if _, err := svc.Activate(ctx, org.ID, w.ID); err != nil {
			return nil, err
		}
	}
	data, err := json.Marshal(webhook.SampleData(webhook.EventVerificationCompleted, time.Now()))
	if err != nil {
		return nil, err
	}
	batch := make([]store.Event, 0, 100)
	for i := 0; i < o.Events; i++ {
		batch = append(batch, store.Event{EventID: webhook.NewEventID(), Event: webhook.EventVerificationCompleted, OrganisationID: org.ID, Data: data})
		if len(batch) == cap(batch) || i == o.Events-1 {
			if err := db.AddEvents(ctx, batch...); err != nil {
				return nil, err
			}
			batch = batch[:0]
		}
	}

	d := &webhook.Dispatcher{Store: db, Sender: sender, Workers: o.Workers, PerWebhook: o.Workers, Logger: slog.New(slog.DiscardHandler)}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start, cpu0 := time.Now(), bench.ProcessCPU()
	want := int64(o.Events * o.Webhooks)
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
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if received.Load() < want {
			continue
		}
		if recorded, err = webhookAttempts(ctx, db, org.ID); err != nil {
			stop()
			<-ran
			return nil, err
		}
	}
	elapsed, cpu := time.Since(start), bench.ProcessCPU()-cpu0
	stop()
	if err := <-ran; err != nil {
		return nil, err
	}
	if n := received.Load(); n < want {
		return nil, fmt.Errorf("bench webhooks: %d attempts recorded but the receiver saw %d", want, n)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	ws, err := db.ListWebhooks(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	var ms []int64
	for _, w := range ws {
		logs, err := db.Logs(ctx, w.ID, webhook.LogFilter{})
		if err != nil {
			return nil, err
		}
		for _, l := range logs {
			ms = append(ms, l.ResponseTimeMS)
		}
	}
	return &Report{Options: o, Deliveries: want, Elapsed: elapsed, CPU: cpu, AttemptMS: ms,
		AllocBytes: after.TotalAlloc - before.TotalAlloc, HeapInuse: after.HeapInuse}, nil
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
