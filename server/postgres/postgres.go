// Package postgres is the scale-out storage of the reference server: a
// store.Store on PostgreSQL through github.com/jackc/pgx/v5, which several
// `tambua serve` replicas share. It keeps the semantics of server/sqlite
// (the storetest conformance suite runs against both):
//
//   - a claim is idempotent on (client, request id) by a unique constraint;
//   - claims of one organisation are serialised by a row lock on the
//     organisation, so pending claims never hold more units than its
//     balance, and the balance's CHECK keeps it from going negative;
//   - outbox rows are written in the transaction of their cause, under a
//     transaction-scoped advisory lock so that sequence numbers become
//     visible in commit order (a reader paging by seq never skips a row
//     that commits late).
//
// The versioned migrations in migrations/*.sql are embedded and applied by
// Open under a session advisory lock, so replicas starting together
// migrate once.
package postgres

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Advisory lock keys, arbitrary constants private to Tambua ("tambua" in
// ASCII, then a counter) so they do not meet another application's.
const (
	migrateLockKey int64 = 0x74616d627561_01
	outboxLockKey  int64 = 0x74616d627561_02
)

// DB is a store.Store on a PostgreSQL database.
type DB struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

var _ store.Store = (*DB)(nil)

// Open connects to the database named by dsn (a postgres:// URL or a
// key=value string as libpq takes it) and applies the migrations it lacks.
func Open(ctx context.Context, dsn string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	db := &DB{pool: pool, now: time.Now}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// migrate applies, in name order, each embedded migration not yet
// recorded, each in its own transaction with its record, holding a
// session advisory lock on one connection throughout.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrateLockKey); err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	defer func() {
		// A fresh context: the caller's may be done, and a lock left held
		// would block the next replica's start until this connection dies.
		uctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", migrateLockKey); err != nil {
			conn.Conn().Close(uctx) // closing the session frees the lock
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)`); err != nil {
		return fmt.Errorf("postgres: migrations table: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		version := strings.TrimSuffix(strings.TrimPrefix(name, "migrations/"), ".sql")
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var n int
			if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = $1", version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			// No arguments: the simple protocol, which runs a file of
			// several statements.
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations(version, applied_at) VALUES ($1, $2)", version, db.now())
			return err
		})
		if err != nil {
			return fmt.Errorf("postgres: migration %s: %w", version, err)
		}
	}
	return nil
}

// PendingMigrations lists the embedded migrations the database has not
// applied (store.Migrator, for readiness).
func (db *DB) PendingMigrations(ctx context.Context) ([]string, error) {
	applied, err := db.Migrations(ctx)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, v := range applied {
		have[v] = true
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []string
	for _, name := range names {
		if v := strings.TrimSuffix(strings.TrimPrefix(name, "migrations/"), ".sql"); !have[v] {
			out = append(out, v)
		}
	}
	return out, nil
}

var _ store.Migrator = (*DB)(nil)

// Migrations lists the applied migration versions.
func (db *DB) Migrations(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// tx runs fn in a transaction, committed when fn returns nil.
func (db *DB) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, db.pool, fn)
}

// pgCode is the SQLSTATE of err, "" when it did not come from the server.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// SQLSTATE codes the store maps to its errors.
const (
	codeUnique     = "23505"
	codeForeignKey = "23503"
	codeCheck      = "23514"
)

// CreateOrganisation adds an organisation with a zero balance.
func (db *DB) CreateOrganisation(ctx context.Context, name string) (store.Organisation, error) {
	o, err := scanOrg(db.pool.QueryRow(ctx, "INSERT INTO organisations(name, created_at) VALUES ($1, $2) RETURNING "+orgColumns, name, db.now()))
	if err != nil {
		return o, fmt.Errorf("postgres: create organisation: %w", err)
	}
	return o, nil
}

const orgColumns = "id, name, units_balance, low_balance_threshold, created_at"

func scanOrg(r pgx.Row) (store.Organisation, error) {
	var o store.Organisation
	err := r.Scan(&o.ID, &o.Name, &o.Balance, &o.LowBalanceThreshold, &o.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, store.ErrNotFound
	}
	return o, err
}

// Organisation returns one organisation.
func (db *DB) Organisation(ctx context.Context, id int64) (store.Organisation, error) {
	return scanOrg(db.pool.QueryRow(ctx, "SELECT "+orgColumns+" FROM organisations WHERE id = $1", id))
}

// CountOrganisations returns how many organisations exist.
func (db *DB) CountOrganisations(ctx context.Context) (int64, error) {
	var n int64
	err := db.pool.QueryRow(ctx, "SELECT COUNT(*) FROM organisations").Scan(&n)
	return n, err
}

// AddUnits changes the balance and records the change in the ledger. A
// debit may not take the balance below the units held by pending claims:
// those verifications are running and will be debited when they finish.
func (db *DB) AddUnits(ctx context.Context, orgID, n int64, reason string) (int64, error) {
	var balance int64
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if n < 0 {
			// The organisation's row lock, as a claim takes it: no claim
			// can add to the held units between this check and the debit.
			org, err := lockOrganisation(ctx, tx, orgID)
			if err != nil {
				return err
			}
			var held int64
			if err := tx.QueryRow(ctx, "SELECT COALESCE(SUM(units), 0) FROM verifications WHERE organisation_id = $1 AND state = 'pending'",
				orgID).Scan(&held); err != nil {
				return err
			}
			if held > 0 && org.Balance+n < held {
				return fmt.Errorf("%w: %d units are held by running verifications; at most %d can be removed now",
					store.ErrInsufficientUnits, held, max(0, org.Balance-held))
			}
		}
		err := tx.QueryRow(ctx, "UPDATE organisations SET units_balance = units_balance + $1 WHERE id = $2 RETURNING units_balance", n, orgID).Scan(&balance)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return store.ErrNotFound
		case pgCode(err) == codeCheck:
			return store.ErrInsufficientUnits
		case err != nil:
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO unit_ledger(organisation_id, delta, balance, reason, created_at) VALUES ($1, $2, $3, $4, $5)",
			orgID, n, balance, reason, db.now())
		return err
	})
	return balance, err
}

// CreateClient stores a client.
func (db *DB) CreateClient(ctx context.Context, c store.Client) error {
	_, err := db.pool.Exec(ctx, "INSERT INTO api_clients(id, organisation_id, name, secret_hash, active, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
		c.ID, c.OrganisationID, c.Name, c.SecretHash, c.Active, db.now())
	switch pgCode(err) {
	case codeUnique:
		return store.ErrConflict
	case codeForeignKey:
		return fmt.Errorf("organisation %d: %w", c.OrganisationID, store.ErrNotFound)
	}
	return err
}

// Client returns one client.
func (db *DB) Client(ctx context.Context, id string) (store.Client, error) {
	var c store.Client
	err := db.pool.QueryRow(ctx, "SELECT id, organisation_id, name, secret_hash, active, created_at FROM api_clients WHERE id = $1", id).
		Scan(&c.ID, &c.OrganisationID, &c.Name, &c.SecretHash, &c.Active, &c.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, store.ErrNotFound
	}
	return c, err
}

// SetClientActive activates or deactivates a client.
func (db *DB) SetClientActive(ctx context.Context, id string, active bool) error {
	tag, err := db.pool.Exec(ctx, "UPDATE api_clients SET active = $1 WHERE id = $2", active, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// CreateWorkflow stores a workflow.
func (db *DB) CreateWorkflow(ctx context.Context, w store.Workflow, events ...store.Event) error {
	def, err := json.Marshal(w.Definition)
	if err != nil {
		return err
	}
	now := db.now()
	return db.tx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO workflows(id, client_id, name, status, refresh_token, version, definition, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $7)`, w.ID, w.ClientID, w.Definition.Name, w.Status, w.RefreshToken, string(def), now)
		switch pgCode(err) {
		case codeUnique:
			return store.ErrConflict
		case codeForeignKey:
			return fmt.Errorf("client %s: %w", w.ClientID, store.ErrNotFound)
		}
		if err != nil {
			return err
		}
		return insertEvents(ctx, tx, now, events)
	})
}

const workflowSelect = `SELECT w.id, w.client_id, c.organisation_id, w.status, w.refresh_token, w.version, w.definition, w.created_at, w.updated_at
	FROM workflows w JOIN api_clients c ON c.id = w.client_id`

func scanWorkflow(r pgx.Row) (store.Workflow, error) {
	var w store.Workflow
	var def string
	if err := r.Scan(&w.ID, &w.ClientID, &w.OrganisationID, &w.Status, &w.RefreshToken, &w.Version, &def, &w.CreatedAt, &w.UpdatedAt); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return w, store.ErrNotFound
		}
		return w, err
	}
	if err := json.Unmarshal([]byte(def), &w.Definition); err != nil {
		return w, fmt.Errorf("postgres: workflow %s definition: %w", w.ID, err)
	}
	w.Definition.ID = w.ID
	w.Definition.Status = w.Status
	return w, nil
}

// Workflow returns one workflow.
func (db *DB) Workflow(ctx context.Context, id string) (store.Workflow, error) {
	return scanWorkflow(db.pool.QueryRow(ctx, workflowSelect+" WHERE w.id = $1", id))
}

// ListWorkflows returns a client's workflows by name.
func (db *DB) ListWorkflows(ctx context.Context, clientID string) ([]store.Workflow, error) {
	rows, err := db.pool.Query(ctx, workflowSelect+" WHERE w.client_id = $1 ORDER BY w.name", clientID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Workflow
	for rows.Next() {
		w, err := scanWorkflow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// SetWorkflowRefreshToken replaces a workflow's refresh token.
func (db *DB) SetWorkflowRefreshToken(ctx context.Context, id, token string) error {
	tag, err := db.pool.Exec(ctx, "UPDATE workflows SET refresh_token = $1, updated_at = $2 WHERE id = $3", token, db.now(), id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// UpdateWorkflow replaces definition, name and status, bumping the version.
func (db *DB) UpdateWorkflow(ctx context.Context, w store.Workflow, events ...store.Event) (store.Workflow, error) {
	def, err := json.Marshal(w.Definition)
	if err != nil {
		return w, err
	}
	now := db.now()
	var out store.Workflow
	err = db.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE workflows SET name = $1, status = $2, definition = $3, version = version + 1, updated_at = $4 WHERE id = $5",
			w.Definition.Name, w.Status, string(def), now, w.ID)
		if pgCode(err) == codeUnique {
			return store.ErrConflict
		}
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ErrNotFound
		}
		if err := insertEvents(ctx, tx, now, events); err != nil {
			return err
		}
		out, err = scanWorkflow(tx.QueryRow(ctx, workflowSelect+" WHERE w.id = $1", w.ID))
		return err
	})
	if err != nil {
		return w, err
	}
	return out, nil
}

// Verification returns the stored verification of (client, request id).
func (db *DB) Verification(ctx context.Context, clientID, requestID string) (store.Verification, error) {
	var v store.Verification
	var state, result, files string
	var completed *time.Time
	err := db.pool.QueryRow(ctx, `SELECT id, client_id, organisation_id, workflow_id, request_id, fingerprint, state, units, decision, result, files, created_at, completed_at
		FROM verifications WHERE client_id = $1 AND request_id = $2`, clientID, requestID).
		Scan(&v.ID, &v.ClientID, &v.OrganisationID, &v.WorkflowID, &v.RequestID, &v.Fingerprint, &state, &v.Units, &v.Decision, &result, &files, &v.CreatedAt, &completed)
	if errors.Is(err, pgx.ErrNoRows) {
		return v, store.ErrNotFound
	}
	if err != nil {
		return v, err
	}
	if state == "pending" {
		return v, store.ErrPending
	}
	v.Result = json.RawMessage(result)
	if err := json.Unmarshal([]byte(files), &v.Files); err != nil {
		return v, fmt.Errorf("postgres: verification %s files: %w", v.ID, err)
	}
	if completed != nil {
		v.CompletedAt = *completed
	}
	return v, nil
}

// lockOrganisation takes the organisation's row lock for the rest of the
// transaction: claims and debits of one organisation queue on it, which
// is what keeps the units held by pending claims within the balance.
func lockOrganisation(ctx context.Context, tx pgx.Tx, id int64) (store.Organisation, error) {
	return scanOrg(tx.QueryRow(ctx, "SELECT "+orgColumns+" FROM organisations WHERE id = $1 FOR UPDATE", id))
}

// ClaimVerification reserves units for one verification.
func (db *DB) ClaimVerification(ctx context.Context, c store.Claim, events ...store.Event) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		org, err := lockOrganisation(ctx, tx, c.OrganisationID)
		if err != nil {
			return err
		}
		// After the lock: a claim of the same request id that committed
		// while this one waited is visible to this statement.
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM verifications WHERE client_id = $1 AND request_id = $2)",
			c.ClientID, c.RequestID).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return store.ErrConflict
		}
		var held int64
		if err := tx.QueryRow(ctx, "SELECT COALESCE(SUM(units), 0) FROM verifications WHERE organisation_id = $1 AND state = 'pending'",
			c.OrganisationID).Scan(&held); err != nil {
			return err
		}
		if org.Balance-held < c.Units {
			return store.ErrInsufficientUnits
		}
		now := db.now()
		_, err = tx.Exec(ctx, `INSERT INTO verifications(id, client_id, organisation_id, workflow_id, request_id, fingerprint, state, units, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)`, c.ID, c.ClientID, c.OrganisationID, c.WorkflowID, c.RequestID, c.Fingerprint, c.Units, now)
		switch pgCode(err) {
		case codeUnique:
			// The same (client, request id) from another organisation's
			// lock queue (a client moved organisations), or the same id.
			return store.ErrConflict
		case codeForeignKey:
			return fmt.Errorf("client %s: %w", c.ClientID, store.ErrNotFound)
		}
		if err != nil {
			return err
		}
		return insertEvents(ctx, tx, now, events)
	})
}

// ReleaseClaim deletes a pending claim.
func (db *DB) ReleaseClaim(ctx context.Context, id string, events ...store.Event) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM verifications WHERE id = $1 AND state = 'pending'", id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return nil // already released or completed: nothing happened
		}
		return insertEvents(ctx, tx, db.now(), events)
	})
}

// ReleaseClaimsBefore drops pending claims created before t.
func (db *DB) ReleaseClaimsBefore(ctx context.Context, t time.Time) (int64, error) {
	tag, err := db.pool.Exec(ctx, "DELETE FROM verifications WHERE state = 'pending' AND created_at < $1", t)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// CompleteVerification stores the result, debits the units and writes the
// events, all or nothing.
func (db *DB) CompleteVerification(ctx context.Context, v store.Verification, events func(before store.Organisation, after int64) []store.Event) (int64, error) {
	files, err := json.Marshal(v.Files)
	if err != nil {
		return 0, err
	}
	if v.Files == nil {
		files = []byte("{}")
	}
	var after int64
	err = db.tx(ctx, func(tx pgx.Tx) error {
		now := db.now()
		// The organisation first, as ClaimVerification does, so the two
		// take their locks in one order.
		before, err := lockOrganisation(ctx, tx, v.OrganisationID)
		if err != nil {
			return fmt.Errorf("postgres: verification %s: organisation %d: %w", v.ID, v.OrganisationID, err)
		}
		tag, err := tx.Exec(ctx, `UPDATE verifications SET state = 'done', decision = $1, result = $2, files = $3, completed_at = $4
			WHERE id = $5 AND state = 'pending'`, v.Decision, string(v.Result), string(files), now, v.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("postgres: verification %s has no pending claim: %w", v.ID, store.ErrNotFound)
		}
		if v.Decision == "review" {
			if err := queueReview(ctx, tx, v, now); err != nil {
				return err
			}
		}
		err = tx.QueryRow(ctx, "UPDATE organisations SET units_balance = units_balance - $1 WHERE id = $2 RETURNING units_balance",
			v.Units, v.OrganisationID).Scan(&after)
		if pgCode(err) == codeCheck {
			return fmt.Errorf("postgres: debit: %w", store.ErrInsufficientUnits)
		}
		if err != nil {
			return fmt.Errorf("postgres: debit: %w", err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO unit_ledger(organisation_id, delta, balance, reason, verification_id, created_at) VALUES ($1, $2, $3, 'verification', $4, $5)",
			v.OrganisationID, -v.Units, after, v.ID, now); err != nil {
			return fmt.Errorf("postgres: ledger: %w", err)
		}
		if events == nil {
			return nil
		}
		return insertEvents(ctx, tx, now, events(before, after))
	})
	return after, err
}

// AddEvents writes events to the outbox outside a verification (workflow
// and balance changes made by administrators).
func (db *DB) AddEvents(ctx context.Context, events ...store.Event) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		return insertEvents(ctx, tx, db.now(), events)
	})
}

// insertEvents writes events to the outbox in the caller's transaction.
// The advisory lock, held to commit, orders outbox writers: a sequence
// number is drawn only by the one transaction that will commit next among
// them, so seq order is commit order. It is the last lock a transaction
// takes, so it cannot close a cycle with the organisation row locks.
func insertEvents(ctx context.Context, tx pgx.Tx, now time.Time, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", outboxLockKey); err != nil {
		return fmt.Errorf("postgres: outbox lock: %w", err)
	}
	for _, e := range events {
		if e.EventID == "" {
			e.EventID = idv.NewRequestID()
		}
		at := now
		if !e.CreatedAt.IsZero() {
			at = e.CreatedAt
		}
		data := string(e.Data)
		if data == "" {
			data = "{}"
		}
		if _, err := tx.Exec(ctx, "INSERT INTO outbox(event_id, event, organisation_id, data, created_at) VALUES ($1, $2, $3, $4, $5)",
			e.EventID, e.Event, e.OrganisationID, data, at); err != nil {
			return fmt.Errorf("postgres: outbox %s: %w", e.Event, err)
		}
	}
	return nil
}

// UnitsUsedSince sums the units debited by verifications since t.
func (db *DB) UnitsUsedSince(ctx context.Context, orgID int64, t time.Time) (int64, error) {
	var n int64
	err := db.pool.QueryRow(ctx, "SELECT COALESCE(SUM(-delta), 0) FROM unit_ledger WHERE organisation_id = $1 AND reason = 'verification' AND created_at >= $2",
		orgID, t).Scan(&n)
	return n, err
}

// Events returns outbox rows after seq, oldest first.
func (db *DB) Events(ctx context.Context, afterSeq int64, limit int) ([]store.Event, error) {
	rows, err := db.pool.Query(ctx, "SELECT seq, event_id, event, organisation_id, data, created_at, delivered_at FROM outbox WHERE seq > $1 ORDER BY seq LIMIT $2",
		afterSeq, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Event
	for rows.Next() {
		var e store.Event
		var data string
		if err := rows.Scan(&e.Seq, &e.EventID, &e.Event, &e.OrganisationID, &data, &e.CreatedAt, &e.DeliveredAt); err != nil {
			return nil, err
		}
		e.Data = json.RawMessage(data)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Setting returns a named setting, creating it on first use. Replicas
// starting together may each call create; the first insert wins and
// every caller returns the stored value.
func (db *DB) Setting(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := db.pool.QueryRow(ctx, "SELECT value FROM settings WHERE name = $1", name).Scan(&v)
	if err == nil || !errors.Is(err, pgx.ErrNoRows) {
		return v, err
	}
	fresh, err := create()
	if err != nil {
		return nil, err
	}
	if _, err := db.pool.Exec(ctx, "INSERT INTO settings(name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", name, fresh); err != nil {
		return nil, err
	}
	err = db.pool.QueryRow(ctx, "SELECT value FROM settings WHERE name = $1", name).Scan(&v)
	return v, err
}

// VerificationCounts returns how many verifications are done and pending,
// and the units debited for them (tests and operators).
func (db *DB) VerificationCounts(ctx context.Context, orgID int64) (done, pending, billed int64, err error) {
	err = db.pool.QueryRow(ctx, `SELECT
		COUNT(*) FILTER (WHERE state = 'done'), COUNT(*) FILTER (WHERE state = 'pending'),
		(SELECT COALESCE(SUM(-delta), 0) FROM unit_ledger WHERE organisation_id = $1 AND reason = 'verification')
		FROM verifications WHERE organisation_id = $1`, orgID).Scan(&done, &pending, &billed)
	return
}

// VerificationStored reports whether a completed verification with this id
// is stored (store.VerificationFinder).
func (db *DB) VerificationStored(ctx context.Context, id string) (bool, error) {
	var ok bool
	err := db.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM verifications WHERE id = $1 AND state = 'done')", id).Scan(&ok)
	return ok, err
}

var _ store.VerificationFinder = (*DB)(nil)
