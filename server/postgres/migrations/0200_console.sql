-- Twin of server/sqlite/migrations/0200_console.sql (issue 18): console
-- members, one-time email codes, sessions and organisation profiles. The
-- console's store methods are SQLite's for now (docs/console.md); the
-- tables are here so tambua migrate carries them over.
CREATE TABLE console_users (
    id              TEXT        PRIMARY KEY,
    organisation_id BIGINT      NOT NULL REFERENCES organisations(id),
    email           TEXT        NOT NULL UNIQUE,
    name            TEXT        NOT NULL DEFAULT '',
    role            TEXT        NOT NULL CHECK (role IN ('admin', 'developer', 'reviewer')),
    password_hash   TEXT        NOT NULL DEFAULT '',
    totp_secret     TEXT        NOT NULL DEFAULT '',
    totp_enabled    BOOLEAN     NOT NULL DEFAULT FALSE,
    totp_last_step  BIGINT      NOT NULL DEFAULT 0,
    recovery_codes  TEXT        NOT NULL DEFAULT '[]',
    failed_attempts INTEGER     NOT NULL DEFAULT 0,
    locked_until    TEXT        NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX console_users_org ON console_users(organisation_id);

CREATE TABLE console_email_codes (
    email      TEXT        NOT NULL,
    purpose    TEXT        NOT NULL,
    code_hash  TEXT        NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    attempts   INTEGER     NOT NULL DEFAULT 0,
    used_at    TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (email, purpose)
);

CREATE TABLE console_sessions (
    id              TEXT        PRIMARY KEY,
    user_id         TEXT        NOT NULL,
    organisation_id BIGINT      NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    revoked_at      TIMESTAMPTZ
);
CREATE INDEX console_sessions_user ON console_sessions(user_id);

CREATE TABLE organisation_profiles (
    organisation_id             BIGINT      PRIMARY KEY REFERENCES organisations(id),
    registration_number         TEXT        NOT NULL DEFAULT '',
    industry                    TEXT        NOT NULL DEFAULT '',
    monthly_volume              TEXT        NOT NULL DEFAULT '',
    admin_verification_id       TEXT        NOT NULL DEFAULT '',
    admin_verification_decision TEXT        NOT NULL DEFAULT '',
    updated_at                  TIMESTAMPTZ NOT NULL
);
