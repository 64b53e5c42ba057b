package store_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tambua/tambua/server/store"
)

// claimStore answers ReleaseClaimsBefore only, and records its calls.
type claimStore struct {
	store.Store
	mu     sync.Mutex
	n      int64
	err    error
	before []time.Time
}

func (c *claimStore) ReleaseClaimsBefore(_ context.Context, t time.Time) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.before = append(c.before, t)
	return c.n, c.err
}

func (c *claimStore) calls() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.before...)
}

func TestReleaseDeadClaims(t *testing.T) {
	at := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		n       int64
		err     error
		wantLog string
	}{
		{"none", 0, nil, ""},
		{"some", 3, nil, "count=3"},
		{"failed", 0, errors.New("disk"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			st := &claimStore{n: tc.n, err: tc.err}
			err := store.ReleaseDeadClaims(context.Background(), st, slog.New(slog.NewTextHandler(&buf, nil)), at)
			if !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			if got := st.calls(); len(got) != 1 || !got[0].Equal(at) {
				t.Errorf("released before %v, want %v", got, at)
			}
			if tc.wantLog == "" && buf.Len() > 0 || !strings.Contains(buf.String(), tc.wantLog) {
				t.Errorf("log %q, want %q", buf.String(), tc.wantLog)
			}
		})
	}
}

func TestReleaseStaleClaims(t *testing.T) {
	st := &claimStore{}
	age := 40 * time.Millisecond // ticks every 10 ms
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		store.ReleaseStaleClaims(ctx, st, slog.New(slog.DiscardHandler), age)
	}()
	for len(st.calls()) < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	for _, b := range st.calls() {
		if since := time.Since(b); since < age {
			t.Errorf("released claims taken %v ago, want at least %v", since, age)
		}
	}
}
