package store

import (
	"context"
	"time"
)

// Console member roles (docs/console.md): an admin does everything, a
// developer builds (clients, workflows, webhooks, test verifications), a
// reviewer works the review queue.
const (
	RoleAdmin     = "admin"
	RoleDeveloper = "developer"
	RoleReviewer  = "reviewer"
)

// User is a console member of one organisation. An invited member has no
// password until they accept the invitation.
type User struct {
	ID             string
	OrganisationID int64
	Email          string
	Name           string
	Role           string
	// PasswordHash is the PHC-encoded argon2id hash ("" until set).
	PasswordHash string
	// TOTPSecret is the sealed (encrypted) TOTP key; TOTPEnabled once a
	// first code confirmed the enrolment. TOTPLastStep is the 30 s step of
	// the last code accepted, so a code is never accepted twice.
	TOTPSecret   string
	TOTPEnabled  bool
	TOTPLastStep int64
	// RecoveryCodes are argon2id hashes of the unused recovery codes.
	RecoveryCodes []string
	// FailedAttempts counts sign-in failures since the last success;
	// LockedUntil refuses sign-ins until then.
	FailedAttempts int
	LockedUntil    time.Time
	CreatedAt      time.Time
}

// EmailCode is a one-time code sent by email for a purpose ("signup",
// "invite"), kept as a keyed hash; one live code per (email, purpose).
type EmailCode struct {
	Email     string
	Purpose   string
	CodeHash  string
	ExpiresAt time.Time
	Attempts  int
	UsedAt    *time.Time
	CreatedAt time.Time
}

// Session is a console sign-in: the JWT's id. Revoked at sign-out.
type Session struct {
	ID             string
	UserID         string
	OrganisationID int64
	CreatedAt      time.Time
	ExpiresAt      time.Time
	RevokedAt      *time.Time
}

// OrgProfile is what sign-up records about an organisation beyond its name.
type OrgProfile struct {
	OrganisationID     int64
	RegistrationNumber string
	Industry           string
	MonthlyVolume      string
	// AdminVerificationID and AdminVerificationDecision record the
	// admin's personal verification through the engine ("" until run).
	AdminVerificationID       string
	AdminVerificationDecision string
	UpdatedAt                 time.Time
}

// LedgerEntry is one change of an organisation's balance.
type LedgerEntry struct {
	ID             int64
	Delta          int64
	Balance        int64
	Reason         string
	VerificationID string
	CreatedAt      time.Time
}

// Console is what the web console stores beyond the Store: members,
// one-time codes, sessions, organisation profiles, and the listings its
// pages show. server/sqlite.DB has it; a server whose store lacks it
// serves no console.
type Console interface {
	// CreateUser stores u; ErrConflict when the email is taken.
	CreateUser(ctx context.Context, u User) error
	User(ctx context.Context, id string) (User, error)
	UserByEmail(ctx context.Context, email string) (User, error)
	// UpdateUser writes the user's name, role, password, TOTP, recovery
	// and lockout fields.
	UpdateUser(ctx context.Context, u User) error
	ListUsers(ctx context.Context, orgID int64) ([]User, error)
	// DeleteUser removes a member of orgID and revokes their sessions.
	DeleteUser(ctx context.Context, orgID int64, id string) error

	// PutEmailCode replaces the code of (email, purpose).
	PutEmailCode(ctx context.Context, c EmailCode) error
	EmailCode(ctx context.Context, email, purpose string) (EmailCode, error)
	// UpdateEmailCode writes the attempts and used time.
	UpdateEmailCode(ctx context.Context, c EmailCode) error

	CreateSession(ctx context.Context, s Session) error
	Session(ctx context.Context, id string) (Session, error)
	RevokeSession(ctx context.Context, id string) error

	PutOrgProfile(ctx context.Context, p OrgProfile) error
	OrgProfile(ctx context.Context, orgID int64) (OrgProfile, error)

	ListClients(ctx context.Context, orgID int64) ([]Client, error)
	SetClientSecret(ctx context.Context, id, hash string) error
	ListOrgWorkflows(ctx context.Context, orgID int64) ([]Workflow, error)
	UnitLedger(ctx context.Context, orgID int64, limit int) ([]LedgerEntry, error)
	SetLowBalanceThreshold(ctx context.Context, orgID, n int64) error
	// DecisionCounts counts the organisation's verifications completed
	// since t by current decision.
	DecisionCounts(ctx context.Context, orgID int64, since time.Time) (map[string]int64, error)
}
