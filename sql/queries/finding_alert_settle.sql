-- Records the outcome of one delivery by the collector holding its lease ($5):
-- $6 'sent' | 'retry' | 'failed'; $7 seconds until the next attempt (retry); $8 the error.
UPDATE mismatch_alerts
SET state = CASE $6 WHEN 'retry' THEN 'pending' ELSE $6 END,
    sent_at = CASE WHEN $6 = 'sent' THEN now() END,
    next_attempt_at = CASE WHEN $6 = 'retry' THEN now() + make_interval(secs => $7::double precision) ELSE next_attempt_at END,
    last_error = $8,
    lease_owner = NULL,
    lease_until = NULL
WHERE app_id = $1::bigint AND app_version = $2 AND kind = $3 AND category = $4 AND lease_owner = $5
