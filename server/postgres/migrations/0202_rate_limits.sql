-- Token buckets the replicas share (store.RateLimits): the failed-secret,
-- refresh and SDK session limits hold across replicas instead of per
-- process. full_at is when the bucket is full again, so a row past it
-- equals no row and is swept.
CREATE TABLE rate_buckets (
    key        TEXT             PRIMARY KEY,
    tokens     DOUBLE PRECISION NOT NULL,
    updated_at TIMESTAMPTZ      NOT NULL,
    full_at    TIMESTAMPTZ      NOT NULL
);
CREATE INDEX rate_buckets_full_at ON rate_buckets(full_at);
