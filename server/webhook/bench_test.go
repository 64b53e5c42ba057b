package webhook_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/tambua/tambua/server/webhook"
)

func BenchmarkSign(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 2048)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		_ = webhook.Sign("whsec_benchmark", body)
	}
}

func BenchmarkVerify(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 2048)
	sig := webhook.Sign("whsec_benchmark", body)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if err := webhook.Verify("whsec_benchmark", body, sig); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeliver measures one event through the whole path: outbox row,
// fan-out, lease, signed mutual-TLS request to a real receiver, attempt
// recorded in SQLite.
func BenchmarkDeliver(b *testing.B) {
	e := newEnv(b)
	rc := newReceiver(b, always(204))
	e.hook(b, rc, "k", webhook.EventVerificationCompleted)
	data := webhook.SampleData(webhook.EventVerificationCompleted, e.clock.Now())
	ctx := context.Background()
	for b.Loop() {
		e.emit(b, webhook.EventVerificationCompleted, data)
		if err := e.d.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if got := len(rc.requests()); got < b.N {
		b.Fatalf("%d deliveries for %d events", got, b.N)
	}
}
