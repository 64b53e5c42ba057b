// Package store is the server's domain: organisations, API clients, stored
// workflows, verification claims and results, the event outbox, and the
// Store and FileStore interfaces that persist them. It knows nothing of
// HTTP, tokens or metrics, so a storage backend (server/sqlite,
// server/files, and the scale-out backends) imports only this package.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/tambua/tambua/idv"
)

// Organisation owns API clients and a units balance.
type Organisation struct {
	ID   int64
	Name string
	// Balance is the units left.
	Balance int64
	// LowBalanceThreshold: a debit that takes the balance from at or above
	// it to below it records a units.low_balance event.
	LowBalanceThreshold int64
	CreatedAt           time.Time
}

// Client is an API client. SecretHash is the PHC-encoded argon2id hash of
// the client secret; the secret itself is never stored.
type Client struct {
	ID             string
	OrganisationID int64
	Name           string
	SecretHash     string
	Active         bool
	CreatedAt      time.Time
}

// Workflow is a stored workflow: the idv definition plus what the server
// keeps around it.
type Workflow struct {
	ID             string
	ClientID       string
	OrganisationID int64
	// Status is one of idv.WorkflowActive, idv.WorkflowDraft, idv.WorkflowArchived.
	Status       string
	RefreshToken string
	// Version increases on every edit, so that prepared workflows cached
	// by the server are rebuilt.
	Version    int64
	Definition idv.Workflow
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Claim reserves the right to run one verification: a pending row keyed by
// (client, request id) whose cost counts against the organisation's
// balance until it is completed or released.
type Claim struct {
	ID             string // the idv_unique_id the verification will carry
	ClientID       string
	OrganisationID int64
	WorkflowID     string
	RequestID      string
	Units          int64
	// Fingerprint identifies the request (requestFingerprint): a later
	// request with the same request id replays the stored result only
	// when its fingerprint and workflow are the same.
	Fingerprint string
}

// Verification is a completed, stored verification.
type Verification struct {
	ID             string
	ClientID       string
	OrganisationID int64
	WorkflowID     string
	RequestID      string
	Units          int64
	Fingerprint    string
	Decision       string
	// Result is the response body as it was first returned.
	Result json.RawMessage
	// Files maps each file URL embedded in Result to its storage key, so a
	// replay can mint fresh signed URLs.
	Files       map[string]string
	CreatedAt   time.Time
	CompletedAt time.Time
	// ErasedAt is when its images and personal fields were erased
	// (Reviews.EraseVerification); nil while they are kept.
	ErasedAt *time.Time
}

// Event is an outbox row: an event to deliver to webhooks later.
type Event struct {
	Seq            int64
	EventID        string
	Event          string
	OrganisationID int64
	Data           json.RawMessage
	CreatedAt      time.Time
	DeliveredAt    *time.Time
}

// Store errors.
var (
	ErrNotFound          = errors.New("store: not found")
	ErrConflict          = errors.New("store: already exists")
	ErrInsufficientUnits = errors.New("store: insufficient units")
	// ErrPending: another request with the same request id is running.
	ErrPending = errors.New("store: verification in progress")
)

// Store is the persistence the server needs. server/sqlite implements it.
type Store interface {
	CreateOrganisation(ctx context.Context, name string) (Organisation, error)
	Organisation(ctx context.Context, id int64) (Organisation, error)
	CountOrganisations(ctx context.Context) (int64, error)
	// AddUnits changes the balance by n (which may be negative, never below
	// zero) and returns the new balance.
	AddUnits(ctx context.Context, orgID, n int64, reason string) (int64, error)

	CreateClient(ctx context.Context, c Client) error
	Client(ctx context.Context, id string) (Client, error)
	SetClientActive(ctx context.Context, id string, active bool) error

	// CreateWorkflow stores w; ErrConflict when the client already has a
	// workflow of that name.
	// events (workflow.created) are written to the outbox in the same
	// transaction.
	CreateWorkflow(ctx context.Context, w Workflow, events ...Event) error
	Workflow(ctx context.Context, id string) (Workflow, error)
	// UpdateWorkflow replaces the definition and status and bumps Version.
	// events (workflow.updated, .activated, .deactivated) are written to
	// the outbox in the same transaction.
	UpdateWorkflow(ctx context.Context, w Workflow, events ...Event) (Workflow, error)
	ListWorkflows(ctx context.Context, clientID string) ([]Workflow, error)
	// SetWorkflowRefreshToken replaces a workflow's refresh token (and
	// nothing else: UpdateWorkflow never writes it, so an edit cannot
	// bring back a rotated token).
	SetWorkflowRefreshToken(ctx context.Context, id, token string) error

	// Verification returns the stored verification of (client, request id):
	// ErrNotFound when there is none, ErrPending while one is running (the
	// returned value then has its workflow and fingerprint filled in).
	Verification(ctx context.Context, clientID, requestID string) (Verification, error)
	// ClaimVerification reserves units for c in one transaction: it returns
	// ErrInsufficientUnits when the balance less the units held by pending
	// claims is below c.Units, and ErrConflict when (client, request id)
	// already exists (pending or done). events (verification.started) are
	// written to the outbox in the same transaction.
	ClaimVerification(ctx context.Context, c Claim, events ...Event) error
	// ReleaseClaim drops a pending claim whose verification did not complete.
	// events are written to the outbox in the same transaction when the
	// claim was still pending (verification.timeout).
	ReleaseClaim(ctx context.Context, id string, events ...Event) error
	// ReleaseClaimsBefore drops the pending claims taken before t: at start,
	// those of a process that stopped mid-verification, which would
	// otherwise hold units and block their request id for ever.
	ReleaseClaimsBefore(ctx context.Context, t time.Time) (int64, error)
	// CompleteVerification stores the result, debits the claimed units and
	// writes the outbox events in one transaction. events is called inside
	// the transaction with the organisation as it was before the debit and
	// the balance after it, so balance events see exact figures.
	CompleteVerification(ctx context.Context, v Verification, events func(before Organisation, after int64) []Event) (balance int64, err error)
	// UnitsUsedSince sums the units debited for an organisation since t.
	UnitsUsedSince(ctx context.Context, orgID int64, t time.Time) (int64, error)

	Events(ctx context.Context, afterSeq int64, limit int) ([]Event, error)

	// Setting returns a server setting (signing keys), creating it with
	// create() on first use, atomically.
	Setting(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error)

	Ping(ctx context.Context) error
	Close() error
}

// FileStore keeps stored images. server/files implements it on a folder.
type FileStore interface {
	Put(ctx context.Context, key string, data []byte) error
	Open(ctx context.Context, key string) (io.ReadSeekCloser, time.Time, error)
	// Delete removes a file; a missing one is not an error.
	Delete(ctx context.Context, key string) error
}

// FileSweeper is what a FileStore needs for the server to expire and clean
// up files (server/files.Dir has it). A store without it keeps everything.
type FileSweeper interface {
	// RemoveOlder removes the files under the folder key prefix last
	// modified before t.
	RemoveOlder(ctx context.Context, prefix string, before time.Time) (int, error)
	// RemoveTemp removes temporary files of interrupted writes last
	// modified before t.
	RemoveTemp(ctx context.Context, before time.Time) (int, error)
	// List returns the names directly under the folder key prefix.
	List(ctx context.Context, prefix string) ([]string, error)
	// RemoveAll removes the folder key prefix and everything under it.
	RemoveAll(ctx context.Context, prefix string) error
}

// VerificationFinder reports whether a verification with this
// idv_unique_id is stored (completed). server/sqlite.DB has it.
type VerificationFinder interface {
	VerificationStored(ctx context.Context, id string) (bool, error)
}

// ClaimFinder reports whether any verification row has this
// idv_unique_id, pending or completed. A claim is written before its
// captures, so a capture folder with no row belongs to no running
// verification: the start-up sweep on a shared database removes only
// those (server.SweepDeadCaptures).
type ClaimFinder interface {
	VerificationKnown(ctx context.Context, id string) (bool, error)
}
