-- The schema of server/sqlite/migrations/0001_init.sql in PostgreSQL's
-- dialect. JSON is kept as text, not jsonb: a stored result is replayed
-- byte for byte and event data is signed as written.

-- Organisations own clients and a units balance, which never goes negative.
CREATE TABLE organisations (
    id                    BIGSERIAL   PRIMARY KEY,
    name                  TEXT        NOT NULL,
    units_balance         BIGINT      NOT NULL DEFAULT 0 CHECK (units_balance >= 0),
    low_balance_threshold BIGINT      NOT NULL DEFAULT 50,
    created_at            TIMESTAMPTZ NOT NULL
);

-- API clients: the secret is kept only as an argon2id hash.
CREATE TABLE api_clients (
    id              TEXT        PRIMARY KEY,
    organisation_id BIGINT      NOT NULL REFERENCES organisations(id),
    name            TEXT        NOT NULL DEFAULT '',
    secret_hash     TEXT        NOT NULL,
    active          BOOLEAN     NOT NULL DEFAULT TRUE,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX api_clients_org ON api_clients(organisation_id);

-- Workflows: definition is the idv.Workflow as JSON.
CREATE TABLE workflows (
    id            TEXT        PRIMARY KEY,
    client_id     TEXT        NOT NULL REFERENCES api_clients(id),
    name          TEXT        NOT NULL,
    status        TEXT        NOT NULL CHECK (status IN ('active', 'draft', 'archived')),
    refresh_token TEXT        NOT NULL,
    version       BIGINT      NOT NULL DEFAULT 1,
    definition    TEXT        NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (client_id, name)
);

-- Verifications: a pending row is a claim holding units; a done row holds
-- the result returned to the client, replayed on a retry with the same
-- request id. The unique (client_id, request_id) makes a claim idempotent
-- across replicas.
CREATE TABLE verifications (
    id              TEXT        PRIMARY KEY,
    client_id       TEXT        NOT NULL REFERENCES api_clients(id),
    organisation_id BIGINT      NOT NULL REFERENCES organisations(id),
    workflow_id     TEXT        NOT NULL,
    request_id      TEXT        NOT NULL,
    state           TEXT        NOT NULL CHECK (state IN ('pending', 'done')),
    units           BIGINT      NOT NULL,
    decision        TEXT        NOT NULL DEFAULT '',
    result          TEXT        NOT NULL DEFAULT '',
    files           TEXT        NOT NULL DEFAULT '{}',
    created_at      TIMESTAMPTZ NOT NULL,
    completed_at    TIMESTAMPTZ,
    UNIQUE (client_id, request_id)
);
CREATE INDEX verifications_org_state ON verifications(organisation_id, state);
CREATE INDEX verifications_pending ON verifications(created_at) WHERE state = 'pending';

-- Every change of a balance, for audit.
CREATE TABLE unit_ledger (
    id              BIGSERIAL   PRIMARY KEY,
    organisation_id BIGINT      NOT NULL REFERENCES organisations(id),
    delta           BIGINT      NOT NULL,
    balance         BIGINT      NOT NULL,
    reason          TEXT        NOT NULL,
    verification_id TEXT,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX unit_ledger_verification ON unit_ledger(verification_id) WHERE verification_id IS NOT NULL;
CREATE INDEX unit_ledger_org_time ON unit_ledger(organisation_id, created_at);

-- Events waiting for the webhook dispatcher, written in the transaction
-- that caused them.
CREATE TABLE outbox (
    seq             BIGSERIAL   PRIMARY KEY,
    event_id        TEXT        NOT NULL UNIQUE,
    event           TEXT        NOT NULL,
    organisation_id BIGINT      NOT NULL,
    data            TEXT        NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    delivered_at    TIMESTAMPTZ,
    attempts        INTEGER     NOT NULL DEFAULT 0
);
CREATE INDEX outbox_undelivered ON outbox(seq) WHERE delivered_at IS NULL;

-- Server secrets (token and file URL signing keys), created on first start.
CREATE TABLE settings (
    name  TEXT  PRIMARY KEY,
    value BYTEA NOT NULL
);
