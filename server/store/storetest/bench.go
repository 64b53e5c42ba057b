package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/server/store"
)

// Bench measures the storage side of a verification on s: a claim with
// its verification.started event, then the storing transaction
// (CompleteVerification: result, debit, ledger row, two events), from
// parallel goroutines (b.SetParallelism sets how many per core). It
// reports verifications/s, the storing transaction's p50 and p99, and CPU
// per verification: this process's, and serverCPU's (the database
// server's processes; nil when the store runs in this process), so the
// figures mean something on a machine other work shares.
func Bench(b *testing.B, s store.Store, serverCPU func() time.Duration) {
	ctx := context.Background()
	org, c := Fixture(b, s, 1<<40)
	// A result of the size a real verification stores (about 2 KB).
	result, _ := json.Marshal(map[string]any{"decision": "accept", "fields": slices.Repeat([]string{"0123456789abcdef"}, 100)})
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	start, cpu0 := time.Now(), bench.ProcessCPU()
	var srv0 time.Duration
	if serverCPU != nil {
		srv0 = serverCPU()
	}
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			cl := claimFor(org, c, idv.NewRequestID(), 1)
			if err := s.ClaimVerification(ctx, cl, event(org.ID, "verification.started")); err != nil {
				b.Error(err)
				return
			}
			v := completion(cl, string(result))
			t0 := time.Now()
			_, err := s.CompleteVerification(ctx, v, func(store.Organisation, int64) []store.Event {
				return []store.Event{event(org.ID, "verification.completed"), event(org.ID, "verification.accepted")}
			})
			mine = append(mine, time.Since(t0))
			if err != nil {
				b.Error(err)
				return
			}
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed, cpu := time.Since(start), bench.ProcessCPU()-cpu0
	var srv time.Duration
	if serverCPU != nil {
		srv = serverCPU() - srv0
	}
	b.StopTimer()
	if len(lat) == 0 {
		return
	}
	n := float64(len(lat))
	b.ReportMetric(bench.Millis(cpu)/n, "cpu-ms/verification")
	if serverCPU != nil {
		b.ReportMetric(bench.Millis(srv)/n, "server-cpu-ms/verification")
	}
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "verifications/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "store-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "store-p99-ms")
}
