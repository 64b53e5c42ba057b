package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tambua/tambua/server/store"
)

var _ store.Audit = (*DB)(nil)

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func insertAudit(ctx context.Context, x execer, e store.AuditEntry, now string) error {
	if !e.CreatedAt.IsZero() {
		now = e.CreatedAt.UTC().Format(stampLayout)
	}
	_, err := x.ExecContext(ctx, `INSERT INTO audit_log(organisation_id, actor, action, object_type, object_id, detail, address, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.OrganisationID, e.Actor, e.Action, e.ObjectType, e.ObjectID, e.Detail, e.Address, now)
	if err != nil {
		return fmt.Errorf("sqlite: audit: %w", err)
	}
	return nil
}

// AddAudit appends one line to the audit log.
func (db *DB) AddAudit(ctx context.Context, e store.AuditEntry) error {
	return insertAudit(ctx, db.w, e, db.stamp())
}

// AuditLog returns an organisation's audit lines, newest first.
func (db *DB) AuditLog(ctx context.Context, orgID int64, f store.AuditFilter) ([]store.AuditEntry, error) {
	q := "SELECT id, organisation_id, actor, action, object_type, object_id, detail, address, created_at FROM audit_log WHERE organisation_id = ?"
	args := []any{orgID}
	if f.Action != "" {
		q, args = q+" AND action = ?", append(args, f.Action)
	}
	if f.Actor != "" {
		q, args = q+" AND actor = ?", append(args, f.Actor)
	}
	if f.ObjectID != "" {
		q, args = q+" AND object_id = ?", append(args, f.ObjectID)
	}
	if !f.Since.IsZero() {
		q, args = q+" AND created_at >= ?", append(args, f.Since.UTC().Format(stampLayout))
	}
	if !f.Until.IsZero() {
		q, args = q+" AND created_at < ?", append(args, f.Until.UTC().Format(stampLayout))
	}
	limit := f.Limit
	if limit <= 0 || limit > 10000 {
		limit = 10000
	}
	rows, err := db.r.QueryContext(ctx, q+" ORDER BY id DESC LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.AuditEntry
	for rows.Next() {
		var e store.AuditEntry
		var created string
		if err := rows.Scan(&e.ID, &e.OrganisationID, &e.Actor, &e.Action, &e.ObjectType, &e.ObjectID, &e.Detail, &e.Address, &created); err != nil {
			return nil, err
		}
		e.CreatedAt = parseStamp(created)
		out = append(out, e)
	}
	return out, rows.Err()
}

// SetRetention sets an organisation's retention in days (0: keep).
func (db *DB) SetRetention(ctx context.Context, orgID int64, days int) error {
	if days < 0 {
		return fmt.Errorf("sqlite: retention must not be negative")
	}
	res, err := db.w.ExecContext(ctx, "UPDATE organisations SET retention_days = ? WHERE id = ?", days, orgID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Retention returns an organisation's retention in days.
func (db *DB) Retention(ctx context.Context, orgID int64) (int, error) {
	var days int
	err := db.r.QueryRowContext(ctx, "SELECT retention_days FROM organisations WHERE id = ?", orgID).Scan(&days)
	if err == sql.ErrNoRows {
		return 0, store.ErrNotFound
	}
	return days, err
}

// ExpiredVerifications lists verifications past their organisation's
// retention, oldest first.
func (db *DB) ExpiredVerifications(ctx context.Context, now time.Time, limit int) ([]store.Expired, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT v.organisation_id, v.id FROM verifications v JOIN organisations o ON o.id = v.organisation_id
		WHERE v.state = 'done' AND v.erased_at IS NULL AND o.retention_days > 0
		AND v.completed_at < strftime('%Y-%m-%dT%H:%M:%f', ?, '-' || o.retention_days || ' days')
		ORDER BY v.completed_at LIMIT ?`, now.UTC().Format("2006-01-02T15:04:05.000"), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Expired
	for rows.Next() {
		var e store.Expired
		if err := rows.Scan(&e.OrganisationID, &e.VerificationID); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
