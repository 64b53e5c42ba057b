-- As SQLite's 0130 (issue 14): a stored result is replayed only to the
-- same request. The fingerprint is the hex SHA-256 the server computes
-- over the workflow, the config, the message fields that change a result
-- and the image bytes (docs/server.md, Idempotency). Rows stored before
-- this migration have none: they are replayed only within their own
-- workflow.
ALTER TABLE verifications ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';
