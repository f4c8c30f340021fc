-- 0021: the webhook outbox. One row per (app, app version, kind, category) ever announced; the
-- primary key is the claim, so across restarts and any number of collectors a finding is
-- queued once. Delivery leases a row (lease_owner, lease_until) so two collectors never send
-- the same row at once, and a collector that dies mid-send releases it when the lease ends.
CREATE TABLE mismatch_alerts (
    app_id          bigint      NOT NULL,
    app_version     text        NOT NULL,
    kind            text        NOT NULL,
    category        text        NOT NULL,
    severity        text        NOT NULL,
    -- The Slack-compatible message, fixed when the finding was first seen.
    payload         jsonb       NOT NULL,
    first_seen      timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_owner     text,
    lease_until     timestamptz,
    sent_at         timestamptz,
    last_error      text,
    PRIMARY KEY (app_id, app_version, kind, category)
);

-- Due deliveries, oldest first, without scanning what was already sent.
CREATE INDEX mismatch_alerts_due ON mismatch_alerts (next_attempt_at) WHERE state = 'pending';
