-- Issue 19: the manual review queue. One case per verification that
-- completed with the decision review; the verification's decision column
-- becomes the current verdict (the reviewer's once decided) and the case
-- keeps the automated one.
CREATE TABLE review_cases (
    verification_id    TEXT    PRIMARY KEY REFERENCES verifications(id),
    organisation_id    INTEGER NOT NULL,
    workflow_id        TEXT    NOT NULL,
    state              TEXT    NOT NULL CHECK (state IN ('open', 'approved', 'rejected')),
    automated_decision TEXT    NOT NULL,
    automated_reasons  TEXT    NOT NULL DEFAULT '[]',
    assignee           TEXT    NOT NULL DEFAULT '',
    reason             TEXT    NOT NULL DEFAULT '',
    note               TEXT    NOT NULL DEFAULT '',
    reviewer           TEXT    NOT NULL DEFAULT '',
    created_at         TEXT    NOT NULL,
    decided_at         TEXT
);
-- The queue page: an organisation's cases of one state by age.
CREATE INDEX review_cases_queue ON review_cases(organisation_id, state, created_at);

-- Every action on a case, append-only: the triggers refuse to change or
-- remove a line, whoever asks.
CREATE TABLE review_actions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    verification_id TEXT    NOT NULL,
    organisation_id INTEGER NOT NULL,
    action          TEXT    NOT NULL CHECK (action IN ('queued', 'assigned', 'approved', 'rejected', 'erased')),
    actor           TEXT    NOT NULL DEFAULT '',
    detail          TEXT    NOT NULL DEFAULT '',
    note            TEXT    NOT NULL DEFAULT '',
    address         TEXT    NOT NULL DEFAULT '',
    created_at      TEXT    NOT NULL
);
CREATE INDEX review_actions_verification ON review_actions(verification_id, id);
CREATE TRIGGER review_actions_no_update BEFORE UPDATE ON review_actions
BEGIN SELECT RAISE(ABORT, 'review_actions is append-only'); END;
CREATE TRIGGER review_actions_no_delete BEFORE DELETE ON review_actions
BEGIN SELECT RAISE(ABORT, 'review_actions is append-only'); END;

-- Erasure (DELETE /v1/verifications/{id}): when the images and personal
-- fields were removed.
ALTER TABLE verifications ADD COLUMN erased_at TEXT;

-- Verifications that ended in review before this migration join the queue.
INSERT INTO review_cases(verification_id, organisation_id, workflow_id, state, automated_decision, created_at)
    SELECT id, organisation_id, workflow_id, 'open', decision, COALESCE(completed_at, created_at)
    FROM verifications WHERE state = 'done' AND decision = 'review';
INSERT INTO review_actions(verification_id, organisation_id, action, actor, created_at)
    SELECT verification_id, organisation_id, 'queued', 'system', created_at FROM review_cases;
