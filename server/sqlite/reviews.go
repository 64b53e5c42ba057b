package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tambua/tambua/server/store"
)

var _ store.Reviews = (*DB)(nil)

// queueReview opens the review case of a verification completed with the
// decision review, inside CompleteVerification's transaction.
func queueReview(ctx context.Context, tx *sql.Tx, v store.Verification, now string) error {
	var res struct {
		Reasons []string `json:"decision_reasons"`
	}
	_ = json.Unmarshal(v.Result, &res) // a result without reasons queues with none
	reasons, err := json.Marshal(nonNil(res.Reasons))
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO review_cases(verification_id, organisation_id, workflow_id, state, automated_decision, automated_reasons, created_at)
		VALUES (?, ?, ?, 'open', ?, ?, ?)`, v.ID, v.OrganisationID, v.WorkflowID, v.Decision, string(reasons), now); err != nil {
		return fmt.Errorf("sqlite: queue review: %w", err)
	}
	return insertAction(ctx, tx, v.OrganisationID, store.ReviewAction{VerificationID: v.ID, Action: store.ActionQueued,
		Actor: "system", Detail: strings.Join(res.Reasons, ",")}, now)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func insertAction(ctx context.Context, tx *sql.Tx, orgID int64, a store.ReviewAction, now string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO review_actions(verification_id, organisation_id, action, actor, detail, note, address, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, a.VerificationID, orgID, a.Action, a.Actor, a.Detail, a.Note, a.Address, now)
	if err != nil {
		return fmt.Errorf("sqlite: review history: %w", err)
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

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// StoredVerification returns a completed verification of the organisation.
func (db *DB) StoredVerification(ctx context.Context, orgID int64, id string) (store.Verification, error) {
	return storedVerification(ctx, db.r, orgID, id)
}

func storedVerification(ctx context.Context, q queryer, orgID int64, id string) (store.Verification, error) {
	var v store.Verification
	var result, files, created string
	var completed, erased sql.NullString
	err := q.QueryRowContext(ctx, `SELECT id, client_id, organisation_id, workflow_id, request_id, fingerprint, units, decision, result, files, created_at, completed_at, erased_at
		FROM verifications WHERE id = ? AND organisation_id = ? AND state = 'done'`, id, orgID).
		Scan(&v.ID, &v.ClientID, &v.OrganisationID, &v.WorkflowID, &v.RequestID, &v.Fingerprint, &v.Units, &v.Decision, &result, &files, &created, &completed, &erased)
	if errors.Is(err, sql.ErrNoRows) {
		return v, store.ErrNotFound
	}
	if err != nil {
		return v, err
	}
	v.Result = json.RawMessage(result)
	if err := json.Unmarshal([]byte(files), &v.Files); err != nil {
		return v, fmt.Errorf("sqlite: verification %s files: %w", v.ID, err)
	}
	v.CreatedAt = parseStamp(created)
	v.CompletedAt = parseStamp(completed.String)
	if erased.Valid {
		t := parseStamp(erased.String)
		v.ErasedAt = &t
	}
	return v, nil
}

const caseColumns = `c.verification_id, c.organisation_id, c.workflow_id, v.client_id, v.request_id, c.state, c.automated_decision,
	c.automated_reasons, c.assignee, c.reason, c.note, c.reviewer, c.created_at, c.decided_at,
	c.first_decision, c.first_reason, c.first_note, c.first_reviewer, c.first_at`

const caseFrom = ` FROM review_cases c JOIN verifications v ON v.id = c.verification_id `

func scanCase(s scanner) (store.ReviewCase, error) {
	var c store.ReviewCase
	var reasons, created string
	var decided, firstAt sql.NullString
	var first store.FirstDecision
	var firstDecision string
	err := s.Scan(&c.VerificationID, &c.OrganisationID, &c.WorkflowID, &c.ClientID, &c.RequestID, &c.State, &c.AutomatedDecision,
		&reasons, &c.Assignee, &c.Reason, &c.Note, &c.Reviewer, &created, &decided,
		&firstDecision, &first.Reason, &first.Note, &first.Reviewer, &firstAt)
	if errors.Is(err, sql.ErrNoRows) {
		return c, store.ErrNotFound
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(reasons), &c.AutomatedReasons); err != nil {
		return c, fmt.Errorf("sqlite: review %s reasons: %w", c.VerificationID, err)
	}
	c.CreatedAt = parseStamp(created)
	if decided.Valid {
		t := parseStamp(decided.String)
		c.DecidedAt = &t
	}
	if firstDecision != "" {
		first.Approve, first.At = firstDecision == "approve", parseStamp(firstAt.String)
		c.First = &first
	}
	return c, nil
}

// reviewCase reads a case; a verification that exists without one is
// ErrNotInReview.
func reviewCase(ctx context.Context, q queryer, orgID int64, id string) (store.ReviewCase, error) {
	c, err := scanCase(q.QueryRowContext(ctx, "SELECT "+caseColumns+caseFrom+"WHERE c.verification_id = ? AND c.organisation_id = ?", id, orgID))
	if !errors.Is(err, store.ErrNotFound) {
		return c, err
	}
	var n int
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM verifications WHERE id = ? AND organisation_id = ? AND state = 'done'", id, orgID).Scan(&n); err != nil {
		return c, err
	}
	if n > 0 {
		return c, store.ErrNotInReview
	}
	return c, store.ErrNotFound
}

// ReviewCase returns a case with its history.
func (db *DB) ReviewCase(ctx context.Context, orgID int64, id string) (store.ReviewCase, error) {
	c, err := reviewCase(ctx, db.r, orgID, id)
	if err != nil {
		return c, err
	}
	c.History, err = db.history(ctx, orgID, id)
	return c, err
}

func (db *DB) history(ctx context.Context, orgID int64, id string) ([]store.ReviewAction, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, verification_id, action, actor, detail, note, address, created_at
		FROM review_actions WHERE verification_id = ? AND organisation_id = ? ORDER BY id`, id, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.ReviewAction
	for rows.Next() {
		var a store.ReviewAction
		var created string
		if err := rows.Scan(&a.ID, &a.VerificationID, &a.Action, &a.Actor, &a.Detail, &a.Note, &a.Address, &created); err != nil {
			return nil, err
		}
		a.CreatedAt = parseStamp(created)
		out = append(out, a)
	}
	return out, rows.Err()
}

// ListReviews lists an organisation's cases, oldest first.
func (db *DB) ListReviews(ctx context.Context, orgID int64, f store.ReviewFilter) ([]store.ReviewCase, error) {
	where := []string{"c.organisation_id = ?"}
	args := []any{orgID}
	switch f.State {
	case "":
		where, args = append(where, "c.state = ?"), append(args, store.ReviewOpen)
	case "all":
	default:
		where, args = append(where, "c.state = ?"), append(args, f.State)
	}
	if f.WorkflowID != "" {
		where, args = append(where, "c.workflow_id = ?"), append(args, f.WorkflowID)
	}
	switch f.Assignee {
	case "":
	case "-":
		where = append(where, "c.assignee = ''")
	default:
		where, args = append(where, "c.assignee = ?"), append(args, f.Assignee)
	}
	if f.OlderThan > 0 {
		where, args = append(where, "c.created_at <= ?"), append(args, db.now().Add(-f.OlderThan).UTC().Format(stampLayout))
	}
	if f.Reason != "" {
		// The reasons are a JSON array of codes: match one whole element.
		where, args = append(where, "instr(c.automated_reasons, ?) > 0"), append(args, `"`+f.Reason+`"`)
	}
	limit := f.Limit
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	order := " ORDER BY c.created_at, c.verification_id"
	if f.NewestFirst {
		order = " ORDER BY c.created_at DESC, c.verification_id DESC"
	}
	rows, err := db.r.QueryContext(ctx, "SELECT "+caseColumns+caseFrom+"WHERE "+strings.Join(where, " AND ")+
		order+" LIMIT ? OFFSET ?", append(args, limit, max(f.Offset, 0))...)
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
	var oldest sql.NullString
	err := db.r.QueryRowContext(ctx, "SELECT COUNT(*), MIN(created_at) FROM review_cases WHERE organisation_id = ? AND state = 'open'", orgID).Scan(&n, &oldest)
	if err != nil || !oldest.Valid {
		return n, time.Time{}, err
	}
	return n, parseStamp(oldest.String), nil
}

// decidedErr says who decided a case that is no longer open.
func decidedErr(c store.ReviewCase) error {
	at := ""
	if c.DecidedAt != nil {
		at = " at " + c.DecidedAt.UTC().Format(time.RFC3339)
	}
	return fmt.Errorf("%w: %s by %s%s", store.ErrDecided, c.State, c.Reviewer, at)
}

// staleErr says why a decision's conditional update found no row: the
// case was decided, or its first decision is not the one the decider saw.
func staleErr(c store.ReviewCase) error {
	if c.State != store.ReviewOpen {
		return decidedErr(c)
	}
	return store.ChangedErr(c)
}

// AssignReview sets the assignee of an open case.
func (db *DB) AssignReview(ctx context.Context, orgID int64, id, assignee string, a store.ReviewAction) (store.ReviewCase, error) {
	var c store.ReviewCase
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if c, err = reviewCase(ctx, tx, orgID, id); err != nil {
			return err
		}
		if c.State != store.ReviewOpen {
			return decidedErr(c)
		}
		now := db.stamp()
		if _, err := tx.ExecContext(ctx, "UPDATE review_cases SET assignee = ? WHERE verification_id = ? AND state = 'open'", assignee, id); err != nil {
			return err
		}
		a.VerificationID, a.Action, a.Detail = id, store.ActionAssigned, assignee
		if err := insertAction(ctx, tx, orgID, a, now); err != nil {
			return err
		}
		c.Assignee = assignee
		return nil
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
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.stamp()
		// The conditions state = 'open' and first_reviewer = Seen are what
		// make one of two concurrent decisions win: the second finds no
		// row in the state its reviewer saw.
		var res sql.Result
		var err error
		if d.First {
			res, err = tx.ExecContext(ctx, `UPDATE review_cases SET first_decision = ?, first_reason = ?, first_note = ?, first_reviewer = ?, first_at = ?
				WHERE verification_id = ? AND organisation_id = ? AND state = 'open' AND first_reviewer = ?`,
				d.FirstValue(), d.Reason, d.Note, d.Reviewer, now, id, orgID, d.Seen)
		} else {
			res, err = tx.ExecContext(ctx, `UPDATE review_cases SET state = ?, reason = ?, note = ?, reviewer = ?, decided_at = ?
				WHERE verification_id = ? AND organisation_id = ? AND state = 'open' AND first_reviewer = ?`, state, d.Reason, d.Note, d.Reviewer, now, id, orgID, d.Seen)
		}
		if err != nil {
			return err
		}
		if c, err = reviewCase(ctx, tx, orgID, id); err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return staleErr(c)
		}
		if err := insertAction(ctx, tx, orgID, store.ReviewAction{VerificationID: id, Action: action, Actor: d.Actor,
			Detail: d.Reason, Note: d.Note, Address: d.Address}, now); err != nil {
			return err
		}
		if d.First {
			return nil
		}
		if _, err := tx.ExecContext(ctx, "UPDATE verifications SET decision = ? WHERE id = ?", verdict, id); err != nil {
			return err
		}
		if events == nil {
			return nil
		}
		v, err := storedVerification(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		evs, err := events(c, v)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if err := insertEvent(ctx, tx, e, now); err != nil {
				return err
			}
		}
		return nil
	})
	return c, err
}

// EraseVerification replaces the stored result and forgets the files
// (store.Reviews).
func (db *DB) EraseVerification(ctx context.Context, orgID int64, id string, erase func(json.RawMessage) (json.RawMessage, error), a store.ReviewAction) ([]string, bool, error) {
	var keys []string
	already := false
	err := db.tx(ctx, func(tx *sql.Tx) error {
		v, err := storedVerification(ctx, tx, orgID, id)
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
		now := db.stamp()
		if _, err := tx.ExecContext(ctx, "UPDATE verifications SET result = ?, files = '{}', erased_at = ? WHERE id = ?", string(result), now, id); err != nil {
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
	return keys, already, err
}
