-- Issue 19: the audit log. One line per action that changes state (review
-- actions, erasures, the admin CLI's changes): who, what, on which object,
-- when, from which address. Append-only: the triggers refuse to change or
-- remove a line. organisation_id is 0 for actions outside any organisation.
CREATE TABLE audit_log (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    organisation_id INTEGER NOT NULL DEFAULT 0,
    actor           TEXT    NOT NULL,
    action          TEXT    NOT NULL,
    object_type     TEXT    NOT NULL DEFAULT '',
    object_id       TEXT    NOT NULL DEFAULT '',
    detail          TEXT    NOT NULL DEFAULT '',
    address         TEXT    NOT NULL DEFAULT '',
    created_at      TEXT    NOT NULL
);
CREATE INDEX audit_log_org_time ON audit_log(organisation_id, created_at);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

-- Retention: a verification's images and personal fields are erased this
-- many days after it completed (the start-up sweep). 0 keeps them.
ALTER TABLE organisations ADD COLUMN retention_days INTEGER NOT NULL DEFAULT 0 CHECK (retention_days >= 0);
CREATE INDEX verifications_unerased ON verifications(completed_at) WHERE state = 'done' AND erased_at IS NULL;
