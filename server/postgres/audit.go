package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tambua/tambua/server/store"
)

var _ store.Audit = (*DB)(nil)

// execer is the pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func insertAudit(ctx context.Context, x execer, e store.AuditEntry, now time.Time) error {
	if !e.CreatedAt.IsZero() {
		now = e.CreatedAt
	}
	if _, err := x.Exec(ctx, `INSERT INTO audit_log(organisation_id, actor, action, object_type, object_id, detail, address, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, e.OrganisationID, e.Actor, e.Action, e.ObjectType, e.ObjectID, e.Detail, e.Address, now); err != nil {
		return fmt.Errorf("postgres: audit: %w", err)
	}
	return nil
}

// AddAudit appends one line to the audit log.
func (db *DB) AddAudit(ctx context.Context, e store.AuditEntry) error {
	return insertAudit(ctx, db.pool, e, db.now())
}

// AuditLog returns an organisation's audit lines, newest first.
func (db *DB) AuditLog(ctx context.Context, orgID int64, f store.AuditFilter) ([]store.AuditEntry, error) {
	q := "SELECT id, organisation_id, actor, action, object_type, object_id, detail, address, created_at FROM audit_log WHERE organisation_id = $1"
	args := []any{orgID}
	if f.Action != "" {
		args = append(args, f.Action)
		q += " AND action = $" + strconv.Itoa(len(args))
	}
	add := func(cond string, v any) {
		args = append(args, v)
		q += cond + strconv.Itoa(len(args))
	}
	if f.Actor != "" {
		add(" AND actor = $", f.Actor)
	}
	if f.ObjectID != "" {
		add(" AND object_id = $", f.ObjectID)
	}
	if !f.Since.IsZero() {
		add(" AND created_at >= $", f.Since)
	}
	if !f.Until.IsZero() {
		add(" AND created_at < $", f.Until)
	}
	limit := f.Limit
	if limit <= 0 || limit > 10000 {
		limit = 10000
	}
	args = append(args, limit)
	rows, err := db.pool.Query(ctx, q+" ORDER BY id DESC LIMIT $"+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.AuditEntry, error) {
		var e store.AuditEntry
		err := r.Scan(&e.ID, &e.OrganisationID, &e.Actor, &e.Action, &e.ObjectType, &e.ObjectID, &e.Detail, &e.Address, &e.CreatedAt)
		return e, err
	})
}

// SetRetention sets an organisation's retention in days (0: keep).
func (db *DB) SetRetention(ctx context.Context, orgID int64, days int) error {
	if days < 0 {
		return fmt.Errorf("postgres: retention must not be negative")
	}
	tag, err := db.pool.Exec(ctx, "UPDATE organisations SET retention_days = $1 WHERE id = $2", days, orgID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Retention returns an organisation's retention in days.
func (db *DB) Retention(ctx context.Context, orgID int64) (int, error) {
	var days int
	err := db.pool.QueryRow(ctx, "SELECT retention_days FROM organisations WHERE id = $1", orgID).Scan(&days)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, store.ErrNotFound
	}
	return days, err
}

// ExpiredVerifications lists verifications past their organisation's
// retention, oldest first.
func (db *DB) ExpiredVerifications(ctx context.Context, now time.Time, limit int) ([]store.Expired, error) {
	rows, err := db.pool.Query(ctx, `SELECT v.organisation_id, v.id FROM verifications v JOIN organisations o ON o.id = v.organisation_id
		WHERE v.state = 'done' AND v.erased_at IS NULL AND o.retention_days > 0
		AND v.completed_at < $1::timestamptz - make_interval(days => o.retention_days)
		ORDER BY v.completed_at LIMIT $2`, now, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Expired, error) {
		var e store.Expired
		err := r.Scan(&e.OrganisationID, &e.VerificationID)
		return e, err
	})
}
