package store

import "context"

// Pinger is a store (database or FileStore) that can say whether it is
// reachable: the server's readiness check asks every one that has it.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Migrator is a database that knows its schema: PendingMigrations lists
// the migrations this build carries that the database has not applied
// (none once Open has run, unless the schema was changed under it).
// Migrations applied by a newer build are not pending: they only add.
type Migrator interface {
	PendingMigrations(ctx context.Context) ([]string, error)
}
