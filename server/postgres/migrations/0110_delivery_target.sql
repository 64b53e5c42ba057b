-- As SQLite's 0110 (issue 14): editing a webhook does not change its
-- pending deliveries. target is the JSON of the webhook's URL, method, CA,
-- secret and headers when the delivery was queued; every attempt uses it.
-- Rows queued before this migration have '' and are sent with the
-- webhook's current settings.
ALTER TABLE webhook_deliveries ADD COLUMN target TEXT NOT NULL DEFAULT '';
