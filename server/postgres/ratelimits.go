package postgres

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tambua/tambua/server/store"
)

var _ store.RateLimits = (*DB)(nil)

// Rate buckets use the database's clock (statement_timestamp), not each
// replica's, so replicas whose clocks disagree still refill a bucket
// once. A statement sees one time throughout.
//
// takeSQL refills and takes in one statement: the upsert's row lock
// orders concurrent takes of one key, and its WHERE sees the row as the
// previous take left it, so n tokens are never taken twice. A new bucket
// starts full (Burst), less what this take takes.
const takeSQL = `
INSERT INTO rate_buckets AS b (key, tokens, updated_at, full_at)
VALUES ($1, $3::float8 - $4::float8, statement_timestamp(),
        statement_timestamp() + make_interval(secs => LEAST($4::float8 / $2::float8, 1e11)))
ON CONFLICT (key) DO UPDATE SET
    tokens = LEAST($3::float8, b.tokens + $2::float8 * EXTRACT(EPOCH FROM statement_timestamp() - b.updated_at)::float8) - $4::float8,
    updated_at = statement_timestamp(),
    full_at = statement_timestamp() + make_interval(secs => LEAST(1e11,
        ($3::float8 - (LEAST($3::float8, b.tokens + $2::float8 * EXTRACT(EPOCH FROM statement_timestamp() - b.updated_at)::float8) - $4::float8)) / $2::float8))
WHERE LEAST($3::float8, b.tokens + $2::float8 * EXTRACT(EPOCH FROM statement_timestamp() - b.updated_at)::float8) >= $4::float8
RETURNING tokens`

const tokensSQL = `
SELECT LEAST($3::float8, tokens + $2::float8 * EXTRACT(EPOCH FROM statement_timestamp() - updated_at)::float8)
FROM rate_buckets WHERE key = $1`

// rateSweepEvery: one take in this many also deletes the buckets that
// are full again (equal to no bucket). Chosen so the sweep's cost, one
// indexed DELETE, is spread thin, while a flood of new keys (one per
// caller address) is trimmed every few thousand of them.
const rateSweepEvery = 1024

// rateMaxIdle: a bucket unused this long is forgotten even if not full
// (a never-refilling SDK session count, say), as the in-memory limiter
// forgets its least recently used keys. Longer than any SDK session.
const rateMaxIdle = 30 * 24 * time.Hour

// TakeTokens takes n tokens from key's bucket when it holds them.
func (db *DB) TakeTokens(ctx context.Context, key string, b store.Bucket, n int) (bool, time.Duration, error) {
	if b.Rate <= 0 || b.Burst <= 0 {
		return false, 0, errors.New("postgres: a rate bucket needs a positive rate and burst")
	}
	if n > b.Burst {
		return false, 0, nil
	}
	if db.rateTakes.Add(1)%rateSweepEvery == 0 {
		if err := db.SweepRateBuckets(ctx); err != nil {
			return false, 0, err
		}
	}
	var left float64
	err := db.pool.QueryRow(ctx, takeSQL, key, b.Rate, float64(b.Burst), float64(n)).Scan(&left)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, 0, err
	}
	have, err := db.Tokens(ctx, key, b)
	if err != nil {
		return false, 0, err
	}
	wait := time.Duration(math.Ceil((float64(n) - have) / b.Rate * float64(time.Second)))
	return false, max(wait, time.Millisecond), nil
}

// Tokens is what key's bucket holds now.
func (db *DB) Tokens(ctx context.Context, key string, b store.Bucket) (float64, error) {
	if b.Rate <= 0 || b.Burst <= 0 {
		return 0, errors.New("postgres: a rate bucket needs a positive rate and burst")
	}
	var t float64
	err := db.pool.QueryRow(ctx, tokensSQL, key, b.Rate, float64(b.Burst)).Scan(&t)
	if errors.Is(err, pgx.ErrNoRows) {
		return float64(b.Burst), nil
	}
	return t, err
}

// SweepRateBuckets deletes the buckets that are full again, or idle
// longer than rateMaxIdle.
func (db *DB) SweepRateBuckets(ctx context.Context) error {
	_, err := db.pool.Exec(ctx, "DELETE FROM rate_buckets WHERE full_at < statement_timestamp() OR updated_at < statement_timestamp() - make_interval(secs => $1::float8)",
		rateMaxIdle.Seconds())
	return err
}
