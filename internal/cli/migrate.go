package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tambua/tambua/server/migrate"
)

func init() {
	Register(&Command{Path: "migrate", Summary: "copy a SQLite + folder installation (--data) to PostgreSQL (--db) and an S3 bucket (--files)", Run: runMigrate})
}

func runMigrate(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "migrate")
	data := fs.String("data", envOr(env, "TAMBUA_DATA", "data"), "data folder to copy from: tambua.db and files/ (env TAMBUA_DATA)")
	dbURL := fs.String("db", env.Getenv("TAMBUA_DB"), "empty PostgreSQL database to copy into: postgres://... (env TAMBUA_DB)")
	filesURL := fs.String("files", env.Getenv("TAMBUA_FILES"), "image store to copy into: s3://BUCKET?endpoint=... or a folder (env TAMBUA_FILES); none: images stay")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	if *dbURL == "" && *filesURL == "" {
		return Usagef("give --db, --files or both")
	}
	if *dbURL != "" && !strings.HasPrefix(*dbURL, "postgres://") && !strings.HasPrefix(*dbURL, "postgresql://") {
		return Usagef("--db: want a postgres:// URL")
	}
	src := filepath.Join(*data, "tambua.db")
	if _, err := os.Stat(src); err != nil {
		return Usagef("--data: %v", err)
	}
	if *dbURL != "" {
		counts, err := migrate.Database(ctx, src, *dbURL)
		if err != nil {
			return err
		}
		for _, t := range []string{"organisations", "api_clients", "workflows", "verifications", "unit_ledger", "outbox", "webhooks", "webhook_deliveries", "webhook_logs"} {
			fmt.Fprintf(env.Stdout, "%-20s %d rows\n", t, counts[t])
		}
		// serve --db takes its keys from the environment, not from the
		// database: these keep the copied tokens and file URLs valid.
		fmt.Fprintf(env.Stdout, "signing keys: give every replica the output of `tambua keys export --data %s` (--keys-file or TAMBUA_SIGNING_KEY)\n", *data)
	}
	if *filesURL != "" {
		dst, err := openFiles(ctx, *data, *filesURL)
		if err != nil {
			return err
		}
		n, size, err := migrate.Files(ctx, filepath.Join(*data, "files"), dst)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%-20s %d files, %d bytes\n", "images", n, size)
	}
	return nil
}
