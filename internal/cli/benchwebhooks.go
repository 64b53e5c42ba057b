package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/tambua/tambua/internal/bench/webhooksbench"
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
	r, err := webhooksbench.Run(ctx, webhooksbench.Options{Events: *events, Webhooks: *hooks, Workers: *workers})
	if err != nil {
		return err
	}
	want := r.Deliveries
	out := env.Stdout
	fmt.Fprintf(out, "deliveries  %d (%d events x %d webhooks), %d workers\n", want, r.Events, r.Webhooks, r.Workers)
	fmt.Fprintf(out, "time        %s\n", r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(out, "throughput  %.0f deliveries/s\n", float64(want)/r.Elapsed.Seconds())
	fmt.Fprintf(out, "cpu         %s (this process: dispatcher, SQLite and the receiver), %.0f us per delivery\n",
		r.CPU.Round(time.Millisecond), float64(r.CPU.Microseconds())/float64(want))
	fmt.Fprintf(out, "attempt     p50 %d ms, p95 %d ms, p99 %d ms (request to response, mutual TLS, local receiver)\n",
		r.AttemptPercentile(50), r.AttemptPercentile(95), r.AttemptPercentile(99))
	fmt.Fprintf(out, "memory      %.1f MiB allocated in total, %.1f KiB per delivery; heap in use %.1f MiB\n",
		float64(r.AllocBytes)/(1<<20), float64(r.AllocBytes)/1024/float64(want), float64(r.HeapInuse)/(1<<20))
	return nil
}
