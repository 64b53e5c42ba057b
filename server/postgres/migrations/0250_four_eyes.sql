-- Twin of server/sqlite/migrations/0250_four_eyes.sql (issue 19): the
-- four-eyes rule's first decision on the open case, and the two
-- first-decision actions of the history.
ALTER TABLE review_cases ADD COLUMN first_decision TEXT NOT NULL DEFAULT '' CHECK (first_decision IN ('', 'approve', 'reject'));
ALTER TABLE review_cases ADD COLUMN first_reason   TEXT NOT NULL DEFAULT '';
ALTER TABLE review_cases ADD COLUMN first_note     TEXT NOT NULL DEFAULT '';
ALTER TABLE review_cases ADD COLUMN first_reviewer TEXT NOT NULL DEFAULT '';
ALTER TABLE review_cases ADD COLUMN first_at       TIMESTAMPTZ;

ALTER TABLE review_actions DROP CONSTRAINT review_actions_action_check;
ALTER TABLE review_actions ADD CONSTRAINT review_actions_action_check CHECK (action IN ('queued', 'assigned', 'approved', 'rejected', 'erased',
    'approval_proposed', 'rejection_proposed'));
