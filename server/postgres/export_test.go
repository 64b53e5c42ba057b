package postgres

import "context"

// Exec runs a statement as is (tests of the schema's own rules:
// storetest.RawExecer).
func (db *DB) Exec(ctx context.Context, query string) error {
	_, err := db.pool.Exec(ctx, query)
	return err
}
