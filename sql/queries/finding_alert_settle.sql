-- Records the outcome of one delivery by the collector holding its lease ($6):
-- $7 'sent' | 'retry' | 'failed'; $8 seconds until the next attempt (retry); $9 the error.
UPDATE finding_alerts
SET state = CASE $7 WHEN 'retry' THEN 'pending' ELSE $7 END,
    sent_at = CASE WHEN $7 = 'sent' THEN now() END,
    next_attempt_at = CASE WHEN $7 = 'retry' THEN now() + make_interval(secs => $8::double precision) ELSE next_attempt_at END,
    last_error = $9,
    lease_owner = NULL,
    lease_until = NULL
WHERE app_id = $1::bigint AND app_version = $2 AND kind = $3 AND category = $4 AND detail = $5 AND lease_owner = $6
