package server

import (
	"container/list"
	"context"
	"hash/maphash"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/tambua/tambua/server/store"
)

// limiter is a token bucket per key. Its memory is bounded without a sweep:
// keys are spread over shards, each a least-recently-used list of fixed
// capacity, so adding a key costs O(1) under one shard's lock and evicts
// that shard's least recently used bucket when full.
//
// A limiter given a shared store (share) keeps its buckets there instead,
// so replicas on one database hold one limit between them; its own
// buckets then serve only while the store fails.
type limiter struct {
	rate   rate.Limit
	burst  int
	now    func() time.Time
	seed   maphash.Seed
	shards [limiterShards]limiterShard

	shared   store.RateLimits
	name     string      // the shared keys' prefix: one limiter's keys apart from another's
	onErr    func(error) // told when the shared store fails
	lastWarn atomic.Int64
}

// sharedTimeout bounds one shared bucket operation: past it the request
// goes on with this replica's own bucket rather than wait for a slow
// database.
const sharedTimeout = 2 * time.Second

// share keeps the limiter's buckets in rl under name.
func (l *limiter) share(rl store.RateLimits, name string, onErr func(error)) {
	l.shared, l.name, l.onErr = rl, name, onErr
}

func (l *limiter) bucket() store.Bucket {
	return store.Bucket{Rate: float64(l.rate), Burst: l.burst}
}

// failed reports a shared store error, at most once a minute.
func (l *limiter) failed(err error) {
	now := time.Now().Unix()
	if last := l.lastWarn.Load(); now-last >= 60 && l.lastWarn.CompareAndSwap(last, now) && l.onErr != nil {
		l.onErr(err)
	}
}

// sharedTake takes n tokens from the shared bucket; ok false with done
// false means the store failed and the caller uses its own bucket.
func (l *limiter) sharedTake(key string, n int) (allowed bool, retry int, done bool) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	ok, wait, err := l.shared.TakeTokens(ctx, l.name+"|"+key, l.bucket(), n)
	if err != nil {
		l.failed(err)
		return false, 0, false
	}
	if ok {
		return true, 0, true
	}
	return false, max(1, int(math.Ceil(wait.Seconds()))), true
}

type limiterShard struct {
	mu   sync.Mutex
	keys map[string]*list.Element
	lru  list.List // of *bucket, most recent at the front
}

type bucket struct {
	key string
	l   *rate.Limiter
}

// Limiter bounds: limiterShards shards of shardCap keys, 65,536 keys in
// all, about 10 MB per limiter at most. An evicted key gets a full bucket
// again; evicting a bucket still in use needs 65,536 other keys within its
// refill time (20 s at the defaults), which the address limiter makes
// costly from any one address.
const (
	limiterShards = 64
	shardCap      = 1024
)

func newLimiter(perSecond float64, burst int, now func() time.Time) *limiter {
	l := &limiter{rate: rate.Limit(perSecond), burst: burst, now: now, seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].keys = map[string]*list.Element{}
	}
	return l
}

// get returns key's bucket, creating it (and evicting the shard's least
// recently used one when full). The caller holds the shard's lock.
func (l *limiter) get(sh *limiterShard, key string) *rate.Limiter {
	if el, ok := sh.keys[key]; ok {
		sh.lru.MoveToFront(el)
		return el.Value.(*bucket).l
	}
	if sh.lru.Len() >= shardCap {
		old := sh.lru.Back()
		sh.lru.Remove(old)
		delete(sh.keys, old.Value.(*bucket).key)
	}
	b := &bucket{key: key, l: rate.NewLimiter(l.rate, l.burst)}
	sh.keys[key] = sh.lru.PushFront(b)
	return b.l
}

func (l *limiter) shard(key string) *limiterShard {
	return &l.shards[maphash.String(l.seed, key)%limiterShards]
}

// allow takes one token for key: it reports whether the request may go
// ahead, and if not after how many seconds it may.
func (l *limiter) allow(key string) (bool, int) {
	if l.rate <= 0 {
		return true, 0
	}
	if l.shared != nil {
		if ok, retry, done := l.sharedTake(key, 1); done {
			return ok, retry
		}
	}
	sh := l.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := l.now()
	r := l.get(sh, key).ReserveN(now, 1)
	if !r.OK() {
		return false, 60
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, int(math.Ceil(d.Seconds()))
	}
	return true, 0
}

// allowN takes n tokens for key when it has them (a budget of bytes, say):
// it reports whether it did, and if not after how many seconds it could.
func (l *limiter) allowN(key string, n int) (bool, int) {
	if l.rate <= 0 {
		return true, 0
	}
	if n > l.burst {
		return false, 0
	}
	if l.shared != nil {
		if ok, retry, done := l.sharedTake(key, n); done {
			return ok, retry
		}
	}
	sh := l.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := l.now()
	b := l.get(sh, key)
	if b.AllowN(now, n) {
		return true, 0
	}
	wait := (float64(n) - b.TokensAt(now)) / float64(l.rate)
	return false, max(1, int(math.Ceil(wait)))
}

// open reports, without taking a token, whether key has one left: the
// check before work whose failures alone are charged (charge).
func (l *limiter) open(key string) (bool, int) {
	if l.rate <= 0 {
		return true, 0
	}
	if l.shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		tokens, err := l.shared.Tokens(ctx, l.name+"|"+key, l.bucket())
		cancel()
		if err == nil {
			if tokens >= 1 {
				return true, 0
			}
			return false, max(1, int(math.Ceil((1-tokens)/float64(l.rate))))
		}
		l.failed(err)
	}
	sh := l.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	el, ok := sh.keys[key]
	if !ok {
		return true, 0
	}
	sh.lru.MoveToFront(el)
	now := l.now()
	tokens := el.Value.(*bucket).l.TokensAt(now)
	if tokens >= 1 {
		return true, 0
	}
	wait := (1 - tokens) / float64(l.rate)
	return false, max(1, int(math.Ceil(wait)))
}

// charge takes one token for key, whether or not one is left: a failure.
func (l *limiter) charge(key string) {
	if l.rate <= 0 {
		return
	}
	if l.shared != nil {
		if _, _, done := l.sharedTake(key, 1); done {
			return
		}
	}
	sh := l.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := l.now()
	b := l.get(sh, key)
	if b.TokensAt(now) >= 1 {
		b.AllowN(now, 1)
	}
}

// size is the number of keys held (tests).
func (l *limiter) size() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.keys)
		sh.mu.Unlock()
	}
	return n
}

// callerAddr is the caller's address for rate limits: the peer's, or,
// when the peer is a configured trusted proxy, the right-most address of
// X-Forwarded-For that is not itself a trusted proxy (the left-most ones
// are whatever the client chose to send). IPv6 addresses are cut to their
// /64, which one subscriber usually holds whole.
func (s *Server) callerAddr(r *http.Request) string {
	peer := parseAddr(r.RemoteAddr)
	if !peer.IsValid() {
		return r.RemoteAddr
	}
	if s.trusted(peer) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a := parseAddr(strings.TrimSpace(hops[i]))
			if !a.IsValid() {
				break // a garbled hop: trust nothing left of it
			}
			peer = a
			if !s.trusted(a) {
				break
			}
		}
	}
	return addrKey(peer)
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseAddr reads "host:port" or a bare address, IPv4-mapped IPv6 as IPv4.
func parseAddr(s string) netip.Addr {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.WithZone("").Unmap()
}

// addrKey is an address's rate-limit key: IPv4 whole, IPv6 by /64.
func addrKey(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}
