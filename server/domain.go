package server

import "github.com/tambua/tambua/server/store"

// The domain types live in server/store, which storage backends import
// without the HTTP layer; these names keep the server's API whole.
type (
	Organisation = store.Organisation
	Client       = store.Client
	Workflow     = store.Workflow
	Claim        = store.Claim
	Verification = store.Verification
	Event        = store.Event
	Store        = store.Store
	FileStore    = store.FileStore
	// FileSweeper and VerificationFinder are optional abilities of a
	// backend that the start-up sweep uses.
	FileSweeper        = store.FileSweeper
	VerificationFinder = store.VerificationFinder
	ClaimFinder        = store.ClaimFinder
	// Audit is the optional audit log and retention setting.
	Audit       = store.Audit
	AuditEntry  = store.AuditEntry
	AuditFilter = store.AuditFilter
)

// Store errors.
var (
	ErrNotFound          = store.ErrNotFound
	ErrConflict          = store.ErrConflict
	ErrInsufficientUnits = store.ErrInsufficientUnits
	ErrPending           = store.ErrPending
)
