// Package sqlite is the embedded storage of the reference server: one
// SQLite file in WAL mode through modernc.org/sqlite (pure Go), with the
// schema migrations embedded and applied when the database is opened.
//
// Writes go through a single connection, so transactions never meet
// SQLITE_BUSY and claims, debits and outbox rows are serialised; reads use a
// pool of connections that WAL lets run beside the writer.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is a store.Store on one SQLite file.
type DB struct {
	w   *sql.DB // one connection: every write transaction
	r   *sql.DB // readers
	now func() time.Time
}

var _ store.Store = (*DB)(nil)

// Open opens (creating if needed) the database at path and applies the
// migrations it lacks.
func Open(ctx context.Context, path string) (*DB, error) {
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	dsn := "file:" + path + "?" + q.Encode()
	w, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	r.SetMaxOpenConns(max(4, runtime.NumCPU()*2))
	db := &DB{w: w, r: r, now: time.Now}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Close closes both pools.
func (db *DB) Close() error {
	return errors.Join(db.r.Close(), db.w.Close())
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.r.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// migrate applies, in name order, each embedded migration not yet
// recorded, each in its own transaction with its record.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("sqlite: migrations table: %w", err)
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
		err = db.tx(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = ?", version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)", version, db.stamp())
			return err
		})
		if err != nil {
			return fmt.Errorf("sqlite: migration %s: %w", version, err)
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
	rows, err := db.r.QueryContext(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (db *DB) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

const stampLayout = "2006-01-02T15:04:05.000000000Z07:00"

func (db *DB) stamp() string { return db.now().UTC().Format(stampLayout) }

func parseStamp(s string) time.Time {
	t, _ := time.Parse(stampLayout, s)
	return t
}

func isUnique(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// CreateOrganisation adds an organisation with a zero balance.
func (db *DB) CreateOrganisation(ctx context.Context, name string) (store.Organisation, error) {
	now := db.stamp()
	res, err := db.w.ExecContext(ctx, "INSERT INTO organisations(name, created_at) VALUES (?, ?)", name, now)
	if err != nil {
		return store.Organisation{}, fmt.Errorf("sqlite: create organisation: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return store.Organisation{}, err
	}
	return db.Organisation(ctx, id)
}

const orgColumns = "id, name, units_balance, low_balance_threshold, created_at"

type scanner interface{ Scan(...any) error }

func scanOrg(s scanner) (store.Organisation, error) {
	var o store.Organisation
	var created string
	if err := s.Scan(&o.ID, &o.Name, &o.Balance, &o.LowBalanceThreshold, &created); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return o, store.ErrNotFound
		}
		return o, err
	}
	o.CreatedAt = parseStamp(created)
	return o, nil
}

// Organisation returns one organisation.
func (db *DB) Organisation(ctx context.Context, id int64) (store.Organisation, error) {
	return scanOrg(db.w.QueryRowContext(ctx, "SELECT "+orgColumns+" FROM organisations WHERE id = ?", id))
}

// CountOrganisations returns how many organisations exist.
func (db *DB) CountOrganisations(ctx context.Context) (int64, error) {
	var n int64
	err := db.r.QueryRowContext(ctx, "SELECT COUNT(*) FROM organisations").Scan(&n)
	return n, err
}

// AddUnits changes the balance and records the change in the ledger. A
// debit may not take the balance below the units held by pending claims:
// those verifications are running and will be debited when they finish.
func (db *DB) AddUnits(ctx context.Context, orgID, n int64, reason string) (int64, error) {
	var balance int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if n < 0 {
			var bal, held int64
			err := tx.QueryRowContext(ctx, `SELECT o.units_balance, COALESCE((SELECT SUM(units) FROM verifications v
				WHERE v.organisation_id = o.id AND v.state = 'pending'), 0) FROM organisations o WHERE o.id = ?`, orgID).Scan(&bal, &held)
			if errors.Is(err, sql.ErrNoRows) {
				return store.ErrNotFound
			}
			if err != nil {
				return err
			}
			if held > 0 && bal+n < held {
				return fmt.Errorf("%w: %d units are held by running verifications; at most %d can be removed now",
					store.ErrInsufficientUnits, held, max(0, bal-held))
			}
		}
		err := tx.QueryRowContext(ctx, "UPDATE organisations SET units_balance = units_balance + ? WHERE id = ? RETURNING units_balance", n, orgID).Scan(&balance)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			var se *sqlite.Error
			if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_CHECK {
				return store.ErrInsufficientUnits
			}
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO unit_ledger(organisation_id, delta, balance, reason, created_at) VALUES (?, ?, ?, ?, ?)",
			orgID, n, balance, reason, db.stamp())
		return err
	})
	return balance, err
}

// CreateClient stores a client.
func (db *DB) CreateClient(ctx context.Context, c store.Client) error {
	_, err := db.w.ExecContext(ctx, "INSERT INTO api_clients(id, organisation_id, name, secret_hash, active, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		c.ID, c.OrganisationID, c.Name, c.SecretHash, c.Active, db.stamp())
	if isUnique(err) {
		return store.ErrConflict
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		return fmt.Errorf("organisation %d: %w", c.OrganisationID, store.ErrNotFound)
	}
	return err
}

// Client returns one client.
func (db *DB) Client(ctx context.Context, id string) (store.Client, error) {
	var c store.Client
	var created string
	err := db.r.QueryRowContext(ctx, "SELECT id, organisation_id, name, secret_hash, active, created_at FROM api_clients WHERE id = ?", id).
		Scan(&c.ID, &c.OrganisationID, &c.Name, &c.SecretHash, &c.Active, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return c, store.ErrNotFound
	}
	c.CreatedAt = parseStamp(created)
	return c, err
}

// SetClientActive activates or deactivates a client.
func (db *DB) SetClientActive(ctx context.Context, id string, active bool) error {
	res, err := db.w.ExecContext(ctx, "UPDATE api_clients SET active = ? WHERE id = ?", active, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
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
	now := db.stamp()
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO workflows(id, client_id, name, status, refresh_token, version, definition, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)`, w.ID, w.ClientID, w.Definition.Name, w.Status, w.RefreshToken, string(def), now, now)
		if isUnique(err) {
			return store.ErrConflict
		}
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := insertEvent(ctx, tx, e, now); err != nil {
				return err
			}
		}
		return nil
	})
}

const workflowColumns = `w.id, w.client_id, c.organisation_id, w.status, w.refresh_token, w.version, w.definition, w.created_at, w.updated_at`

func scanWorkflow(s scanner) (store.Workflow, error) {
	var w store.Workflow
	var def, created, updated string
	if err := s.Scan(&w.ID, &w.ClientID, &w.OrganisationID, &w.Status, &w.RefreshToken, &w.Version, &def, &created, &updated); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return w, store.ErrNotFound
		}
		return w, err
	}
	if err := json.Unmarshal([]byte(def), &w.Definition); err != nil {
		return w, fmt.Errorf("sqlite: workflow %s definition: %w", w.ID, err)
	}
	w.Definition.ID = w.ID
	w.Definition.Status = w.Status
	w.CreatedAt, w.UpdatedAt = parseStamp(created), parseStamp(updated)
	return w, nil
}

// Workflow returns one workflow.
func (db *DB) Workflow(ctx context.Context, id string) (store.Workflow, error) {
	return scanWorkflow(db.r.QueryRowContext(ctx, "SELECT "+workflowColumns+" FROM workflows w JOIN api_clients c ON c.id = w.client_id WHERE w.id = ?", id))
}

// ListWorkflows returns a client's workflows by name.
func (db *DB) ListWorkflows(ctx context.Context, clientID string) ([]store.Workflow, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+workflowColumns+" FROM workflows w JOIN api_clients c ON c.id = w.client_id WHERE w.client_id = ? ORDER BY w.name", clientID)
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
	res, err := db.w.ExecContext(ctx, "UPDATE workflows SET refresh_token = ?, updated_at = ? WHERE id = ?", token, db.stamp(), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
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
	now := db.stamp()
	err = db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE workflows SET name = ?, status = ?, definition = ?, version = version + 1, updated_at = ? WHERE id = ?",
			w.Definition.Name, w.Status, string(def), now, w.ID)
		if isUnique(err) {
			return store.ErrConflict
		}
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		for _, e := range events {
			if err := insertEvent(ctx, tx, e, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return w, err
	}
	return scanWorkflow(db.w.QueryRowContext(ctx, "SELECT "+workflowColumns+" FROM workflows w JOIN api_clients c ON c.id = w.client_id WHERE w.id = ?", w.ID))
}

// Verification returns the stored verification of (client, request id).
func (db *DB) Verification(ctx context.Context, clientID, requestID string) (store.Verification, error) {
	var v store.Verification
	var state, result, files, created string
	var completed sql.NullString
	err := db.r.QueryRowContext(ctx, `SELECT id, client_id, organisation_id, workflow_id, request_id, fingerprint, state, units, decision, result, files, created_at, completed_at
		FROM verifications WHERE client_id = ? AND request_id = ?`, clientID, requestID).
		Scan(&v.ID, &v.ClientID, &v.OrganisationID, &v.WorkflowID, &v.RequestID, &v.Fingerprint, &state, &v.Units, &v.Decision, &result, &files, &created, &completed)
	if errors.Is(err, sql.ErrNoRows) {
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
		return v, fmt.Errorf("sqlite: verification %s files: %w", v.ID, err)
	}
	v.CreatedAt = parseStamp(created)
	v.CompletedAt = parseStamp(completed.String)
	return v, nil
}

// ClaimVerification reserves units for one verification.
func (db *DB) ClaimVerification(ctx context.Context, c store.Claim, events ...store.Event) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var exists int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM verifications WHERE client_id = ? AND request_id = ?", c.ClientID, c.RequestID).Scan(&exists); err != nil {
			return err
		}
		if exists > 0 {
			return store.ErrConflict
		}
		var balance, held int64
		err := tx.QueryRowContext(ctx, `SELECT o.units_balance,
			COALESCE((SELECT SUM(units) FROM verifications v WHERE v.organisation_id = o.id AND v.state = 'pending'), 0)
			FROM organisations o WHERE o.id = ?`, c.OrganisationID).Scan(&balance, &held)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if balance-held < c.Units {
			return store.ErrInsufficientUnits
		}
		now := db.stamp()
		_, err = tx.ExecContext(ctx, `INSERT INTO verifications(id, client_id, organisation_id, workflow_id, request_id, fingerprint, state, units, created_at)
			VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`, c.ID, c.ClientID, c.OrganisationID, c.WorkflowID, c.RequestID, c.Fingerprint, c.Units, now)
		if isUnique(err) {
			return store.ErrConflict
		}
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := insertEvent(ctx, tx, e, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReleaseClaim deletes a pending claim.
func (db *DB) ReleaseClaim(ctx context.Context, id string, events ...store.Event) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM verifications WHERE id = ? AND state = 'pending'", id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // already released or completed: nothing happened
		}
		now := db.stamp()
		for _, e := range events {
			if err := insertEvent(ctx, tx, e, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReleaseClaimsBefore drops pending claims created before t.
func (db *DB) ReleaseClaimsBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := db.w.ExecContext(ctx, "DELETE FROM verifications WHERE state = 'pending' AND created_at < ?", t.UTC().Format(stampLayout))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// CompleteVerification stores the result, debits the units and writes the
// events, all or nothing.
func (db *DB) CompleteVerification(ctx context.Context, v store.Verification, events func(before store.Organisation, after int64) []store.Event) (int64, error) {
	files, err := json.Marshal(v.Files)
	if err != nil {
		return 0, err
	}
	var after int64
	err = db.tx(ctx, func(tx *sql.Tx) error {
		now := db.stamp()
		res, err := tx.ExecContext(ctx, `UPDATE verifications SET state = 'done', decision = ?, result = ?, files = ?, completed_at = ?
			WHERE id = ? AND state = 'pending'`, v.Decision, string(v.Result), string(files), now, v.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("sqlite: verification %s has no pending claim: %w", v.ID, store.ErrNotFound)
		}
		if v.Decision == "review" {
			if err := queueReview(ctx, tx, v, now); err != nil {
				return err
			}
		}
		before, err := scanOrg(tx.QueryRowContext(ctx, "SELECT "+orgColumns+" FROM organisations WHERE id = ?", v.OrganisationID))
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, "UPDATE organisations SET units_balance = units_balance - ? WHERE id = ? RETURNING units_balance",
			v.Units, v.OrganisationID).Scan(&after); err != nil {
			return fmt.Errorf("sqlite: debit: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO unit_ledger(organisation_id, delta, balance, reason, verification_id, created_at) VALUES (?, ?, ?, 'verification', ?, ?)",
			v.OrganisationID, -v.Units, after, v.ID, now); err != nil {
			return fmt.Errorf("sqlite: ledger: %w", err)
		}
		if events == nil {
			return nil
		}
		for _, e := range events(before, after) {
			if err := insertEvent(ctx, tx, e, now); err != nil {
				return err
			}
		}
		return nil
	})
	return after, err
}

// AddEvents writes events to the outbox outside a verification (workflow
// and balance changes made by administrators).
func (db *DB) AddEvents(ctx context.Context, events ...store.Event) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		for _, e := range events {
			if err := insertEvent(ctx, tx, e, db.stamp()); err != nil {
				return err
			}
		}
		return nil
	})
}

func insertEvent(ctx context.Context, tx *sql.Tx, e store.Event, now string) error {
	if e.EventID == "" {
		e.EventID = idv.NewRequestID()
	}
	if !e.CreatedAt.IsZero() {
		now = e.CreatedAt.UTC().Format(stampLayout)
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO outbox(event_id, event, organisation_id, data, created_at) VALUES (?, ?, ?, ?, ?)",
		e.EventID, e.Event, e.OrganisationID, string(e.Data), now)
	if err != nil {
		return fmt.Errorf("sqlite: outbox %s: %w", e.Event, err)
	}
	return nil
}

// UnitsUsedSince sums the units debited by verifications since t.
func (db *DB) UnitsUsedSince(ctx context.Context, orgID int64, t time.Time) (int64, error) {
	var n int64
	err := db.r.QueryRowContext(ctx, "SELECT COALESCE(SUM(-delta), 0) FROM unit_ledger WHERE organisation_id = ? AND reason = 'verification' AND created_at >= ?",
		orgID, t.UTC().Format(stampLayout)).Scan(&n)
	return n, err
}

// Events returns outbox rows after seq, oldest first.
func (db *DB) Events(ctx context.Context, afterSeq int64, limit int) ([]store.Event, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT seq, event_id, event, organisation_id, data, created_at, delivered_at FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?", afterSeq, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Event
	for rows.Next() {
		var e store.Event
		var data, created string
		var delivered sql.NullString
		if err := rows.Scan(&e.Seq, &e.EventID, &e.Event, &e.OrganisationID, &data, &created, &delivered); err != nil {
			return nil, err
		}
		e.Data = json.RawMessage(data)
		e.CreatedAt = parseStamp(created)
		if delivered.Valid {
			t := parseStamp(delivered.String)
			e.DeliveredAt = &t
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Setting returns a named setting, creating it on first use.
func (db *DB) Setting(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, "SELECT value FROM settings WHERE name = ?", name).Scan(&v)
		if err == nil || !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if v, err = create(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO settings(name, value) VALUES (?, ?)", name, v)
		return err
	})
	return v, err
}

// VerificationCounts returns how many verifications are done and pending,
// and the units debited for them (tests and operators).
func (db *DB) VerificationCounts(ctx context.Context, orgID int64) (done, pending, billed int64, err error) {
	err = db.r.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(state = 'done'), 0), COALESCE(SUM(state = 'pending'), 0),
		(SELECT COALESCE(SUM(-delta), 0) FROM unit_ledger WHERE organisation_id = ? AND reason = 'verification')
		FROM verifications WHERE organisation_id = ?`, orgID, orgID).Scan(&done, &pending, &billed)
	return
}

// VerificationStored reports whether a completed verification with this id
// is stored (store.VerificationFinder).
func (db *DB) VerificationStored(ctx context.Context, id string) (bool, error) {
	var n int
	err := db.r.QueryRowContext(ctx, "SELECT COUNT(*) FROM verifications WHERE id = ? AND state = 'done'", id).Scan(&n)
	return n > 0, err
}

var _ store.VerificationFinder = (*DB)(nil)
