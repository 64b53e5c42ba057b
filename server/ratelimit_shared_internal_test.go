package server

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tambua/tambua/server/store"
)

// downRates is a shared bucket store whose database is unreachable: every
// call fails, as a pool's would.
type downRates struct{ calls atomic.Int64 }

var errDown = errors.New("connection refused")

func (d *downRates) TakeTokens(context.Context, string, store.Bucket, int) (bool, time.Duration, error) {
	d.calls.Add(1)
	return false, 0, errDown
}

func (d *downRates) Tokens(context.Context, string, store.Bucket) (float64, error) {
	d.calls.Add(1)
	return 0, errDown
}

// TestSharedLimiterFallsBackToItsOwn: while the shared store fails, a
// limiter keeps limiting with this replica's buckets (it neither lets
// everything through nor refuses everything), and says so once, not
// once per request.
func TestSharedLimiterFallsBackToItsOwn(t *testing.T) {
	d := &downRates{}
	var warned atomic.Int64
	l := newLimiter(0.001, 3, time.Now)
	l.share(d, "test", func(err error) {
		assert.ErrorIs(t, err, errDown)
		warned.Add(1)
	})
	for i := range 3 {
		ok, _ := l.allow("k")
		assert.True(t, ok, "take %d of the burst", i+1)
	}
	ok, retry := l.allow("k")
	assert.False(t, ok, "the replica's own bucket is spent")
	assert.Positive(t, retry)

	for range 3 {
		l.charge("c")
	}
	ok, _ = l.open("c")
	assert.False(t, ok, "charges reach the own bucket too")
	ok, _ = l.allowN("n", 2)
	assert.True(t, ok)
	assert.Positive(t, d.calls.Load(), "the shared store was asked first")
	assert.EqualValues(t, 1, warned.Load(), "one warning a minute")
}
