-- Webhooks (issue 8), as server/sqlite/migrations/0100_webhooks.sql. The
-- outbox of 0001 feeds them: the dispatcher turns each outbox row into one
-- delivery per subscribed webhook and sets the row's delivered_at in that
-- transaction.
CREATE TABLE webhooks (
    id                   TEXT        PRIMARY KEY,
    organisation_id      BIGINT      NOT NULL REFERENCES organisations(id),
    type                 TEXT        NOT NULL CHECK (type IN ('event_notification', 'verification_check')),
    name                 TEXT        NOT NULL,
    description          TEXT        NOT NULL DEFAULT '',
    url                  TEXT        NOT NULL,
    method               TEXT        NOT NULL CHECK (method IN ('POST', 'PUT', 'PATCH')),
    ca_certificate       TEXT        NOT NULL,
    secret               TEXT        NOT NULL DEFAULT '',
    headers              TEXT        NOT NULL DEFAULT '[]',
    events               TEXT        NOT NULL DEFAULT '[]',
    criteria             TEXT        NOT NULL DEFAULT '',
    request_schema       TEXT        NOT NULL DEFAULT '',
    response_schema      TEXT        NOT NULL DEFAULT '',
    notify_email         TEXT        NOT NULL DEFAULT '',
    status               TEXT        NOT NULL CHECK (status IN ('inactive', 'active', 'paused')),
    failure_count        INTEGER     NOT NULL DEFAULT 0,
    consecutive_failures INTEGER     NOT NULL DEFAULT 0,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL,
    last_triggered_at    TIMESTAMPTZ,
    -- First activation: events from before it are not the webhook's.
    activated_at         TIMESTAMPTZ
);
CREATE INDEX webhooks_org ON webhooks(organisation_id);

-- One event on its way to one webhook. body is the exact payload signed
-- and sent on every attempt; lease_until keeps two workers (of any
-- replica) off one row, and expires when the worker holding it dies.
CREATE TABLE webhook_deliveries (
    id              TEXT        PRIMARY KEY,
    webhook_id      TEXT        NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    organisation_id BIGINT      NOT NULL,
    event_id        TEXT        NOT NULL,
    event           TEXT        NOT NULL,
    body            BYTEA       NOT NULL,
    status          TEXT        NOT NULL CHECK (status IN ('pending', 'retrying', 'success', 'failed_permanent')),
    attempts        INTEGER     NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    lease_until     TIMESTAMPTZ,
    last_code       INTEGER     NOT NULL DEFAULT 0,
    last_error      TEXT        NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(webhook_id, created_at);

-- The delivery log: one line per attempt (and per verification check call).
CREATE TABLE webhook_logs (
    id               BIGSERIAL   PRIMARY KEY,
    webhook_id       TEXT        NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    delivery_id      TEXT        NOT NULL DEFAULT '',
    event_id         TEXT        NOT NULL DEFAULT '',
    event            TEXT        NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    status           TEXT        NOT NULL CHECK (status IN ('Success', 'Failed', 'Retrying')),
    attempt          INTEGER     NOT NULL DEFAULT 1,
    response_code    INTEGER     NOT NULL DEFAULT 0,
    response_time_ms BIGINT      NOT NULL DEFAULT 0,
    error            TEXT        NOT NULL DEFAULT ''
);
CREATE INDEX webhook_logs_hook_time ON webhook_logs(webhook_id, created_at);
