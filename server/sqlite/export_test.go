package sqlite

import "context"

// Exec runs a statement on the writer (tests of the schema's own rules).
func (db *DB) Exec(ctx context.Context, query string) error {
	_, err := db.w.ExecContext(ctx, query)
	return err
}
