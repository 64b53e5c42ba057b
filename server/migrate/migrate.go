// Package migrate copies a single-machine installation (the SQLite file
// and the image folder of `tambua serve --data`) to the scale-out storage
// (PostgreSQL and an object store): `tambua migrate`.
//
// Rows are copied table by table with their ids, so tokens, signed URLs,
// idempotency keys and outbox sequence numbers mean the same afterwards;
// the PostgreSQL sequences are then moved past the copied ids. The copy
// is driven by the column names the two schemas share: a column that
// SQLite has and PostgreSQL lacks stops the copy before anything is
// written, so a migration added to one backend and not the other cannot
// lose data silently.
package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the database/sql driver of the source

	"github.com/tambua/tambua/server/postgres"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
)

// tables in an order that satisfies the foreign keys, with the serial
// column PostgreSQL must continue from ("" when the key is not serial).
var tables = []struct{ name, serial string }{
	{"organisations", "id"},
	{"api_clients", ""},
	{"workflows", ""},
	{"verifications", ""},
	{"unit_ledger", "id"},
	{"outbox", "seq"},
	{"settings", ""},
	{"webhooks", ""},
	{"webhook_deliveries", ""},
	{"webhook_logs", "id"},
	{"review_cases", ""},
	{"review_actions", "id"},
	{"audit_log", "id"},
	{"console_users", ""},
	{"console_email_codes", ""},
	{"console_sessions", ""},
	{"organisation_profiles", ""},
}

// Report counts what was copied.
type Report struct {
	Rows  map[string]int64
	Files int
	Bytes int64
}

// Database copies the SQLite database at sqlitePath into the empty
// PostgreSQL database dsn (migrated first), in one PostgreSQL
// transaction: all or nothing.
func Database(ctx context.Context, sqlitePath, dsn string) (map[string]int64, error) {
	if _, err := os.Stat(sqlitePath); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	// Bring both schemas up to date with their own migrations.
	src, err := sqlite.Open(ctx, sqlitePath)
	if err != nil {
		return nil, err
	}
	src.Close()
	dst, err := postgres.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	dst.Close()

	in, err := sql.Open("sqlite", "file:"+sqlitePath+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer in.Close()
	out, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer out.Close(ctx)

	counts := map[string]int64{}
	err = pgx.BeginFunc(ctx, out, func(tx pgx.Tx) error {
		var n int64
		if err := tx.QueryRow(ctx, "SELECT (SELECT COUNT(*) FROM organisations) + (SELECT COUNT(*) FROM settings)").Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return errors.New("migrate: the PostgreSQL database is not empty; copy into a fresh one")
		}
		// A read transaction on the source: one consistent snapshot even
		// if a server still writes to it.
		rtx, err := in.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer rtx.Rollback()
		for _, t := range tables {
			n, err := copyTable(ctx, rtx, tx, t.name)
			if err != nil {
				return fmt.Errorf("migrate: %s: %w", t.name, err)
			}
			counts[t.name] = n
			if t.serial != "" {
				if _, err := tx.Exec(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%[1]s', '%[2]s'),
					COALESCE(MAX(%[2]s), 1), MAX(%[2]s) IS NOT NULL) FROM %[1]s`, t.name, t.serial)); err != nil {
					return fmt.Errorf("migrate: %s sequence: %w", t.name, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// columnTypes returns PostgreSQL's data type of each column of table.
func columnTypes(ctx context.Context, tx pgx.Tx, table string) (map[string]string, error) {
	rows, err := tx.Query(ctx, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema()", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		out[name] = typ
	}
	return out, rows.Err()
}

func copyTable(ctx context.Context, in *sql.Tx, out pgx.Tx, table string) (int64, error) {
	types, err := columnTypes(ctx, out, table)
	if err != nil {
		return 0, err
	}
	if len(types) == 0 {
		return 0, fmt.Errorf("no such table in PostgreSQL")
	}
	rows, err := in.QueryContext(ctx, "SELECT * FROM "+table)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	for _, c := range cols {
		if _, ok := types[c]; !ok {
			return 0, fmt.Errorf("column %s has no place in PostgreSQL (a SQLite migration without its PostgreSQL twin)", c)
		}
	}
	var data [][]any
	for rows.Next() {
		raw := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		row := make([]any, len(cols))
		for i, c := range cols {
			v, err := convert(raw[i], types[c])
			if err != nil {
				return 0, fmt.Errorf("column %s: %w", c, err)
			}
			row[i] = v
		}
		data = append(data, row)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return out.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(data))
}

// convert turns a SQLite value into what the PostgreSQL column takes:
// SQLite keeps times as RFC 3339 text and booleans as integers.
func convert(v any, pgType string) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch pgType {
	case "timestamp with time zone":
		s, ok := asString(v)
		if !ok {
			return nil, fmt.Errorf("time %v (%T)", v, v)
		}
		if s == "" {
			return nil, nil
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, err
		}
		return t, nil
	case "boolean":
		switch x := v.(type) {
		case int64:
			return x != 0, nil
		case bool:
			return x, nil
		}
		return nil, fmt.Errorf("boolean %v (%T)", v, v)
	case "bytea":
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
		return nil, fmt.Errorf("bytes %T", v)
	case "text":
		s, ok := asString(v)
		if !ok {
			return nil, fmt.Errorf("text %v (%T)", v, v)
		}
		return s, nil
	case "bigint", "integer":
		if x, ok := v.(int64); ok {
			return x, nil
		}
		return nil, fmt.Errorf("integer %v (%T)", v, v)
	}
	return v, nil
}

func asString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

// Files copies every file under dir (the image folder of a data folder)
// into dst under the same key. Copying again overwrites with the same
// bytes, so an interrupted copy is simply run again.
func Files(ctx context.Context, dir string, dst store.FileStore) (n int, size int64, err error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return 0, 0, err
	}
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil // no image stored yet
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return nil // folders, and the temporary files of writes in progress
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !store.ValidFileKey(key) {
			return fmt.Errorf("migrate: %s is not a file the server wrote", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := dst.Put(ctx, key, data); err != nil {
			return err
		}
		n++
		size += int64(len(data))
		return nil
	})
	return n, size, err
}
