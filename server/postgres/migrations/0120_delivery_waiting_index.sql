-- As SQLite's 0120 (issue 14): the dispatcher claims each webhook's
-- earliest waiting deliveries, up to the room that webhook has, whenever a
-- delivery finishes. This index lets that claim read a few rows per
-- webhook instead of ranking the whole backlog.
CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries(webhook_id, next_attempt_at, created_at) WHERE status IN ('pending', 'retrying');
