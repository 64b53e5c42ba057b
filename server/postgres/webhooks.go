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
	"github.com/tambua/tambua/server/webhook"
)

// The webhook store, as server/sqlite/webhooks.go, for replicas sharing
// one database: due deliveries are leased with FOR UPDATE SKIP LOCKED,
// so two dispatchers never take the same row, and a lease left by a dead
// replica lapses at lease_until.

var _ webhook.Store = (*DB)(nil)

const webhookColumns = `id, organisation_id, type, name, description, url, method, ca_certificate, secret,
	headers, events, criteria, request_schema, response_schema, notify_email, status, failure_count,
	consecutive_failures, created_at, updated_at, last_triggered_at, activated_at`

func scanWebhook(r pgx.Row) (webhook.Webhook, error) {
	var w webhook.Webhook
	var headers, events, criteria, reqSchema, respSchema string
	err := r.Scan(&w.ID, &w.OrganisationID, &w.Type, &w.Name, &w.Description, &w.URL, &w.Method, &w.CACertificate,
		&w.Secret, &headers, &events, &criteria, &reqSchema, &respSchema, &w.NotifyEmail, &w.Status, &w.FailureCount,
		&w.ConsecutiveFailures, &w.CreatedAt, &w.UpdatedAt, &w.LastTriggeredAt, &w.ActivatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return w, webhook.ErrNotFound
	}
	if err != nil {
		return w, err
	}
	if err := json.Unmarshal([]byte(headers), &w.Headers); err != nil {
		return w, fmt.Errorf("postgres: webhook %s headers: %w", w.ID, err)
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return w, fmt.Errorf("postgres: webhook %s events: %w", w.ID, err)
	}
	if criteria != "" {
		w.Criteria = &webhook.Criteria{}
		if err := json.Unmarshal([]byte(criteria), w.Criteria); err != nil {
			return w, fmt.Errorf("postgres: webhook %s criteria: %w", w.ID, err)
		}
	}
	if reqSchema != "" {
		w.RequestSchema = json.RawMessage(reqSchema)
	}
	if respSchema != "" {
		w.ResponseSchema = json.RawMessage(respSchema)
	}
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
	now := db.now()
	_, err = db.pool.Exec(ctx, `INSERT INTO webhooks (id, organisation_id, type, name, description, url, method,
		ca_certificate, secret, headers, events, criteria, request_schema, response_schema, notify_email, status,
		created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)`,
		w.ID, w.OrganisationID, w.Type, w.Name, w.Description, w.URL, w.Method, w.CACertificate, w.Secret,
		headers, events, criteria, string(w.RequestSchema), string(w.ResponseSchema), w.NotifyEmail, w.Status, now)
	if pgCode(err) == codeUnique {
		return fmt.Errorf("postgres: webhook %s: %w", w.ID, store.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("postgres: create webhook: %w", err)
	}
	return nil
}

// Webhook returns one webhook.
func (db *DB) Webhook(ctx context.Context, id string) (webhook.Webhook, error) {
	return scanWebhook(db.pool.QueryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = $1", id))
}

// ListWebhooks returns an organisation's webhooks, oldest first.
func (db *DB) ListWebhooks(ctx context.Context, orgID int64) ([]webhook.Webhook, error) {
	rows, err := db.pool.Query(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE organisation_id = $1 ORDER BY created_at, id", orgID)
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

func oneRow(tag pgconn.CommandTag, err error) error {
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return webhook.ErrNotFound
	}
	return nil
}

// UpdateWebhook replaces the editable fields; type, status and counters
// stay as they are.
func (db *DB) UpdateWebhook(ctx context.Context, w webhook.Webhook) error {
	headers, events, criteria, err := webhookJSON(w)
	if err != nil {
		return err
	}
	return oneRow(db.pool.Exec(ctx, `UPDATE webhooks SET name = $1, description = $2, url = $3, method = $4,
		ca_certificate = $5, secret = $6, headers = $7, events = $8, criteria = $9, request_schema = $10, response_schema = $11,
		notify_email = $12, updated_at = $13 WHERE id = $14`,
		w.Name, w.Description, w.URL, w.Method, w.CACertificate, w.Secret, headers, events, criteria,
		string(w.RequestSchema), string(w.ResponseSchema), w.NotifyEmail, db.now(), w.ID))
}

// SetWebhookStatus changes the status; activation resets the consecutive
// failures so a resumed webhook gets a fresh allowance.
func (db *DB) SetWebhookStatus(ctx context.Context, id, status string) error {
	q := "UPDATE webhooks SET status = $1, updated_at = $2 WHERE id = $3"
	if status == webhook.StatusActive {
		q = "UPDATE webhooks SET status = $1, consecutive_failures = 0, updated_at = $2, activated_at = COALESCE(activated_at, $2) WHERE id = $3"
	}
	return oneRow(db.pool.Exec(ctx, q, status, db.now(), id))
}

// DeleteWebhook removes a webhook with its deliveries and log.
func (db *DB) DeleteWebhook(ctx context.Context, id string) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		for _, q := range []string{"DELETE FROM webhook_logs WHERE webhook_id = $1", "DELETE FROM webhook_deliveries WHERE webhook_id = $1"} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		return oneRow(tx.Exec(ctx, "DELETE FROM webhooks WHERE id = $1", id))
	})
}

// PendingEvents returns outbox events not yet handed to the dispatcher.
func (db *DB) PendingEvents(ctx context.Context, limit int) ([]webhook.OutboxEvent, error) {
	rows, err := db.pool.Query(ctx, `SELECT seq, event_id, event, organisation_id, data, created_at FROM outbox
		WHERE delivered_at IS NULL ORDER BY seq LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.OutboxEvent
	for rows.Next() {
		var e webhook.OutboxEvent
		var data string
		if err := rows.Scan(&e.Seq, &e.EventID, &e.Event, &e.OrganisationID, &data, &e.CreatedAt); err != nil {
			return nil, err
		}
		e.Data = json.RawMessage(data)
		out = append(out, e)
	}
	return out, rows.Err()
}

// FanOut stores an event's deliveries and marks the event handed over.
// Two replicas fanning out one event store its deliveries once: the
// unique (webhook, event) keeps the first.
func (db *DB) FanOut(ctx context.Context, ev webhook.OutboxEvent, ds []webhook.Delivery) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		for _, d := range ds {
			target, err := targetJSON(d.Target)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (id, webhook_id, organisation_id, event_id,
				event, body, status, attempts, next_attempt_at, created_at, updated_at, target)
				VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, $11) ON CONFLICT (webhook_id, event_id) DO NOTHING`,
				d.ID, d.WebhookID, d.OrganisationID, d.EventID, d.Event, d.Body, d.Status, d.NextAttemptAt,
				d.CreatedAt, d.UpdatedAt, target); err != nil {
				return fmt.Errorf("postgres: fan out %s: %w", ev.EventID, err)
			}
		}
		_, err := tx.Exec(ctx, "UPDATE outbox SET delivered_at = $1 WHERE seq = $2", db.now(), ev.Seq)
		return err
	})
}

const deliveryColumns = `id, webhook_id, organisation_id, event_id, event, body, status, attempts, next_attempt_at,
	last_code, last_error, created_at, updated_at, target`

// targetJSON is the stored form of a delivery's target; a zero target
// (not copied) is stored as the empty string, as SQLite stores it.
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

func scanDelivery(r pgx.Row) (webhook.Delivery, error) {
	var d webhook.Delivery
	var target string
	err := r.Scan(&d.ID, &d.WebhookID, &d.OrganisationID, &d.EventID, &d.Event, &d.Body, &d.Status, &d.Attempts,
		&d.NextAttemptAt, &d.LastCode, &d.LastError, &d.CreatedAt, &d.UpdatedAt, &target)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, webhook.ErrNotFound
	}
	if err != nil {
		return d, err
	}
	if target != "" {
		if err := json.Unmarshal([]byte(target), &d.Target); err != nil {
			return d, fmt.Errorf("postgres: delivery %s target: %w", d.ID, err)
		}
	}
	return d, nil
}

// claimDue leases, in one statement, per active webhook its earliest due
// rows up to the room it has ($6 per webhook less its busy count from the
// arrays $4/$5, at most $3; $6 = 0: no bound per webhook), then the
// earliest $3 of those across webhooks. The LATERAL read walks index
// webhook_deliveries_waiting a few rows per webhook; SKIP LOCKED there
// lets dispatchers of other replicas lease other rows at the same moment
// instead of queueing behind this one. Rows locked but not among the
// earliest $3 are unlocked at the statement's commit, unleased.
var claimDue = `WITH busy AS (SELECT * FROM unnest($4::text[], $5::int[]) AS b(webhook_id, n)),
picked AS (
	SELECT c.id, c.next_attempt_at, c.created_at FROM webhooks w
	LEFT JOIN busy b ON b.webhook_id = w.id
	CROSS JOIN LATERAL (
		SELECT d.id, d.next_attempt_at, d.created_at FROM webhook_deliveries d
		WHERE d.webhook_id = w.id AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= $2
		AND (d.lease_until IS NULL OR d.lease_until <= $2)
		ORDER BY d.next_attempt_at, d.created_at
		LIMIT CASE WHEN $6::int > 0 THEN GREATEST(0, LEAST($3::int, $6::int - COALESCE(b.n, 0))) ELSE $3::int END
		FOR UPDATE OF d SKIP LOCKED) c
	WHERE w.status = 'active'
	ORDER BY c.next_attempt_at, c.created_at LIMIT $3),
leased AS (
	UPDATE webhook_deliveries u SET lease_until = $1 FROM picked p WHERE u.id = p.id
	RETURNING ` + qualified("u", deliveryColumns) + `)
SELECT ` + deliveryColumns + ` FROM leased ORDER BY next_attempt_at, created_at, id`

// qualified prefixes each of the comma-separated columns with table.
func qualified(table, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// ClaimDue leases due deliveries of active webhooks, at most c.Limit in
// all and, per webhook, as many as c.PerWebhook leaves beside c.Busy,
// earliest due first. The bound per webhook is the calling dispatcher's:
// Busy counts its own deliveries in flight, not other replicas'.
func (db *DB) ClaimDue(ctx context.Context, c webhook.Claim) ([]webhook.Delivery, error) {
	if c.Limit <= 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(c.Busy))
	ns := make([]int32, 0, len(c.Busy))
	for id, n := range c.Busy {
		ids = append(ids, id)
		ns = append(ns, int32(min(n, 1<<30)))
	}
	rows, err := db.pool.Query(ctx, claimDue, c.LeaseUntil, c.Now, c.Limit, ids, ns, max(0, c.PerWebhook))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// NextDue returns the earliest due time after now of an unleased waiting
// delivery of an active webhook.
func (db *DB) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	var at *time.Time
	err := db.pool.QueryRow(ctx, `SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
		WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at > $1
		AND (d.lease_until IS NULL OR d.lease_until <= $1) AND w.status = 'active'`, now).Scan(&at)
	if err != nil || at == nil {
		return time.Time{}, false, err
	}
	return *at, true, nil
}

// ReleaseLeases does nothing here: the leases in a shared database may
// be live replicas' own, and freeing them would send their deliveries
// twice. A dead replica's leases lapse at lease_until instead.
func (db *DB) ReleaseLeases(ctx context.Context) error { return nil }

// ReleaseDeliveries frees the leases of the waiting deliveries ids
// (webhook.LeaseReleaser): a replica shutting down hands back the
// deliveries whose attempts it cut short, and the others' dispatchers
// claim them at once instead of after lease_until.
func (db *DB) ReleaseDeliveries(ctx context.Context, ids []string) error {
	_, err := db.pool.Exec(ctx, "UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ANY($1) AND status IN ('pending', 'retrying')", ids)
	return err
}

var _ webhook.LeaseReleaser = (*DB)(nil)

// RecordAttempt stores one attempt, the webhook's counters and the events
// it causes in one transaction.
func (db *DB) RecordAttempt(ctx context.Context, r webhook.AttemptRecord, events func(w webhook.Webhook) []webhook.OutboxEvent) (webhook.Recorded, error) {
	var rec webhook.Recorded
	d, l := r.Delivery, r.Log
	err := db.tx(ctx, func(tx pgx.Tx) error {
		rec = webhook.Recorded{}
		if err := oneRow(tx.Exec(ctx, `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3,
			lease_until = NULL, last_code = $4, last_error = $5, updated_at = $6 WHERE id = $7`,
			d.Status, d.Attempts, d.NextAttemptAt, d.LastCode, d.LastError, d.UpdatedAt, d.ID)); err != nil {
			return err // the webhook was deleted meanwhile
		}
		if err := insertLog(ctx, tx, l); err != nil {
			return err
		}
		var err error
		switch d.Status {
		case webhook.DeliverySuccess:
			_, err = tx.Exec(ctx, "UPDATE webhooks SET consecutive_failures = 0, last_triggered_at = $1 WHERE id = $2", l.Timestamp, d.WebhookID)
		case webhook.DeliveryFailedPermanent:
			_, err = tx.Exec(ctx, `UPDATE webhooks SET failure_count = failure_count + 1,
				consecutive_failures = consecutive_failures + 1, last_triggered_at = $1 WHERE id = $2`, l.Timestamp, d.WebhookID)
		default:
			_, err = tx.Exec(ctx, "UPDATE webhooks SET last_triggered_at = $1 WHERE id = $2", l.Timestamp, d.WebhookID)
		}
		if err != nil {
			return err
		}
		// The UPDATE above holds the webhook's row lock to commit, so the
		// counters read here are exact even with other replicas recording.
		w, err := scanWebhook(tx.QueryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = $1", d.WebhookID))
		if err != nil {
			return err
		}
		if d.Status == webhook.DeliveryFailedPermanent && w.ConsecutiveFailures >= webhook.AutoPauseAfter && w.Status == webhook.StatusActive {
			if _, err := tx.Exec(ctx, "UPDATE webhooks SET status = 'paused', updated_at = $1 WHERE id = $2", l.Timestamp, w.ID); err != nil {
				return err
			}
			w.Status, rec.Paused = webhook.StatusPaused, true
		}
		rec.Webhook = w
		if events == nil {
			return nil
		}
		var evs []store.Event
		for _, ev := range events(w) {
			// Stamped by the store's clock, like every outbox event, so
			// it compares with activation times.
			evs = append(evs, store.Event{EventID: ev.EventID, Event: ev.Event, OrganisationID: ev.OrganisationID, Data: ev.Data})
		}
		return insertEvents(ctx, tx, db.now(), evs)
	})
	return rec, err
}

func insertLog(ctx context.Context, tx pgx.Tx, l webhook.LogEntry) error {
	_, err := tx.Exec(ctx, `INSERT INTO webhook_logs (webhook_id, delivery_id, event_id, event, created_at, status,
		attempt, response_code, response_time_ms, error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		l.WebhookID, l.DeliveryID, l.EventID, l.Event, l.Timestamp, l.Status, l.Attempt, l.ResponseCode, l.ResponseTimeMS, l.Error)
	return err
}

// AppendLog adds a log line outside a queued delivery.
func (db *DB) AppendLog(ctx context.Context, l webhook.LogEntry) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		if err := insertLog(ctx, tx, l); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE webhooks SET last_triggered_at = $1 WHERE id = $2", l.Timestamp, l.WebhookID)
		return err
	})
}

// Logs returns a webhook's log lines matching f, newest first.
func (db *DB) Logs(ctx context.Context, webhookID string, f webhook.LogFilter) ([]webhook.LogEntry, error) {
	q := []string{"webhook_id = $1"}
	args := []any{webhookID}
	add := func(cond string, v any) {
		args = append(args, v)
		q = append(q, cond+" $"+strconv.Itoa(len(args)))
	}
	if !f.From.IsZero() {
		add("created_at >=", f.From)
	}
	if !f.To.IsZero() {
		add("created_at <", f.To)
	}
	if f.Status != "" {
		add("status =", f.Status)
	}
	if f.Event != "" {
		add("event =", f.Event)
	}
	limit := f.Limit
	if limit <= 0 || limit > 100000 {
		limit = 100000
	}
	args = append(args, limit)
	rows, err := db.pool.Query(ctx, `SELECT id, webhook_id, delivery_id, event_id, event, created_at, status, attempt,
		response_code, response_time_ms, error FROM webhook_logs WHERE `+strings.Join(q, " AND ")+
		` ORDER BY created_at DESC, id DESC LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []webhook.LogEntry{}
	for rows.Next() {
		var l webhook.LogEntry
		if err := rows.Scan(&l.ID, &l.WebhookID, &l.DeliveryID, &l.EventID, &l.Event, &l.Timestamp, &l.Status, &l.Attempt,
			&l.ResponseCode, &l.ResponseTimeMS, &l.Error); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Stats summarises a webhook's log.
func (db *DB) Stats(ctx context.Context, webhookID string) (webhook.Stats, error) {
	var s webhook.Stats
	var avg *float64
	err := db.pool.QueryRow(ctx, `SELECT COUNT(*),
		COUNT(*) FILTER (WHERE status = 'Success'), COUNT(*) FILTER (WHERE status <> 'Success'), AVG(response_time_ms)::float8,
		MAX(created_at) FILTER (WHERE status = 'Success'), MAX(created_at) FILTER (WHERE status <> 'Success')
		FROM webhook_logs WHERE webhook_id = $1`, webhookID).Scan(&s.Total, &s.Successful, &s.Failed, &avg, &s.LastSuccess, &s.LastFailure)
	if err != nil {
		return s, err
	}
	if avg != nil {
		s.AvgResponseTimeMS = *avg
	}
	if s.Total > 0 {
		s.SuccessRate = float64(s.Successful) / float64(s.Total)
	}
	return s, nil
}

// Delivery returns one delivery.
func (db *DB) Delivery(ctx context.Context, id string) (webhook.Delivery, error) {
	return scanDelivery(db.pool.QueryRow(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries WHERE id = $1", id))
}

// Deliveries lists a webhook's deliveries, newest first.
func (db *DB) Deliveries(ctx context.Context, webhookID string, limit int) ([]webhook.Delivery, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := db.pool.Query(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, id LIMIT $2", webhookID, limit)
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
