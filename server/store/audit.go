package store

import (
	"context"
	"time"
)

// AuditEntry is one line of the audit log: who did what to which object,
// when and from where.
type AuditEntry struct {
	ID             int64
	OrganisationID int64 // 0: outside any organisation
	Actor          string
	// Action names what happened: "review.assigned", "review.approved",
	// "review.rejected", "verification.erased", "organisation.created",
	// "client.created", "units.added", "workflow.created", ...
	Action     string
	ObjectType string
	ObjectID   string
	Detail     string
	Address    string
	CreatedAt  time.Time
}

// AuditFilter selects audit lines, newest first.
type AuditFilter struct {
	Action string
	// Actor matches the actor exactly; ObjectID the object's id.
	Actor    string
	ObjectID string
	// Since and Until bound the time, inclusive and exclusive.
	Since time.Time
	Until time.Time
	Limit int
}

// Audit is the append-only audit log and the organisations' retention
// setting. server/sqlite.DB has it. A backend with Audit and Reviews also
// writes an audit line in the transaction of every review action and
// erasure.
type Audit interface {
	AddAudit(ctx context.Context, e AuditEntry) error
	AuditLog(ctx context.Context, orgID int64, f AuditFilter) ([]AuditEntry, error)
	// SetRetention sets how many days after completion a verification's
	// images and personal fields are kept (0: kept).
	SetRetention(ctx context.Context, orgID int64, days int) error
	Retention(ctx context.Context, orgID int64) (int, error)
	// ExpiredVerifications lists, up to limit, the completed and not yet
	// erased verifications of organisations with a retention whose
	// period has passed at now.
	ExpiredVerifications(ctx context.Context, now time.Time, limit int) ([]Expired, error)
}

// Expired names a verification past its organisation's retention.
type Expired struct {
	OrganisationID int64
	VerificationID string
}
