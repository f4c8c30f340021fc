-- $5: seconds until the key expires, or NULL for a key with no end.
INSERT INTO api_keys (key_id, app_id, kind, secret_hash, expires_at)
VALUES ($1, $2::bigint, $3, decode($4, 'hex'), CASE WHEN $5::bigint IS NULL THEN NULL ELSE now() + make_interval(secs => $5::bigint) END)
