package store

import (
	"context"
	"time"
)

// Bucket is a token bucket's parameters: Rate tokens per second refill
// it up to Burst.
type Bucket struct {
	Rate  float64
	Burst int
}

// RateLimits keeps token buckets where every replica sees them, so a rate
// limit holds across replicas rather than per process. A store shared by
// replicas (server/postgres) has it; the server keeps its buckets in
// memory otherwise. Keys are the server's (limiter name, then subject).
type RateLimits interface {
	// TakeTokens takes n tokens from key's bucket when it holds them; a
	// bucket never used holds Burst. When it does not, it takes none and
	// says how long until it would hold n. n is at most Burst.
	TakeTokens(ctx context.Context, key string, b Bucket, n int) (ok bool, wait time.Duration, err error)
	// Tokens is what key's bucket holds now, without taking any.
	Tokens(ctx context.Context, key string, b Bucket) (float64, error)
}
