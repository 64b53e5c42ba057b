-- Issue 18: the web console. Members of an organisation (one organisation
-- per member), one-time email codes, sessions (the JWT's id, revoked at
-- sign-out) and what sign-up records about an organisation.
CREATE TABLE console_users (
    id              TEXT    PRIMARY KEY,
    organisation_id INTEGER NOT NULL REFERENCES organisations(id),
    email           TEXT    NOT NULL UNIQUE,
    name            TEXT    NOT NULL DEFAULT '',
    role            TEXT    NOT NULL CHECK (role IN ('admin', 'developer', 'reviewer')),
    password_hash   TEXT    NOT NULL DEFAULT '',
    totp_secret     TEXT    NOT NULL DEFAULT '',
    totp_enabled    INTEGER NOT NULL DEFAULT 0,
    totp_last_step  INTEGER NOT NULL DEFAULT 0,
    recovery_codes  TEXT    NOT NULL DEFAULT '[]',
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    locked_until    TEXT    NOT NULL DEFAULT '',
    created_at      TEXT    NOT NULL
);
CREATE INDEX console_users_org ON console_users(organisation_id);

CREATE TABLE console_email_codes (
    email      TEXT    NOT NULL,
    purpose    TEXT    NOT NULL,
    code_hash  TEXT    NOT NULL,
    expires_at TEXT    NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    used_at    TEXT,
    created_at TEXT    NOT NULL,
    PRIMARY KEY (email, purpose)
);

CREATE TABLE console_sessions (
    id              TEXT    PRIMARY KEY,
    user_id         TEXT    NOT NULL,
    organisation_id INTEGER NOT NULL,
    created_at      TEXT    NOT NULL,
    expires_at      TEXT    NOT NULL,
    revoked_at      TEXT
);
CREATE INDEX console_sessions_user ON console_sessions(user_id);

CREATE TABLE organisation_profiles (
    organisation_id             INTEGER PRIMARY KEY REFERENCES organisations(id),
    registration_number         TEXT    NOT NULL DEFAULT '',
    industry                    TEXT    NOT NULL DEFAULT '',
    monthly_volume              TEXT    NOT NULL DEFAULT '',
    admin_verification_id       TEXT    NOT NULL DEFAULT '',
    admin_verification_decision TEXT    NOT NULL DEFAULT '',
    updated_at                  TEXT    NOT NULL
);
