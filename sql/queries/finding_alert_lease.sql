-- Leases the due messages finding_alert_due.sql listed (keys in the parallel arrays $3..$7) to
-- collector $1 for $2 seconds. Each row is checked again as it is updated: a collector that
-- leased it meanwhile holds its row lock until it commits, and then its lease makes this one
-- skip the row, so two collectors never hold the same message; a holder that dies lets it go
-- when the lease ends. Each lease counts as an attempt.
UPDATE finding_alerts a
SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision), attempts = a.attempts + 1
FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[]) AS due (app_id, app_version, kind, category, detail)
WHERE a.app_id = due.app_id AND a.app_version = due.app_version AND a.kind = due.kind AND a.category = due.category
  AND a.detail = due.detail
  AND a.state = 'pending' AND a.next_attempt_at <= now() AND (a.lease_until IS NULL OR a.lease_until < now())
RETURNING a.app_id, a.app_version, a.kind, a.category, a.detail, a.payload::text, a.attempts
