-- The PostgreSQL backend queues review cases from this version on
-- (store.Reviews). Verifications a replica completed with the decision
-- review before it did join the queue, as SQLite's 0140 does for its own.
INSERT INTO review_cases(verification_id, organisation_id, workflow_id, state, automated_decision, created_at)
    SELECT v.id, v.organisation_id, v.workflow_id, 'open', v.decision, COALESCE(v.completed_at, v.created_at)
    FROM verifications v
    WHERE v.state = 'done' AND v.decision = 'review'
      AND NOT EXISTS (SELECT 1 FROM review_cases c WHERE c.verification_id = v.id);
INSERT INTO review_actions(verification_id, organisation_id, action, actor, created_at)
    SELECT c.verification_id, c.organisation_id, 'queued', 'system', c.created_at FROM review_cases c
    WHERE NOT EXISTS (SELECT 1 FROM review_actions a WHERE a.verification_id = c.verification_id);
