package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tambua/tambua/server/store"
)

var _ store.Reviews = (*DB)(nil)

// queueReview opens the review case of a verification completed with the
// decision review, inside CompleteVerification's transaction.
func queueReview(ctx context.Context, tx pgx.Tx, v store.Verification, now time.Time) error {
	var res struct {
		Reasons []string `json:"decision_reasons"`
	}
	_ = json.Unmarshal(v.Result, &res) // a result without reasons queues with none
	if res.Reasons == nil {
		res.Reasons = []string{}
	}
	reasons, err := json.Marshal(res.Reasons)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO review_cases(verification_id, organisation_id, workflow_id, state, automated_decision, automated_reasons, created_at)
		VALUES ($1, $2, $3, 'open', $4, $5, $6)`, v.ID, v.OrganisationID, v.WorkflowID, v.Decision, string(reasons), now); err != nil {
		return fmt.Errorf("postgres: queue review: %w", err)
	}
	return insertAction(ctx, tx, v.OrganisationID, store.ReviewAction{VerificationID: v.ID, Action: store.ActionQueued,
		Actor: "system", Detail: strings.Join(res.Reasons, ",")}, now)
}

// insertAction appends a history line and, for a person's action, the
// audit line, in the caller's transaction.
func insertAction(ctx context.Context, tx pgx.Tx, orgID int64, a store.ReviewAction, now time.Time) error {
	if _, err := tx.Exec(ctx, `INSERT INTO review_actions(verification_id, organisation_id, action, actor, detail, note, address, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, a.VerificationID, orgID, a.Action, a.Actor, a.Detail, a.Note, a.Address, now); err != nil {
		return fmt.Errorf("postgres: review history: %w", err)
	}
	if a.Action == store.ActionQueued {
		return nil // the system's doing, not a person's: history only
	}
	action := "review." + a.Action
	if a.Action == store.ActionErased {
		action = "verification.erased"
	}
	return insertAudit(ctx, tx, store.AuditEntry{OrganisationID: orgID, Actor: a.Actor, Action: action, ObjectType: "verification",
		ObjectID: a.VerificationID, Detail: a.Detail, Address: a.Address}, now)
}

// querier is the pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// StoredVerification returns a completed verification of the organisation.
func (db *DB) StoredVerification(ctx context.Context, orgID int64, id string) (store.Verification, error) {
	return storedVerification(ctx, db.pool, orgID, id, false)
}

// storedVerification reads a completed verification; forUpdate locks its
// row for the rest of the transaction.
func storedVerification(ctx context.Context, q querier, orgID int64, id string, forUpdate bool) (store.Verification, error) {
	var v store.Verification
	var result, files string
	var completed *time.Time
	query := `SELECT id, client_id, organisation_id, workflow_id, request_id, fingerprint, units, decision, result, files, created_at, completed_at, erased_at
		FROM verifications WHERE id = $1 AND organisation_id = $2 AND state = 'done'`
	if forUpdate {
		query += " FOR UPDATE"
	}
	err := q.QueryRow(ctx, query, id, orgID).
		Scan(&v.ID, &v.ClientID, &v.OrganisationID, &v.WorkflowID, &v.RequestID, &v.Fingerprint, &v.Units, &v.Decision, &result, &files, &v.CreatedAt, &completed, &v.ErasedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return v, store.ErrNotFound
	}
	if err != nil {
		return v, err
	}
	v.Result = json.RawMessage(result)
	if err := json.Unmarshal([]byte(files), &v.Files); err != nil {
		return v, fmt.Errorf("postgres: verification %s files: %w", v.ID, err)
	}
	if completed != nil {
		v.CompletedAt = *completed
	}
	return v, nil
}

const caseColumns = `c.verification_id, c.organisation_id, c.workflow_id, v.client_id, v.request_id, c.state, c.automated_decision,
	c.automated_reasons, c.assignee, c.reason, c.note, c.reviewer, c.created_at, c.decided_at,
	c.first_decision, c.first_reason, c.first_note, c.first_reviewer, c.first_at`

const caseFrom = ` FROM review_cases c JOIN verifications v ON v.id = c.verification_id `

func scanCase(r pgx.Row) (store.ReviewCase, error) {
	var c store.ReviewCase
	var reasons, firstDecision string
	var first store.FirstDecision
	var firstAt *time.Time
	err := r.Scan(&c.VerificationID, &c.OrganisationID, &c.WorkflowID, &c.ClientID, &c.RequestID, &c.State, &c.AutomatedDecision,
		&reasons, &c.Assignee, &c.Reason, &c.Note, &c.Reviewer, &c.CreatedAt, &c.DecidedAt,
		&firstDecision, &first.Reason, &first.Note, &first.Reviewer, &firstAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, store.ErrNotFound
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(reasons), &c.AutomatedReasons); err != nil {
		return c, fmt.Errorf("postgres: review %s reasons: %w", c.VerificationID, err)
	}
	if firstDecision != "" {
		first.Approve = firstDecision == "approve"
		if firstAt != nil {
			first.At = *firstAt
		}
		c.First = &first
	}
	return c, nil
}

// reviewCase reads a case; a verification that exists without one is
// ErrNotInReview.
func reviewCase(ctx context.Context, q querier, orgID int64, id string) (store.ReviewCase, error) {
	c, err := scanCase(q.QueryRow(ctx, "SELECT "+caseColumns+caseFrom+"WHERE c.verification_id = $1 AND c.organisation_id = $2", id, orgID))
	if !errors.Is(err, store.ErrNotFound) {
		return c, err
	}
	var exists bool
	if err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM verifications WHERE id = $1 AND organisation_id = $2 AND state = 'done')",
		id, orgID).Scan(&exists); err != nil {
		return c, err
	}
	if exists {
		return c, store.ErrNotInReview
	}
	return c, store.ErrNotFound
}

// ReviewCase returns a case with its history.
func (db *DB) ReviewCase(ctx context.Context, orgID int64, id string) (store.ReviewCase, error) {
	c, err := reviewCase(ctx, db.pool, orgID, id)
	if err != nil {
		return c, err
	}
	rows, err := db.pool.Query(ctx, `SELECT id, verification_id, action, actor, detail, note, address, created_at
		FROM review_actions WHERE verification_id = $1 AND organisation_id = $2 ORDER BY id`, id, orgID)
	if err != nil {
		return c, err
	}
	c.History, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ReviewAction, error) {
		var a store.ReviewAction
		err := r.Scan(&a.ID, &a.VerificationID, &a.Action, &a.Actor, &a.Detail, &a.Note, &a.Address, &a.CreatedAt)
		return a, err
	})
	return c, err
}

// ListReviews lists an organisation's cases, oldest first.
func (db *DB) ListReviews(ctx context.Context, orgID int64, f store.ReviewFilter) ([]store.ReviewCase, error) {
	where := []string{"c.organisation_id = $1"}
	args := []any{orgID}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	switch f.State {
	case "":
		add("c.state = $?", store.ReviewOpen)
	case "all":
	default:
		add("c.state = $?", f.State)
	}
	if f.WorkflowID != "" {
		add("c.workflow_id = $?", f.WorkflowID)
	}
	switch f.Assignee {
	case "":
	case "-":
		where = append(where, "c.assignee = ''")
	default:
		add("c.assignee = $?", f.Assignee)
	}
	if f.OlderThan > 0 {
		add("c.created_at <= $?", db.now().Add(-f.OlderThan))
	}
	if f.Reason != "" {
		// The reasons are a JSON array of codes: match one whole element.
		add("strpos(c.automated_reasons, $?) > 0", `"`+f.Reason+`"`)
	}
	limit := f.Limit
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	order := " ORDER BY c.created_at, c.verification_id"
	if f.NewestFirst {
		order = " ORDER BY c.created_at DESC, c.verification_id DESC"
	}
	args = append(args, limit, max(f.Offset, 0))
	rows, err := db.pool.Query(ctx, "SELECT "+caseColumns+caseFrom+"WHERE "+strings.Join(where, " AND ")+
		order+" LIMIT $"+strconv.Itoa(len(args)-1)+" OFFSET $"+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.ReviewCase
	for rows.Next() {
		c, err := scanCase(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CountReviews returns the open cases and when the oldest was queued.
func (db *DB) CountReviews(ctx context.Context, orgID int64) (int64, time.Time, error) {
	var n int64
	var oldest *time.Time
	err := db.pool.QueryRow(ctx, "SELECT COUNT(*), MIN(created_at) FROM review_cases WHERE organisation_id = $1 AND state = 'open'", orgID).Scan(&n, &oldest)
	if err != nil || oldest == nil {
		return n, time.Time{}, err
	}
	return n, *oldest, nil
}

// decidedErr says who decided a case that is no longer open.
func decidedErr(c store.ReviewCase) error {
	at := ""
	if c.DecidedAt != nil {
		at = " at " + c.DecidedAt.UTC().Format(time.RFC3339)
	}
	return fmt.Errorf("%w: %s by %s%s", store.ErrDecided, c.State, c.Reviewer, at)
}

// AssignReview sets the assignee of an open case.
func (db *DB) AssignReview(ctx context.Context, orgID int64, id, assignee string, a store.ReviewAction) (store.ReviewCase, error) {
	var c store.ReviewCase
	err := db.tx(ctx, func(tx pgx.Tx) error {
		now := db.now()
		// The conditional update locks the open row, so an assignment and
		// a decision of the same case queue on it, as two decisions do.
		tag, err := tx.Exec(ctx, "UPDATE review_cases SET assignee = $1 WHERE verification_id = $2 AND organisation_id = $3 AND state = 'open'",
			assignee, id, orgID)
		if err != nil {
			return err
		}
		if c, err = reviewCase(ctx, tx, orgID, id); err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return decidedErr(c)
		}
		a.VerificationID, a.Action, a.Detail = id, store.ActionAssigned, assignee
		return insertAction(ctx, tx, orgID, a, now)
	})
	return c, err
}

// DecideReview approves or rejects an open case, or records the first
// decision of a four-eyes case (store.Reviews).
func (db *DB) DecideReview(ctx context.Context, orgID int64, id string, d store.ReviewDecision, events func(store.ReviewCase, store.Verification) ([]store.Event, error)) (store.ReviewCase, error) {
	state, action, verdict := store.ReviewRejected, store.ActionRejected, "reject"
	if d.Approve {
		state, action, verdict = store.ReviewApproved, store.ActionApproved, "accept"
	}
	if d.First {
		action = store.ActionRejectionProposed
		if d.Approve {
			action = store.ActionApprovalProposed
		}
	}
	var c store.ReviewCase
	if !d.First && d.Seen != "" && d.Seen == d.Reviewer {
		return c, store.ErrSameReviewer
	}
	err := db.tx(ctx, func(tx pgx.Tx) error {
		now := db.now()
		// The conditions state = 'open' and first_reviewer = Seen are what
		// make one of two concurrent decisions win: the second waits for
		// the first's row lock, then re-reads the row under READ
		// COMMITTED, finds it changed and updates nothing.
		var tag pgconn.CommandTag
		var err error
		if d.First {
			tag, err = tx.Exec(ctx, `UPDATE review_cases SET first_decision = $1, first_reason = $2, first_note = $3, first_reviewer = $4, first_at = $5
				WHERE verification_id = $6 AND organisation_id = $7 AND state = 'open' AND first_reviewer = $8`,
				d.FirstValue(), d.Reason, d.Note, d.Reviewer, now, id, orgID, d.Seen)
		} else {
			tag, err = tx.Exec(ctx, `UPDATE review_cases SET state = $1, reason = $2, note = $3, reviewer = $4, decided_at = $5
				WHERE verification_id = $6 AND organisation_id = $7 AND state = 'open' AND first_reviewer = $8`,
				state, d.Reason, d.Note, d.Reviewer, now, id, orgID, d.Seen)
		}
		if err != nil {
			return err
		}
		if c, err = reviewCase(ctx, tx, orgID, id); err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			if c.State != store.ReviewOpen {
				return decidedErr(c)
			}
			return store.ChangedErr(c)
		}
		if err := insertAction(ctx, tx, orgID, store.ReviewAction{VerificationID: id, Action: action, Actor: d.Actor,
			Detail: d.Reason, Note: d.Note, Address: d.Address}, now); err != nil {
			return err
		}
		if d.First {
			return nil
		}
		if _, err := tx.Exec(ctx, "UPDATE verifications SET decision = $1 WHERE id = $2", verdict, id); err != nil {
			return err
		}
		if events == nil {
			return nil
		}
		v, err := storedVerification(ctx, tx, orgID, id, false)
		if err != nil {
			return err
		}
		evs, err := events(c, v)
		if err != nil {
			return err
		}
		return insertEvents(ctx, tx, now, evs)
	})
	return c, err
}

// EraseVerification replaces the stored result and forgets the files
// (store.Reviews).
func (db *DB) EraseVerification(ctx context.Context, orgID int64, id string, erase func(json.RawMessage) (json.RawMessage, error), a store.ReviewAction) ([]string, bool, error) {
	var keys []string
	already := false
	err := db.tx(ctx, func(tx pgx.Tx) error {
		// FOR UPDATE: two erasures of one verification (an API call and
		// the retention sweep of another replica) queue here, and the
		// second sees erased_at set.
		v, err := storedVerification(ctx, tx, orgID, id, true)
		if err != nil {
			return err
		}
		if v.ErasedAt != nil {
			already = true
			return nil
		}
		result, err := erase(v.Result)
		if err != nil {
			return err
		}
		now := db.now()
		if _, err := tx.Exec(ctx, "UPDATE verifications SET result = $1, files = '{}', erased_at = $2 WHERE id = $3", string(result), now, id); err != nil {
			return err
		}
		a.VerificationID, a.Action = id, store.ActionErased
		if err := insertAction(ctx, tx, orgID, a, now); err != nil {
			return err
		}
		for _, k := range v.Files {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return keys, already, nil
}
