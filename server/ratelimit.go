package server

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per key (a client_id, or the remote address
// when the request names no client).
type limiter struct {
	mu    sync.Mutex
	rate  rate.Limit
	burst int
	now   func() time.Time
	keys  map[string]*bucket
}

type bucket struct {
	l    *rate.Limiter
	seen time.Time
}

// maxKeys bounds memory: beyond it, idle buckets are dropped.
const maxKeys = 10000

func newLimiter(perSecond float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate.Limit(perSecond), burst: burst, now: now, keys: map[string]*bucket{}}
}

// allow reports whether a request for key may go ahead, and if not after
// how many seconds it may.
func (l *limiter) allow(key string) (bool, int) {
	if l.rate <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.keys[key]
	if !ok {
		if len(l.keys) >= maxKeys {
			l.prune(now)
		}
		b = &bucket{l: rate.NewLimiter(l.rate, l.burst)}
		l.keys[key] = b
	}
	b.seen = now
	r := b.l.ReserveN(now, 1)
	if !r.OK() {
		return false, 60
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, int(math.Ceil(d.Seconds()))
	}
	return true, 0
}

// prune drops buckets idle long enough to have refilled completely.
func (l *limiter) prune(now time.Time) {
	full := time.Duration(float64(l.burst)/float64(l.rate)*float64(time.Second)) + time.Minute
	for k, b := range l.keys {
		if now.Sub(b.seen) > full {
			delete(l.keys, k)
		}
	}
}
