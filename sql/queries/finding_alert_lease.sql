-- Takes up to $3 due messages for delivery by collector $1 for $2 seconds. SKIP LOCKED and the
-- lease mean two collectors never hold the same message; a holder that dies lets it go when
-- the lease ends. Each lease counts as an attempt.
UPDATE finding_alerts a
SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision), attempts = a.attempts + 1
FROM (
    SELECT app_id, app_version, kind, category, detail
    FROM finding_alerts
    WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
    ORDER BY next_attempt_at, app_id, app_version, kind, category, detail
    LIMIT $3::integer
    FOR UPDATE SKIP LOCKED
) due
WHERE a.app_id = due.app_id AND a.app_version = due.app_version AND a.kind = due.kind AND a.category = due.category
  AND a.detail = due.detail
RETURNING a.app_id, a.app_version, a.kind, a.category, a.detail, a.payload::text, a.attempts
