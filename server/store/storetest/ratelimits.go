package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server/store"
)

// RunRateLimits runs the store.RateLimits suite: a bucket starts full,
// refills at its rate up to its burst, never gives a token twice under
// concurrency (replicas taking from one bucket), and keys are apart.
func RunRateLimits(t *testing.T, open func(t *testing.T) store.RateLimits) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.RateLimits)
	}{
		{"BurstThenRefill", testBurstRefill},
		{"ConcurrentTakesNeverOverdraw", testConcurrentTakes},
		{"TakeN", testTakeN},
		{"NeverRefilling", testNeverRefilling},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

func testBurstRefill(t *testing.T, s store.RateLimits) {
	ctx := context.Background()
	// 20 tokens a second: a refill the test can wait for.
	b := store.Bucket{Rate: 20, Burst: 3}
	have, err := s.Tokens(ctx, "k", b)
	require.NoError(t, err)
	assert.InDelta(t, 3, have, 1e-9, "a bucket never used is full")
	for i := range 3 {
		ok, _, err := s.TakeTokens(ctx, "k", b, 1)
		require.NoError(t, err)
		assert.True(t, ok, "take %d of the burst", i+1)
	}
	ok, wait, err := s.TakeTokens(ctx, "k", b, 1)
	require.NoError(t, err)
	assert.False(t, ok, "the burst is spent")
	assert.Greater(t, wait, time.Duration(0))
	assert.LessOrEqual(t, wait, 50*time.Millisecond+time.Millisecond, "one token comes back in 1/20 s")
	have, err = s.Tokens(ctx, "k", b)
	require.NoError(t, err)
	assert.Less(t, have, 1.0, "Tokens takes none, a refused take took none")

	// Another key is another bucket.
	ok, _, err = s.TakeTokens(ctx, "other", b, 1)
	require.NoError(t, err)
	assert.True(t, ok)

	time.Sleep(wait + 10*time.Millisecond)
	ok, _, err = s.TakeTokens(ctx, "k", b, 1)
	require.NoError(t, err)
	assert.True(t, ok, "refilled after the wait it gave")

	// Refill stops at the burst.
	time.Sleep(300 * time.Millisecond) // 6 tokens' worth
	have, err = s.Tokens(ctx, "k", b)
	require.NoError(t, err)
	assert.InDelta(t, 3, have, 1e-9)
}

func testConcurrentTakes(t *testing.T, s store.RateLimits) {
	ctx := context.Background()
	// A slow refill: the burst is all there is during the test.
	b := store.Bucket{Rate: 0.001, Burst: 10}
	var got atomic.Int64
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, _, err := s.TakeTokens(ctx, "shared", b, 1)
			assert.NoError(t, err)
			if ok {
				got.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 10, got.Load(), "exactly the burst, whoever asks")
}

func testTakeN(t *testing.T, s store.RateLimits) {
	ctx := context.Background()
	b := store.Bucket{Rate: 0.001, Burst: 100}
	ok, _, err := s.TakeTokens(ctx, "bytes", b, 101)
	require.NoError(t, err)
	assert.False(t, ok, "more than the burst never fits")
	ok, _, err = s.TakeTokens(ctx, "bytes", b, 60)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, wait, err := s.TakeTokens(ctx, "bytes", b, 60)
	require.NoError(t, err)
	assert.False(t, ok, "40 left")
	assert.InDelta(t, 20/0.001, wait.Seconds(), 2, "20 tokens at 0.001/s")
	ok, _, err = s.TakeTokens(ctx, "bytes", b, 40)
	require.NoError(t, err)
	assert.True(t, ok, "a refused take took nothing: 40 are still there")
}

func testNeverRefilling(t *testing.T, s store.RateLimits) {
	ctx := context.Background()
	// The SDK session count: two, never refilled.
	b := store.Bucket{Rate: 1e-9, Burst: 2}
	for i := range 2 {
		ok, _, err := s.TakeTokens(ctx, "ses", b, 1)
		require.NoError(t, err)
		assert.True(t, ok, "use %d", i+1)
	}
	ok, wait, err := s.TakeTokens(ctx, "ses", b, 1)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Greater(t, wait, 24*time.Hour)
}
