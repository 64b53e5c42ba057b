-- Twin of server/sqlite/migrations/0150_audit.sql (issue 19): the audit log
-- and the organisations' retention setting.
CREATE TABLE audit_log (
    id              BIGSERIAL   PRIMARY KEY,
    organisation_id BIGINT      NOT NULL DEFAULT 0,
    actor           TEXT        NOT NULL,
    action          TEXT        NOT NULL,
    object_type     TEXT        NOT NULL DEFAULT '',
    object_id       TEXT        NOT NULL DEFAULT '',
    detail          TEXT        NOT NULL DEFAULT '',
    address         TEXT        NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX audit_log_org_time ON audit_log(organisation_id, created_at);
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION refuse_change();

ALTER TABLE organisations ADD COLUMN retention_days INTEGER NOT NULL DEFAULT 0 CHECK (retention_days >= 0);
CREATE INDEX verifications_unerased ON verifications(completed_at) WHERE state = 'done' AND erased_at IS NULL;
