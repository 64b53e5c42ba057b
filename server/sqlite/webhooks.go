package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tambua/tambua/server/webhook"
)

var _ webhook.Store = (*DB)(nil)

func ts(t time.Time) string { return t.UTC().Format(stampLayout) }

func nullTS(s sql.NullString) *time.Time {
	if !s.Valid || s.String == "" {
		return nil
	}
	t := parseStamp(s.String)
	return &t
}

const webhookColumns = `id, organisation_id, type, name, description, url, method, ca_certificate, secret,
	headers, events, criteria, request_schema, response_schema, notify_email, status, failure_count,
	consecutive_failures, created_at, updated_at, last_triggered_at, activated_at`

func scanWebhook(s scanner) (webhook.Webhook, error) {
	var w webhook.Webhook
	var headers, events, criteria, reqSchema, respSchema, created, updated string
	var last, activated sql.NullString
	err := s.Scan(&w.ID, &w.OrganisationID, &w.Type, &w.Name, &w.Description, &w.URL, &w.Method, &w.CACertificate,
		&w.Secret, &headers, &events, &criteria, &reqSchema, &respSchema, &w.NotifyEmail, &w.Status, &w.FailureCount,
		&w.ConsecutiveFailures, &created, &updated, &last, &activated)
	if errors.Is(err, sql.ErrNoRows) {
		return w, webhook.ErrNotFound
	}
	if err != nil {
		return w, err
	}
	if err := json.Unmarshal([]byte(headers), &w.Headers); err != nil {
		return w, fmt.Errorf("sqlite: webhook %s headers: %w", w.ID, err)
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return w, fmt.Errorf("sqlite: webhook %s events: %w", w.ID, err)
	}
	if criteria != "" {
		w.Criteria = &webhook.Criteria{}
		if err := json.Unmarshal([]byte(criteria), w.Criteria); err != nil {
			return w, fmt.Errorf("sqlite: webhook %s criteria: %w", w.ID, err)
		}
	}
	if reqSchema != "" {
		w.RequestSchema = json.RawMessage(reqSchema)
	}
	if respSchema != "" {
		w.ResponseSchema = json.RawMessage(respSchema)
	}
	w.CreatedAt, w.UpdatedAt, w.LastTriggeredAt, w.ActivatedAt = parseStamp(created), parseStamp(updated), nullTS(last), nullTS(activated)
	return w, nil
}

func webhookJSON(w webhook.Webhook) (headers, events, criteria string, err error) {
	if w.Headers == nil {
		w.Headers = []webhook.Header{}
	}
	if w.Events == nil {
		w.Events = []string{}
	}
	h, err := json.Marshal(w.Headers)
	if err != nil {
		return "", "", "", err
	}
	e, err := json.Marshal(w.Events)
	if err != nil {
		return "", "", "", err
	}
	if w.Criteria != nil {
		c, err := json.Marshal(w.Criteria)
		if err != nil {
			return "", "", "", err
		}
		criteria = string(c)
	}
	return string(h), string(e), criteria, nil
}

// CreateWebhook stores a new webhook.
func (db *DB) CreateWebhook(ctx context.Context, w webhook.Webhook) error {
	headers, events, criteria, err := webhookJSON(w)
	if err != nil {
		return err
	}
	now := db.stamp()
	_, err = db.w.ExecContext(ctx, `INSERT INTO webhooks (id, organisation_id, type, name, description, url, method,
		ca_certificate, secret, headers, events, criteria, request_schema, response_schema, notify_email, status,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.OrganisationID, w.Type, w.Name, w.Description, w.URL, w.Method, w.CACertificate, w.Secret,
		headers, events, criteria, string(w.RequestSchema), string(w.ResponseSchema), w.NotifyEmail, w.Status, now, now)
	if isUnique(err) {
		return fmt.Errorf("sqlite: webhook %s: %w", w.ID, errors.New("already exists"))
	}
	if err != nil {
		return fmt.Errorf("sqlite: create webhook: %w", err)
	}
	return nil
}

// Webhook returns one webhook.
func (db *DB) Webhook(ctx context.Context, id string) (webhook.Webhook, error) {
	return scanWebhook(db.w.QueryRowContext(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ?", id))
}

// ListWebhooks returns an organisation's webhooks, oldest first.
func (db *DB) ListWebhooks(ctx context.Context, orgID int64) ([]webhook.Webhook, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE organisation_id = ? ORDER BY created_at, id", orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []webhook.Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// UpdateWebhook replaces the editable fields; type, status and counters
// stay as they are.
func (db *DB) UpdateWebhook(ctx context.Context, w webhook.Webhook) error {
	headers, events, criteria, err := webhookJSON(w)
	if err != nil {
		return err
	}
	res, err := db.w.ExecContext(ctx, `UPDATE webhooks SET name = ?, description = ?, url = ?, method = ?,
		ca_certificate = ?, secret = ?, headers = ?, events = ?, criteria = ?, request_schema = ?, response_schema = ?,
		notify_email = ?, updated_at = ? WHERE id = ?`,
		w.Name, w.Description, w.URL, w.Method, w.CACertificate, w.Secret, headers, events, criteria,
		string(w.RequestSchema), string(w.ResponseSchema), w.NotifyEmail, db.stamp(), w.ID)
	if err != nil {
		return fmt.Errorf("sqlite: update webhook: %w", err)
	}
	return oneRow(res)
}

func oneRow(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return webhook.ErrNotFound
	}
	return nil
}

// SetWebhookStatus changes the status; activation resets the consecutive
// failures so a resumed webhook gets a fresh allowance.
func (db *DB) SetWebhookStatus(ctx context.Context, id, status string) error {
	q := "UPDATE webhooks SET status = ?, updated_at = ? WHERE id = ?"
	if status == webhook.StatusActive {
		q = "UPDATE webhooks SET status = ?1, consecutive_failures = 0, updated_at = ?2, activated_at = COALESCE(activated_at, ?2) WHERE id = ?3"
	}
	res, err := db.w.ExecContext(ctx, q, status, db.stamp(), id)
	if err != nil {
		return fmt.Errorf("sqlite: webhook status: %w", err)
	}
	return oneRow(res)
}

// DeleteWebhook removes a webhook with its deliveries and log.
func (db *DB) DeleteWebhook(ctx context.Context, id string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{"DELETE FROM webhook_logs WHERE webhook_id = ?", "DELETE FROM webhook_deliveries WHERE webhook_id = ?"} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM webhooks WHERE id = ?", id)
		if err != nil {
			return err
		}
		return oneRow(res)
	})
}

// PendingEvents returns outbox events not yet handed to the dispatcher.
func (db *DB) PendingEvents(ctx context.Context, limit int) ([]webhook.OutboxEvent, error) {
	rows, err := db.w.QueryContext(ctx, `SELECT seq, event_id, event, organisation_id, data, created_at FROM outbox
		WHERE delivered_at IS NULL ORDER BY seq LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.OutboxEvent
	for rows.Next() {
		var e webhook.OutboxEvent
		var data, created string
		if err := rows.Scan(&e.Seq, &e.EventID, &e.Event, &e.OrganisationID, &data, &created); err != nil {
			return nil, err
		}
		e.Data, e.CreatedAt = json.RawMessage(data), parseStamp(created)
		out = append(out, e)
	}
	return out, rows.Err()
}

// FanOut stores an event's deliveries and marks the event handed over.
func (db *DB) FanOut(ctx context.Context, ev webhook.OutboxEvent, ds []webhook.Delivery) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		for _, d := range ds {
			target, err := targetJSON(d.Target)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, webhook_id, organisation_id, event_id,
				event, body, status, attempts, next_attempt_at, created_at, updated_at, target)
				VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?) ON CONFLICT (webhook_id, event_id) DO NOTHING`,
				d.ID, d.WebhookID, d.OrganisationID, d.EventID, d.Event, d.Body, d.Status, ts(d.NextAttemptAt),
				ts(d.CreatedAt), ts(d.UpdatedAt), target); err != nil {
				return fmt.Errorf("sqlite: fan out %s: %w", ev.EventID, err)
			}
		}
		_, err := tx.ExecContext(ctx, "UPDATE outbox SET delivered_at = ? WHERE seq = ?", db.stamp(), ev.Seq)
		return err
	})
}

const deliveryColumns = `id, webhook_id, organisation_id, event_id, event, body, status, attempts, next_attempt_at,
	last_code, last_error, created_at, updated_at, target`

// targetJSON is the stored form of a delivery's target; a zero target
// (not copied) is stored as the empty string.
func targetJSON(t webhook.Target) (string, error) {
	if t.URL == "" {
		return "", nil
	}
	if t.Headers == nil {
		t.Headers = []webhook.Header{}
	}
	b, err := json.Marshal(t)
	return string(b), err
}

func scanDelivery(s scanner) (webhook.Delivery, error) {
	var d webhook.Delivery
	var next, created, updated, target string
	err := s.Scan(&d.ID, &d.WebhookID, &d.OrganisationID, &d.EventID, &d.Event, &d.Body, &d.Status, &d.Attempts,
		&next, &d.LastCode, &d.LastError, &created, &updated, &target)
	if errors.Is(err, sql.ErrNoRows) {
		return d, webhook.ErrNotFound
	}
	if err != nil {
		return d, err
	}
	d.NextAttemptAt, d.CreatedAt, d.UpdatedAt = parseStamp(next), parseStamp(created), parseStamp(updated)
	if target != "" {
		if err := json.Unmarshal([]byte(target), &d.Target); err != nil {
			return d, fmt.Errorf("sqlite: delivery %s target: %w", d.ID, err)
		}
	}
	return d, nil
}

// ClaimDue leases due deliveries of active webhooks, at most c.Limit in
// all and, per webhook, as many as c.PerWebhook leaves beside c.Busy.
//
// It reads, per active webhook with room, only its earliest due rows
// (index webhook_deliveries_waiting), so a claim costs a few rows per
// webhook, not the whole backlog: the dispatcher claims whenever a
// delivery finishes.
func (db *DB) ClaimDue(ctx context.Context, c webhook.Claim) ([]webhook.Delivery, error) {
	if c.Limit <= 0 {
		return nil, nil
	}
	type cand struct {
		id, at, created string
	}
	var out []webhook.Delivery
	err := db.tx(ctx, func(tx *sql.Tx) error {
		out = nil
		hooks, err := queryStrings(ctx, tx, `SELECT w.id FROM webhooks w WHERE w.status = 'active' AND EXISTS (
			SELECT 1 FROM webhook_deliveries x WHERE x.webhook_id = w.id AND x.status IN ('pending', 'retrying')
			AND x.next_attempt_at <= ?1 AND (x.lease_until IS NULL OR x.lease_until <= ?1))`, ts(c.Now))
		if err != nil {
			return err
		}
		// Prepared once per claim: parsing SQL was most of a claim's cost.
		sel, err := tx.PrepareContext(ctx, `SELECT id, next_attempt_at, created_at FROM webhook_deliveries
				WHERE webhook_id = ?1 AND status IN ('pending', 'retrying') AND next_attempt_at <= ?2
				AND (lease_until IS NULL OR lease_until <= ?2)
				ORDER BY next_attempt_at, created_at LIMIT ?3`)
		if err != nil {
			return err
		}
		defer sel.Close()
		var cands []cand
		for _, h := range hooks {
			room := c.Limit
			if c.PerWebhook > 0 {
				room = min(room, c.PerWebhook-c.Busy[h])
			}
			if room <= 0 {
				continue
			}
			rows, err := sel.QueryContext(ctx, h, ts(c.Now), room)
			if err != nil {
				return err
			}
			for rows.Next() {
				var k cand
				if err := rows.Scan(&k.id, &k.at, &k.created); err != nil {
					rows.Close()
					return err
				}
				cands = append(cands, k)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		// Earliest due first across webhooks (stamps sort as text).
		sort.Slice(cands, func(i, j int) bool {
			if cands[i].at != cands[j].at {
				return cands[i].at < cands[j].at
			}
			return cands[i].created < cands[j].created
		})
		if len(cands) == 0 {
			return nil
		}
		upd, err := tx.PrepareContext(ctx, `UPDATE webhook_deliveries SET lease_until = ? WHERE id = ? RETURNING `+deliveryColumns)
		if err != nil {
			return err
		}
		defer upd.Close()
		for _, k := range cands[:min(len(cands), c.Limit)] {
			d, err := scanDelivery(upd.QueryRowContext(ctx, ts(c.LeaseUntil), k.id))
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return nil
	})
	return out, err
}

// queryStrings returns the first column of a query's rows.
func queryStrings(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// NextDue returns the earliest due time after now of an unleased waiting
// delivery of an active webhook.
func (db *DB) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	var at sql.NullString
	err := db.r.QueryRowContext(ctx, `SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
		WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at > ?1
		AND (d.lease_until IS NULL OR d.lease_until <= ?1) AND w.status = 'active'`, ts(now)).Scan(&at)
	if err != nil || !at.Valid {
		return time.Time{}, false, err
	}
	return parseStamp(at.String), true, nil
}

// ReleaseLeases frees every lease.
func (db *DB) ReleaseLeases(ctx context.Context) error {
	_, err := db.w.ExecContext(ctx, "UPDATE webhook_deliveries SET lease_until = NULL WHERE lease_until IS NOT NULL")
	return err
}

// ReleaseDeliveries frees the leases of the waiting deliveries ids
// (webhook.LeaseReleaser: a dispatcher shutting down hands them back).
func (db *DB) ReleaseDeliveries(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if _, err := db.w.ExecContext(ctx, "UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ? AND status IN ('pending', 'retrying')", id); err != nil {
			return err
		}
	}
	return nil
}

var _ webhook.LeaseReleaser = (*DB)(nil)

// RecordAttempt stores one attempt, the webhook's counters and the events
// it causes in one transaction.
func (db *DB) RecordAttempt(ctx context.Context, r webhook.AttemptRecord, events func(w webhook.Webhook) []webhook.OutboxEvent) (webhook.Recorded, error) {
	var rec webhook.Recorded
	d, l := r.Delivery, r.Log
	err := db.tx(ctx, func(tx *sql.Tx) error {
		rec = webhook.Recorded{}
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?,
			lease_until = NULL, last_code = ?, last_error = ?, updated_at = ? WHERE id = ?`,
			d.Status, d.Attempts, ts(d.NextAttemptAt), d.LastCode, d.LastError, ts(d.UpdatedAt), d.ID)
		if err != nil {
			return err
		}
		if err := oneRow(res); err != nil {
			return err // the webhook was deleted meanwhile
		}
		if err := insertLog(ctx, tx, l); err != nil {
			return err
		}
		switch d.Status {
		case webhook.DeliverySuccess:
			_, err = tx.ExecContext(ctx, "UPDATE webhooks SET consecutive_failures = 0, last_triggered_at = ? WHERE id = ?", ts(l.Timestamp), d.WebhookID)
		case webhook.DeliveryFailedPermanent:
			_, err = tx.ExecContext(ctx, `UPDATE webhooks SET failure_count = failure_count + 1,
				consecutive_failures = consecutive_failures + 1, last_triggered_at = ? WHERE id = ?`, ts(l.Timestamp), d.WebhookID)
		default:
			_, err = tx.ExecContext(ctx, "UPDATE webhooks SET last_triggered_at = ? WHERE id = ?", ts(l.Timestamp), d.WebhookID)
		}
		if err != nil {
			return err
		}
		w, err := scanWebhook(tx.QueryRowContext(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ?", d.WebhookID))
		if err != nil {
			return err
		}
		if d.Status == webhook.DeliveryFailedPermanent && w.ConsecutiveFailures >= webhook.AutoPauseAfter && w.Status == webhook.StatusActive {
			if _, err := tx.ExecContext(ctx, "UPDATE webhooks SET status = 'paused', updated_at = ? WHERE id = ?", ts(l.Timestamp), w.ID); err != nil {
				return err
			}
			w.Status, rec.Paused = webhook.StatusPaused, true
		}
		rec.Webhook = w
		if events == nil {
			return nil
		}
		for _, ev := range events(w) {
			// Stamped by the database clock, like every outbox event, so
			// it compares with activation times.
			ev.CreatedAt = parseStamp(db.stamp())
			if err := insertOutbox(ctx, tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	return rec, err
}

// insertOutbox writes one event in the caller's transaction.
func insertOutbox(ctx context.Context, tx *sql.Tx, ev webhook.OutboxEvent) error {
	data := string(ev.Data)
	if data == "" {
		data = "{}"
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO outbox (event_id, event, organisation_id, data, created_at) VALUES (?, ?, ?, ?, ?)",
		ev.EventID, ev.Event, ev.OrganisationID, data, ts(ev.CreatedAt))
	return err
}

func insertLog(ctx context.Context, tx interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, l webhook.LogEntry) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO webhook_logs (webhook_id, delivery_id, event_id, event, created_at, status,
		attempt, response_code, response_time_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.WebhookID, l.DeliveryID, l.EventID, l.Event, ts(l.Timestamp), l.Status, l.Attempt, l.ResponseCode, l.ResponseTimeMS, l.Error)
	return err
}

// AppendLog adds a log line outside a queued delivery.
func (db *DB) AppendLog(ctx context.Context, l webhook.LogEntry) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := insertLog(ctx, tx, l); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE webhooks SET last_triggered_at = ? WHERE id = ?", ts(l.Timestamp), l.WebhookID)
		return err
	})
}

// Logs returns a webhook's log lines matching f, newest first.
func (db *DB) Logs(ctx context.Context, webhookID string, f webhook.LogFilter) ([]webhook.LogEntry, error) {
	q := []string{"webhook_id = ?"}
	args := []any{webhookID}
	if !f.From.IsZero() {
		q, args = append(q, "created_at >= ?"), append(args, ts(f.From))
	}
	if !f.To.IsZero() {
		q, args = append(q, "created_at < ?"), append(args, ts(f.To))
	}
	if f.Status != "" {
		q, args = append(q, "status = ?"), append(args, f.Status)
	}
	if f.Event != "" {
		q, args = append(q, "event = ?"), append(args, f.Event)
	}
	limit := f.Limit
	if limit <= 0 || limit > 100000 {
		limit = 100000
	}
	args = append(args, limit)
	rows, err := db.r.QueryContext(ctx, `SELECT id, webhook_id, delivery_id, event_id, event, created_at, status, attempt,
		response_code, response_time_ms, error FROM webhook_logs WHERE `+strings.Join(q, " AND ")+` ORDER BY created_at DESC, id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []webhook.LogEntry{}
	for rows.Next() {
		var l webhook.LogEntry
		var at string
		if err := rows.Scan(&l.ID, &l.WebhookID, &l.DeliveryID, &l.EventID, &l.Event, &at, &l.Status, &l.Attempt,
			&l.ResponseCode, &l.ResponseTimeMS, &l.Error); err != nil {
			return nil, err
		}
		l.Timestamp = parseStamp(at)
		out = append(out, l)
	}
	return out, rows.Err()
}

// Stats summarises a webhook's log.
func (db *DB) Stats(ctx context.Context, webhookID string) (webhook.Stats, error) {
	var s webhook.Stats
	var avg sql.NullFloat64
	var lastOK, lastBad sql.NullString
	err := db.r.QueryRowContext(ctx, `SELECT COUNT(*),
		COALESCE(SUM(status = 'Success'), 0), COALESCE(SUM(status <> 'Success'), 0), AVG(response_time_ms),
		MAX(CASE WHEN status = 'Success' THEN created_at END), MAX(CASE WHEN status <> 'Success' THEN created_at END)
		FROM webhook_logs WHERE webhook_id = ?`, webhookID).Scan(&s.Total, &s.Successful, &s.Failed, &avg, &lastOK, &lastBad)
	if err != nil {
		return s, err
	}
	s.AvgResponseTimeMS = avg.Float64
	if s.Total > 0 {
		s.SuccessRate = float64(s.Successful) / float64(s.Total)
	}
	s.LastSuccess, s.LastFailure = nullTS(lastOK), nullTS(lastBad)
	return s, nil
}

// Delivery returns one delivery.
func (db *DB) Delivery(ctx context.Context, id string) (webhook.Delivery, error) {
	return scanDelivery(db.w.QueryRowContext(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries WHERE id = ?", id))
}

// Deliveries lists a webhook's deliveries, newest first.
func (db *DB) Deliveries(ctx context.Context, webhookID string, limit int) ([]webhook.Delivery, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := db.r.QueryContext(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at DESC, id LIMIT ?", webhookID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []webhook.Delivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
