-- Twin of server/sqlite/migrations/0140_reviews.sql (issue 19): the
-- manual review queue and its append-only history (filled by the backend's
-- store.Reviews since 0160, which queues what came before).
CREATE TABLE review_cases (
    verification_id    TEXT        PRIMARY KEY REFERENCES verifications(id),
    organisation_id    BIGINT      NOT NULL,
    workflow_id        TEXT        NOT NULL,
    state              TEXT        NOT NULL CHECK (state IN ('open', 'approved', 'rejected')),
    automated_decision TEXT        NOT NULL,
    automated_reasons  TEXT        NOT NULL DEFAULT '[]',
    assignee           TEXT        NOT NULL DEFAULT '',
    reason             TEXT        NOT NULL DEFAULT '',
    note               TEXT        NOT NULL DEFAULT '',
    reviewer           TEXT        NOT NULL DEFAULT '',
    created_at         TIMESTAMPTZ NOT NULL,
    decided_at         TIMESTAMPTZ
);
CREATE INDEX review_cases_queue ON review_cases(organisation_id, state, created_at);

CREATE TABLE review_actions (
    id              BIGSERIAL   PRIMARY KEY,
    verification_id TEXT        NOT NULL,
    organisation_id BIGINT      NOT NULL,
    action          TEXT        NOT NULL CHECK (action IN ('queued', 'assigned', 'approved', 'rejected', 'erased')),
    actor           TEXT        NOT NULL DEFAULT '',
    detail          TEXT        NOT NULL DEFAULT '',
    note            TEXT        NOT NULL DEFAULT '',
    address         TEXT        NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX review_actions_verification ON review_actions(verification_id, id);

-- Append-only, whoever asks.
CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;
CREATE TRIGGER review_actions_append_only BEFORE UPDATE OR DELETE ON review_actions
    FOR EACH ROW EXECUTE FUNCTION refuse_change();

ALTER TABLE verifications ADD COLUMN erased_at TIMESTAMPTZ;
