package postgres

import "context"

// Exec runs a statement as is (tests of the schema's own rules:
// storetest.RawExecer).
func (db *DB) Exec(ctx context.Context, query string) error {
	_, err := db.pool.Exec(ctx, query)
	return err
}

// RateBuckets counts the stored rate buckets (the sweep's test).
func (db *DB) RateBuckets(ctx context.Context) (n int, err error) {
	err = db.pool.QueryRow(ctx, "SELECT COUNT(*) FROM rate_buckets").Scan(&n)
	return n, err
}
