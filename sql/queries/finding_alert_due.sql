-- The keys of up to $1 due messages of the webhook outbox, oldest first: the candidates
-- finding_alert_lease.sql then leases, re-checking each. Read without locking (Citus cannot lock
-- rows of many shards in a LIMIT: docs/deployment.md, "Where PostgreSQL and Citus differ").
SELECT app_id, app_version, kind, category, detail
FROM finding_alerts
WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
ORDER BY next_attempt_at, app_id, app_version, kind, category, detail
LIMIT $1::integer
