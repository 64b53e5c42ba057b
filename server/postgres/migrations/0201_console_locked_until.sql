-- console_users.locked_until came over from SQLite as text ('' for never);
-- here it is a time like every other, NULL for never, now that the
-- console's store methods run on PostgreSQL (server/postgres/console.go).
-- tambua migrate turns SQLite's '' into NULL for a time column.
ALTER TABLE console_users ALTER COLUMN locked_until DROP DEFAULT;
ALTER TABLE console_users ALTER COLUMN locked_until DROP NOT NULL;
ALTER TABLE console_users ALTER COLUMN locked_until TYPE TIMESTAMPTZ
    USING NULLIF(locked_until, '')::TIMESTAMPTZ;

