-- Rotation: the app's current keys of one kind stop working after the grace period ($3 seconds).
-- A key that already expires sooner keeps its earlier end.
UPDATE api_keys
SET expires_at = LEAST(COALESCE(expires_at, 'infinity'), now() + make_interval(secs => $3::bigint))
WHERE app_id = $1::bigint AND kind = $2 AND (expires_at IS NULL OR expires_at > now())
