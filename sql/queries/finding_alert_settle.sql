-- Records the outcome of one delivery by the collector holding its lease ($6):
-- $7 'sent' | 'retry' | 'failed'; $8 seconds until the next attempt (retry); $9 the error.
-- now() is read once, in FROM, and the CASEs use that value: Citus refuses a function that is
-- not IMMUTABLE inside CASE in an UPDATE (docs/deployment.md, "Where PostgreSQL and Citus
-- differ"), and the parameters are compared as text (Citus's worker query lost the type of a
-- parameter in `CASE $7 WHEN …`).
UPDATE finding_alerts
SET state = CASE WHEN $7::text = 'retry' THEN 'pending' ELSE $7::text END,
    sent_at = CASE WHEN $7::text = 'sent' THEN t.now END,
    next_attempt_at = CASE WHEN $7::text = 'retry' THEN t.now + make_interval(secs => $8::double precision) ELSE next_attempt_at END,
    last_error = $9,
    lease_owner = NULL,
    lease_until = NULL
FROM (SELECT now() AS now) t
WHERE app_id = $1::bigint AND app_version = $2 AND kind = $3 AND category = $4 AND detail = $5 AND lease_owner = $6
