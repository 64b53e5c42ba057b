-- Issue 19: the four-eyes rule. A decision that needs a second, different
-- reviewer is kept on the open case as its first decision until another
-- reviewer confirms it (then the columns record who made it); the history
-- gains the two first-decision actions.
ALTER TABLE review_cases ADD COLUMN first_decision TEXT NOT NULL DEFAULT '' CHECK (first_decision IN ('', 'approve', 'reject'));
ALTER TABLE review_cases ADD COLUMN first_reason   TEXT NOT NULL DEFAULT '';
ALTER TABLE review_cases ADD COLUMN first_note     TEXT NOT NULL DEFAULT '';
ALTER TABLE review_cases ADD COLUMN first_reviewer TEXT NOT NULL DEFAULT '';
ALTER TABLE review_cases ADD COLUMN first_at       TEXT;

-- SQLite cannot change a CHECK in place: the history table is rebuilt with
-- the wider list of actions, its lines copied as they are, and its
-- append-only triggers put back.
DROP TRIGGER review_actions_no_update;
DROP TRIGGER review_actions_no_delete;
CREATE TABLE review_actions_0250 (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    verification_id TEXT    NOT NULL,
    organisation_id INTEGER NOT NULL,
    action          TEXT    NOT NULL CHECK (action IN ('queued', 'assigned', 'approved', 'rejected', 'erased',
                                                       'approval_proposed', 'rejection_proposed')),
    actor           TEXT    NOT NULL DEFAULT '',
    detail          TEXT    NOT NULL DEFAULT '',
    note            TEXT    NOT NULL DEFAULT '',
    address         TEXT    NOT NULL DEFAULT '',
    created_at      TEXT    NOT NULL
);
INSERT INTO review_actions_0250(id, verification_id, organisation_id, action, actor, detail, note, address, created_at)
    SELECT id, verification_id, organisation_id, action, actor, detail, note, address, created_at FROM review_actions;
DROP TABLE review_actions;
ALTER TABLE review_actions_0250 RENAME TO review_actions;
CREATE INDEX review_actions_verification ON review_actions(verification_id, id);
CREATE TRIGGER review_actions_no_update BEFORE UPDATE ON review_actions
BEGIN SELECT RAISE(ABORT, 'review_actions is append-only'); END;
CREATE TRIGGER review_actions_no_delete BEFORE DELETE ON review_actions
BEGIN SELECT RAISE(ABORT, 'review_actions is append-only'); END;
