package webhooksbench

import (
	"testing"
	"time"
)

// TestRun delivers through the real dispatcher, SQLite and a mutual-TLS
// receiver, and checks every delivery is counted once.
func TestRun(t *testing.T) {
	rep, err := Run(t.Context(), Options{Events: 12, Webhooks: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deliveries != 24 || len(rep.AttemptMS) != 24 {
		t.Errorf("%d deliveries, %d attempts recorded; want 24 of each", rep.Deliveries, len(rep.AttemptMS))
	}
	if rep.Elapsed <= 0 || rep.AllocBytes == 0 || rep.HeapInuse == 0 {
		t.Errorf("no time or memory measured: %+v", rep)
	}
	p50, p99 := rep.AttemptPercentile(50), rep.AttemptPercentile(99)
	if p50 < 0 || p99 < p50 || time.Duration(p99)*time.Millisecond > rep.Elapsed {
		t.Errorf("attempt p50 %d ms, p99 %d ms over a run of %s", p50, p99, rep.Elapsed)
	}
}

func TestAttemptPercentile(t *testing.T) {
	r := Report{AttemptMS: []int64{9, 3, 7, 1, 5, 2, 8, 4, 6, 10}}
	for _, tc := range []struct {
		p    int
		want int64
	}{{50, 6}, {95, 10}, {99, 10}} {
		if got := r.AttemptPercentile(tc.p); got != tc.want {
			t.Errorf("p%d = %d, want %d", tc.p, got, tc.want)
		}
	}
	if got := (&Report{}).AttemptPercentile(50); got != 0 {
		t.Errorf("no attempts: p50 = %d", got)
	}
}
