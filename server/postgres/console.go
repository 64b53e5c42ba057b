package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tambua/tambua/server/store"
)

// The web console's accounts (store.Console), so `serve --db` mounts the
// console as SQLite does; storetest.RunConsole holds both to the same
// behaviour.
var _ store.Console = (*DB)(nil)

const userColumns = `id, organisation_id, email, name, role, password_hash, totp_secret, totp_enabled, totp_last_step,
	recovery_codes, failed_attempts, locked_until, created_at`

// nullTime is t, or NULL for the zero time ("never").
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func scanUser(r pgx.Row) (store.User, error) {
	var u store.User
	var codes string
	var locked *time.Time
	err := r.Scan(&u.ID, &u.OrganisationID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.TOTPSecret, &u.TOTPEnabled,
		&u.TOTPLastStep, &codes, &u.FailedAttempts, &locked, &u.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, store.ErrNotFound
	}
	if err != nil {
		return u, err
	}
	if err := json.Unmarshal([]byte(codes), &u.RecoveryCodes); err != nil {
		return u, fmt.Errorf("postgres: user recovery codes: %w", err)
	}
	if locked != nil {
		u.LockedUntil = *locked
	}
	return u, nil
}

// recoveryJSON is the recovery codes as stored: a JSON array, [] for none.
func recoveryJSON(codes []string) (string, error) {
	if codes == nil {
		codes = []string{}
	}
	b, err := json.Marshal(codes)
	return string(b), err
}

// CreateUser stores a console member; ErrConflict when the email is taken.
func (db *DB) CreateUser(ctx context.Context, u store.User) error {
	codes, err := recoveryJSON(u.RecoveryCodes)
	if err != nil {
		return err
	}
	_, err = db.pool.Exec(ctx, "INSERT INTO console_users("+userColumns+") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
		u.ID, u.OrganisationID, u.Email, u.Name, u.Role, u.PasswordHash, u.TOTPSecret, u.TOTPEnabled, u.TOTPLastStep,
		codes, u.FailedAttempts, nullTime(u.LockedUntil), db.now())
	switch pgCode(err) {
	case codeUnique:
		return store.ErrConflict
	case codeForeignKey:
		return fmt.Errorf("organisation %d: %w", u.OrganisationID, store.ErrNotFound)
	}
	return err
}

// User returns a member by id.
func (db *DB) User(ctx context.Context, id string) (store.User, error) {
	return scanUser(db.pool.QueryRow(ctx, "SELECT "+userColumns+" FROM console_users WHERE id = $1", id))
}

// UserByEmail returns a member by email (already normalised by the caller).
func (db *DB) UserByEmail(ctx context.Context, email string) (store.User, error) {
	return scanUser(db.pool.QueryRow(ctx, "SELECT "+userColumns+" FROM console_users WHERE email = $1", email))
}

// UpdateUser writes a member's mutable fields.
func (db *DB) UpdateUser(ctx context.Context, u store.User) error {
	codes, err := recoveryJSON(u.RecoveryCodes)
	if err != nil {
		return err
	}
	tag, err := db.pool.Exec(ctx, `UPDATE console_users SET name = $1, role = $2, password_hash = $3, totp_secret = $4, totp_enabled = $5,
		totp_last_step = $6, recovery_codes = $7, failed_attempts = $8, locked_until = $9 WHERE id = $10`,
		u.Name, u.Role, u.PasswordHash, u.TOTPSecret, u.TOTPEnabled, u.TOTPLastStep, codes, u.FailedAttempts,
		nullTime(u.LockedUntil), u.ID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// ListUsers returns an organisation's members by email.
func (db *DB) ListUsers(ctx context.Context, orgID int64) ([]store.User, error) {
	rows, err := db.pool.Query(ctx, "SELECT "+userColumns+" FROM console_users WHERE organisation_id = $1 ORDER BY email", orgID)
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

// DeleteUser removes a member of orgID and revokes their sessions, in one
// transaction: a removed member keeps no live session on any replica.
func (db *DB) DeleteUser(ctx context.Context, orgID int64, id string) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM console_users WHERE id = $1 AND organisation_id = $2", id, orgID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ErrNotFound
		}
		_, err = tx.Exec(ctx, "UPDATE console_sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL", db.now(), id)
		return err
	})
}

// PutEmailCode replaces the code of (email, purpose), with no attempts.
func (db *DB) PutEmailCode(ctx context.Context, c store.EmailCode) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO console_email_codes(email, purpose, code_hash, expires_at, attempts, used_at, created_at)
		VALUES ($1, $2, $3, $4, 0, NULL, $5) ON CONFLICT (email, purpose) DO UPDATE SET code_hash = excluded.code_hash,
		expires_at = excluded.expires_at, attempts = 0, used_at = NULL, created_at = excluded.created_at`,
		c.Email, c.Purpose, c.CodeHash, c.ExpiresAt, db.now())
	return err
}

// EmailCode returns the code of (email, purpose).
func (db *DB) EmailCode(ctx context.Context, email, purpose string) (store.EmailCode, error) {
	var c store.EmailCode
	err := db.pool.QueryRow(ctx, `SELECT email, purpose, code_hash, expires_at, attempts, used_at, created_at
		FROM console_email_codes WHERE email = $1 AND purpose = $2`, email, purpose).
		Scan(&c.Email, &c.Purpose, &c.CodeHash, &c.ExpiresAt, &c.Attempts, &c.UsedAt, &c.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, store.ErrNotFound
	}
	return c, err
}

// UpdateEmailCode writes a code's attempts and used time. It matches the
// code's hash too, so the update of a code replaced meanwhile (a new code
// mailed) changes nothing.
func (db *DB) UpdateEmailCode(ctx context.Context, c store.EmailCode) error {
	_, err := db.pool.Exec(ctx, "UPDATE console_email_codes SET attempts = $1, used_at = $2 WHERE email = $3 AND purpose = $4 AND code_hash = $5",
		c.Attempts, c.UsedAt, c.Email, c.Purpose, c.CodeHash)
	return err
}

// CreateSession stores a session.
func (db *DB) CreateSession(ctx context.Context, s store.Session) error {
	_, err := db.pool.Exec(ctx, "INSERT INTO console_sessions(id, user_id, organisation_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
		s.ID, s.UserID, s.OrganisationID, db.now(), s.ExpiresAt)
	if pgCode(err) == codeUnique {
		return store.ErrConflict
	}
	return err
}

// Session returns a session.
func (db *DB) Session(ctx context.Context, id string) (store.Session, error) {
	var s store.Session
	err := db.pool.QueryRow(ctx, "SELECT id, user_id, organisation_id, created_at, expires_at, revoked_at FROM console_sessions WHERE id = $1", id).
		Scan(&s.ID, &s.UserID, &s.OrganisationID, &s.CreatedAt, &s.ExpiresAt, &s.RevokedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, store.ErrNotFound
	}
	return s, err
}

// RevokeSession ends a session; ending it again keeps the first time.
func (db *DB) RevokeSession(ctx context.Context, id string) error {
	_, err := db.pool.Exec(ctx, "UPDATE console_sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", db.now(), id)
	return err
}

// PutOrgProfile stores an organisation's profile.
func (db *DB) PutOrgProfile(ctx context.Context, p store.OrgProfile) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO organisation_profiles(organisation_id, registration_number, industry, monthly_volume,
		admin_verification_id, admin_verification_decision, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (organisation_id) DO UPDATE SET registration_number = excluded.registration_number, industry = excluded.industry,
		monthly_volume = excluded.monthly_volume, admin_verification_id = excluded.admin_verification_id,
		admin_verification_decision = excluded.admin_verification_decision, updated_at = excluded.updated_at`,
		p.OrganisationID, p.RegistrationNumber, p.Industry, p.MonthlyVolume, p.AdminVerificationID, p.AdminVerificationDecision, db.now())
	if pgCode(err) == codeForeignKey {
		return fmt.Errorf("organisation %d: %w", p.OrganisationID, store.ErrNotFound)
	}
	return err
}

// OrgProfile returns an organisation's profile.
func (db *DB) OrgProfile(ctx context.Context, orgID int64) (store.OrgProfile, error) {
	var p store.OrgProfile
	err := db.pool.QueryRow(ctx, `SELECT organisation_id, registration_number, industry, monthly_volume, admin_verification_id,
		admin_verification_decision, updated_at FROM organisation_profiles WHERE organisation_id = $1`, orgID).
		Scan(&p.OrganisationID, &p.RegistrationNumber, &p.Industry, &p.MonthlyVolume, &p.AdminVerificationID, &p.AdminVerificationDecision, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, store.ErrNotFound
	}
	return p, err
}

// ListClients returns an organisation's clients, newest first.
func (db *DB) ListClients(ctx context.Context, orgID int64) ([]store.Client, error) {
	rows, err := db.pool.Query(ctx, "SELECT id, organisation_id, name, secret_hash, active, created_at FROM api_clients WHERE organisation_id = $1 ORDER BY created_at DESC, id", orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Client
	for rows.Next() {
		var c store.Client
		if err := rows.Scan(&c.ID, &c.OrganisationID, &c.Name, &c.SecretHash, &c.Active, &c.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetClientSecret replaces a client's secret hash (rotation).
func (db *DB) SetClientSecret(ctx context.Context, id, hash string) error {
	tag, err := db.pool.Exec(ctx, "UPDATE api_clients SET secret_hash = $1 WHERE id = $2", hash, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// ListOrgWorkflows returns an organisation's workflows by name.
func (db *DB) ListOrgWorkflows(ctx context.Context, orgID int64) ([]store.Workflow, error) {
	rows, err := db.pool.Query(ctx, workflowSelect+" WHERE c.organisation_id = $1 ORDER BY w.name, w.id", orgID)
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
	rows, err := db.pool.Query(ctx, `SELECT id, delta, balance, reason, COALESCE(verification_id, ''), created_at FROM unit_ledger
		WHERE organisation_id = $1 ORDER BY id DESC LIMIT $2`, orgID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.LedgerEntry
	for rows.Next() {
		var e store.LedgerEntry
		if err := rows.Scan(&e.ID, &e.Delta, &e.Balance, &e.Reason, &e.VerificationID, &e.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// SetLowBalanceThreshold sets the balance below which units.low_balance fires.
func (db *DB) SetLowBalanceThreshold(ctx context.Context, orgID, n int64) error {
	tag, err := db.pool.Exec(ctx, "UPDATE organisations SET low_balance_threshold = $1 WHERE id = $2", n, orgID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// DecisionCounts counts the verifications completed since t by decision.
func (db *DB) DecisionCounts(ctx context.Context, orgID int64, since time.Time) (map[string]int64, error) {
	rows, err := db.pool.Query(ctx, `SELECT decision, COUNT(*) FROM verifications WHERE organisation_id = $1 AND state = 'done'
		AND completed_at >= $2 GROUP BY decision`, orgID, since)
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
