package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tambua/tambua/server/store"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

var _ store.Console = (*DB)(nil)

const userColumns = `id, organisation_id, email, name, role, password_hash, totp_secret, totp_enabled, totp_last_step,
	recovery_codes, failed_attempts, locked_until, created_at`

func stampOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(stampLayout)
}

func scanUser(s scanner) (store.User, error) {
	var u store.User
	var codes, locked, created string
	err := s.Scan(&u.ID, &u.OrganisationID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.TOTPSecret, &u.TOTPEnabled,
		&u.TOTPLastStep, &codes, &u.FailedAttempts, &locked, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return u, store.ErrNotFound
	}
	if err != nil {
		return u, err
	}
	if err := json.Unmarshal([]byte(codes), &u.RecoveryCodes); err != nil {
		return u, fmt.Errorf("sqlite: user recovery codes: %w", err)
	}
	if locked != "" {
		u.LockedUntil = parseStamp(locked)
	}
	u.CreatedAt = parseStamp(created)
	return u, nil
}

// CreateUser stores a console member; ErrConflict when the email is taken.
func (db *DB) CreateUser(ctx context.Context, u store.User) error {
	codes, err := json.Marshal(nonNil(u.RecoveryCodes))
	if err != nil {
		return err
	}
	_, err = db.w.ExecContext(ctx, "INSERT INTO console_users("+userColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		u.ID, u.OrganisationID, u.Email, u.Name, u.Role, u.PasswordHash, u.TOTPSecret, u.TOTPEnabled, u.TOTPLastStep,
		string(codes), u.FailedAttempts, stampOf(u.LockedUntil), db.stamp())
	if isUnique(err) {
		return store.ErrConflict
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		return fmt.Errorf("organisation %d: %w", u.OrganisationID, store.ErrNotFound)
	}
	return err
}

// User returns a member by id.
func (db *DB) User(ctx context.Context, id string) (store.User, error) {
	return scanUser(db.w.QueryRowContext(ctx, "SELECT "+userColumns+" FROM console_users WHERE id = ?", id))
}

// UserByEmail returns a member by email (already normalised by the caller).
func (db *DB) UserByEmail(ctx context.Context, email string) (store.User, error) {
	return scanUser(db.w.QueryRowContext(ctx, "SELECT "+userColumns+" FROM console_users WHERE email = ?", email))
}

// UpdateUser writes a member's mutable fields.
func (db *DB) UpdateUser(ctx context.Context, u store.User) error {
	codes, err := json.Marshal(nonNil(u.RecoveryCodes))
	if err != nil {
		return err
	}
	res, err := db.w.ExecContext(ctx, `UPDATE console_users SET name = ?, role = ?, password_hash = ?, totp_secret = ?, totp_enabled = ?,
		totp_last_step = ?, recovery_codes = ?, failed_attempts = ?, locked_until = ? WHERE id = ?`,
		u.Name, u.Role, u.PasswordHash, u.TOTPSecret, u.TOTPEnabled, u.TOTPLastStep, string(codes), u.FailedAttempts,
		stampOf(u.LockedUntil), u.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// ListUsers returns an organisation's members by email.
func (db *DB) ListUsers(ctx context.Context, orgID int64) ([]store.User, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+userColumns+" FROM console_users WHERE organisation_id = ? ORDER BY email", orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// DeleteUser removes a member of orgID and revokes their sessions.
func (db *DB) DeleteUser(ctx context.Context, orgID int64, id string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM console_users WHERE id = ? AND organisation_id = ?", id, orgID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		_, err = tx.ExecContext(ctx, "UPDATE console_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL", db.stamp(), id)
		return err
	})
}

// PutEmailCode replaces the code of (email, purpose).
func (db *DB) PutEmailCode(ctx context.Context, c store.EmailCode) error {
	_, err := db.w.ExecContext(ctx, `INSERT INTO console_email_codes(email, purpose, code_hash, expires_at, attempts, used_at, created_at)
		VALUES (?, ?, ?, ?, 0, NULL, ?) ON CONFLICT(email, purpose) DO UPDATE SET code_hash = excluded.code_hash,
		expires_at = excluded.expires_at, attempts = 0, used_at = NULL, created_at = excluded.created_at`,
		c.Email, c.Purpose, c.CodeHash, stampOf(c.ExpiresAt), db.stamp())
	return err
}

// EmailCode returns the code of (email, purpose).
func (db *DB) EmailCode(ctx context.Context, email, purpose string) (store.EmailCode, error) {
	var c store.EmailCode
	var exp, created string
	var used sql.NullString
	err := db.w.QueryRowContext(ctx, `SELECT email, purpose, code_hash, expires_at, attempts, used_at, created_at
		FROM console_email_codes WHERE email = ? AND purpose = ?`, email, purpose).
		Scan(&c.Email, &c.Purpose, &c.CodeHash, &exp, &c.Attempts, &used, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return c, store.ErrNotFound
	}
	c.ExpiresAt, c.CreatedAt = parseStamp(exp), parseStamp(created)
	if used.Valid {
		t := parseStamp(used.String)
		c.UsedAt = &t
	}
	return c, err
}

// UpdateEmailCode writes a code's attempts and used time.
func (db *DB) UpdateEmailCode(ctx context.Context, c store.EmailCode) error {
	var used any
	if c.UsedAt != nil {
		used = stampOf(*c.UsedAt)
	}
	_, err := db.w.ExecContext(ctx, "UPDATE console_email_codes SET attempts = ?, used_at = ? WHERE email = ? AND purpose = ? AND code_hash = ?",
		c.Attempts, used, c.Email, c.Purpose, c.CodeHash)
	return err
}

// CreateSession stores a session.
func (db *DB) CreateSession(ctx context.Context, s store.Session) error {
	_, err := db.w.ExecContext(ctx, "INSERT INTO console_sessions(id, user_id, organisation_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
		s.ID, s.UserID, s.OrganisationID, db.stamp(), stampOf(s.ExpiresAt))
	return err
}

// Session returns a session.
func (db *DB) Session(ctx context.Context, id string) (store.Session, error) {
	var s store.Session
	var created, exp string
	var revoked sql.NullString
	err := db.r.QueryRowContext(ctx, "SELECT id, user_id, organisation_id, created_at, expires_at, revoked_at FROM console_sessions WHERE id = ?", id).
		Scan(&s.ID, &s.UserID, &s.OrganisationID, &created, &exp, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return s, store.ErrNotFound
	}
	s.CreatedAt, s.ExpiresAt = parseStamp(created), parseStamp(exp)
	if revoked.Valid {
		t := parseStamp(revoked.String)
		s.RevokedAt = &t
	}
	return s, err
}

// RevokeSession ends a session.
func (db *DB) RevokeSession(ctx context.Context, id string) error {
	_, err := db.w.ExecContext(ctx, "UPDATE console_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", db.stamp(), id)
	return err
}

// PutOrgProfile stores an organisation's profile.
func (db *DB) PutOrgProfile(ctx context.Context, p store.OrgProfile) error {
	_, err := db.w.ExecContext(ctx, `INSERT INTO organisation_profiles(organisation_id, registration_number, industry, monthly_volume,
		admin_verification_id, admin_verification_decision, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(organisation_id) DO UPDATE SET registration_number = excluded.registration_number, industry = excluded.industry,
		monthly_volume = excluded.monthly_volume, admin_verification_id = excluded.admin_verification_id,
		admin_verification_decision = excluded.admin_verification_decision, updated_at = excluded.updated_at`,
		p.OrganisationID, p.RegistrationNumber, p.Industry, p.MonthlyVolume, p.AdminVerificationID, p.AdminVerificationDecision, db.stamp())
	return err
}

// OrgProfile returns an organisation's profile.
func (db *DB) OrgProfile(ctx context.Context, orgID int64) (store.OrgProfile, error) {
	var p store.OrgProfile
	var updated string
	err := db.r.QueryRowContext(ctx, `SELECT organisation_id, registration_number, industry, monthly_volume, admin_verification_id,
		admin_verification_decision, updated_at FROM organisation_profiles WHERE organisation_id = ?`, orgID).
		Scan(&p.OrganisationID, &p.RegistrationNumber, &p.Industry, &p.MonthlyVolume, &p.AdminVerificationID, &p.AdminVerificationDecision, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return p, store.ErrNotFound
	}
	p.UpdatedAt = parseStamp(updated)
	return p, err
}

// ListClients returns an organisation's clients, newest first.
func (db *DB) ListClients(ctx context.Context, orgID int64) ([]store.Client, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT id, organisation_id, name, secret_hash, active, created_at FROM api_clients WHERE organisation_id = ? ORDER BY created_at DESC, id", orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Client
	for rows.Next() {
		var c store.Client
		var created string
		if err := rows.Scan(&c.ID, &c.OrganisationID, &c.Name, &c.SecretHash, &c.Active, &created); err != nil {
			return nil, err
		}
		c.CreatedAt = parseStamp(created)
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetClientSecret replaces a client's secret hash (rotation).
func (db *DB) SetClientSecret(ctx context.Context, id, hash string) error {
	res, err := db.w.ExecContext(ctx, "UPDATE api_clients SET secret_hash = ? WHERE id = ?", hash, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// ListOrgWorkflows returns an organisation's workflows by name.
func (db *DB) ListOrgWorkflows(ctx context.Context, orgID int64) ([]store.Workflow, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+workflowColumns+" FROM workflows w JOIN api_clients c ON c.id = w.client_id WHERE c.organisation_id = ? ORDER BY w.name, w.id", orgID)
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

// UnitLedger returns an organisation's latest balance changes, newest first.
func (db *DB) UnitLedger(ctx context.Context, orgID int64, limit int) ([]store.LedgerEntry, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, delta, balance, reason, COALESCE(verification_id, ''), created_at FROM unit_ledger
		WHERE organisation_id = ? ORDER BY id DESC LIMIT ?`, orgID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.LedgerEntry
	for rows.Next() {
		var e store.LedgerEntry
		var created string
		if err := rows.Scan(&e.ID, &e.Delta, &e.Balance, &e.Reason, &e.VerificationID, &created); err != nil {
			return nil, err
		}
		e.CreatedAt = parseStamp(created)
		out = append(out, e)
	}
	return out, rows.Err()
}

// SetLowBalanceThreshold sets the balance below which units.low_balance fires.
func (db *DB) SetLowBalanceThreshold(ctx context.Context, orgID, n int64) error {
	res, err := db.w.ExecContext(ctx, "UPDATE organisations SET low_balance_threshold = ? WHERE id = ?", n, orgID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// DecisionCounts counts the verifications completed since t by decision.
func (db *DB) DecisionCounts(ctx context.Context, orgID int64, since time.Time) (map[string]int64, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT decision, COUNT(*) FROM verifications WHERE organisation_id = ? AND state = 'done'
		AND completed_at >= ? GROUP BY decision`, orgID, stampOf(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var d string
		var n int64
		if err := rows.Scan(&d, &n); err != nil {
			return nil, err
		}
		out[d] = n
	}
	return out, rows.Err()
}
