package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Review case states. A case is open from the moment its verification
// completes with the decision review until a reviewer approves or rejects
// it; the two decided states are final.
const (
	ReviewOpen     = "open"
	ReviewApproved = "approved"
	ReviewRejected = "rejected"
)

// Review actions, as the history records them.
const (
	ActionQueued   = "queued"   // the automated verdict sent the case to review
	ActionAssigned = "assigned" // Detail: the assignee
	ActionApproved = "approved" // Detail: the reason code
	ActionRejected = "rejected" // Detail: the reason code
	ActionErased   = "erased"   // images and personal fields removed
	// A first decision under the four-eyes rule, waiting for a second
	// reviewer (Detail: the reason code).
	ActionApprovalProposed  = "approval_proposed"
	ActionRejectionProposed = "rejection_proposed"
)

// ReviewCase is one verification in (or once in) its organisation's manual
// review queue.
type ReviewCase struct {
	VerificationID string
	OrganisationID int64
	WorkflowID     string
	ClientID       string
	RequestID      string
	// State is ReviewOpen, ReviewApproved or ReviewRejected.
	State string
	// AutomatedDecision is the verdict the checks gave (review), and
	// AutomatedReasons its decision reasons: kept whatever the reviewer
	// decides.
	AutomatedDecision string
	AutomatedReasons  []string
	Assignee          string
	// Reason, Note, Reviewer and DecidedAt are the decision, once made.
	Reason    string
	Note      string
	Reviewer  string
	CreatedAt time.Time
	DecidedAt *time.Time
	// First is the four-eyes rule's first decision: while the case is
	// open, the one waiting for a second reviewer; once decided, the one
	// the deciding reviewer confirmed. Nil when there was none.
	First *FirstDecision
	// History is every action on the case, oldest first (filled by
	// ReviewCase, not by ListReviews).
	History []ReviewAction
}

// FirstDecision is a decision that needs a second, different reviewer
// (the workflow's four-eyes rule).
type FirstDecision struct {
	Approve  bool
	Reason   string
	Note     string
	Reviewer string
	At       time.Time
}

// ReviewAction is one line of a case's history. The history is
// append-only: the storage refuses to change or remove a line.
type ReviewAction struct {
	ID             int64
	VerificationID string
	Action         string
	// Actor is who acted: "reviewer (via client X)" for the API,
	// "admin:reviewer" for the admin CLI, "system" for the queueing.
	Actor     string
	Detail    string
	Note      string
	Address   string // the caller's address, when known
	CreatedAt time.Time
}

// ReviewFilter selects cases of ListReviews. The zero value lists the
// open cases, oldest first.
type ReviewFilter struct {
	// State: ReviewOpen (default), ReviewApproved, ReviewRejected or "all".
	State      string
	WorkflowID string
	// Assignee: cases assigned to this reviewer; "-" for unassigned ones.
	Assignee string
	// OlderThan: only cases queued at least this long ago.
	OlderThan time.Duration
	// Reason: only cases whose automated decision reasons include it.
	Reason string
	// NewestFirst sorts by queueing time, newest first (default oldest).
	NewestFirst bool
	Limit       int
	Offset      int
}

// ReviewDecision is a reviewer's approval or rejection.
type ReviewDecision struct {
	Approve bool
	Reason  string
	Note    string
	// Actor and Address go to the history; Reviewer is who decided, as
	// the case and the event show it.
	Reviewer string
	Actor    string
	Address  string
	// First records the decision as the case's first decision under the
	// four-eyes rule (replacing any other): the case stays open, the
	// verdict unchanged, no event.
	First bool
	// Seen is the reviewer of the first decision the decider saw waiting
	// on the case ("" when none). The update is conditional on it, so a
	// decision taken on a view of the case that another reviewer has
	// since changed loses with ErrChanged. A final decision with Seen set
	// confirms or overturns that first decision and needs a Reviewer other
	// than Seen (ErrSameReviewer).
	Seen string
}

// Review errors.
var (
	// ErrNotInReview: the verification exists but never went to review.
	ErrNotInReview = errors.New("store: verification is not in review")
	// ErrDecided: the case has a decision already (made before, or by
	// another reviewer a moment earlier).
	ErrDecided = errors.New("store: review case already decided")
	// ErrChanged: the case's waiting first decision is not the one the
	// decider saw (another reviewer decided first a moment earlier).
	ErrChanged = errors.New("store: review case changed")
	// ErrSameReviewer: the four-eyes rule's second decision was asked of
	// the reviewer who made the first.
	ErrSameReviewer = errors.New("store: the second decision needs another reviewer")
)

// Reviews is the manual review queue and the erasure of verifications. It
// is kept apart from Store so a backend can grow it on its own;
// server/sqlite.DB implements both. A backend that has it also queues, in
// the CompleteVerification transaction, every verification whose decision
// is review (one ActionQueued line with the automated reasons).
//
// Every method takes the organisation: a verification of another
// organisation is ErrNotFound, exactly as one that does not exist.
type Reviews interface {
	// StoredVerification returns a completed verification by idv_unique_id,
	// with its current Decision (the reviewer's, once decided).
	StoredVerification(ctx context.Context, orgID int64, id string) (Verification, error)
	// ReviewCase returns the case of a verification with its history;
	// ErrNotInReview when the verification never went to review.
	ReviewCase(ctx context.Context, orgID int64, id string) (ReviewCase, error)
	ListReviews(ctx context.Context, orgID int64, f ReviewFilter) ([]ReviewCase, error)
	// CountReviews returns the open cases and the queueing time of the
	// oldest (zero when none).
	CountReviews(ctx context.Context, orgID int64) (open int64, oldest time.Time, err error)
	// AssignReview sets an open case's assignee (empty: unassign);
	// ErrDecided when it is decided.
	AssignReview(ctx context.Context, orgID int64, id, assignee string, a ReviewAction) (ReviewCase, error)
	// DecideReview approves or rejects an open case in one transaction: a
	// conditional update of the open case (so of two reviewers deciding
	// at once exactly one wins and the other gets ErrDecided, or
	// ErrChanged when the winner's was a first decision), the
	// verification's current decision, the history line and the outbox
	// events, which events builds from the decided case and the stored
	// verification. With d.First it records the first decision only
	// (history and audit lines, nothing else).
	DecideReview(ctx context.Context, orgID int64, id string, d ReviewDecision, events func(ReviewCase, Verification) ([]Event, error)) (ReviewCase, error)
	// EraseVerification replaces the stored result by erase(v.Result),
	// forgets the file keys and marks the verification erased, with an
	// ActionErased history line, in one transaction. It returns the keys
	// the files were stored under (the caller deletes them) and whether
	// the verification was erased before (then nothing changes and keys
	// is empty).
	EraseVerification(ctx context.Context, orgID int64, id string, erase func(json.RawMessage) (json.RawMessage, error), a ReviewAction) (keys []string, already bool, err error)
}

// FirstValue is the decision as the first_decision column keeps it:
// "approve" or "reject".
func (d ReviewDecision) FirstValue() string {
	if d.Approve {
		return "approve"
	}
	return "reject"
}

// ChangedErr says what waits on an open case whose first decision is not
// the one a decider saw (ErrChanged).
func ChangedErr(c ReviewCase) error {
	if c.First == nil {
		return fmt.Errorf("%w: the first decision was replaced; reload the case", ErrChanged)
	}
	what := "rejection"
	if c.First.Approve {
		what = "approval"
	}
	return fmt.Errorf("%w: %s's %s now waits for a second reviewer; reload the case", ErrChanged, c.First.Reviewer, what)
}
