-- Claims findings for the webhook: one row per (app, version, kind, category, detail), ever. A
-- key already claimed, by this or any other collector, is skipped; RETURNING lists the new ones.
-- $2..$8 are parallel arrays; $8 holds ISO 8601 times or '' for none. Key order keeps
-- concurrent claims from deadlocking.
INSERT INTO finding_alerts (app_id, app_version, kind, category, detail, severity, payload, first_seen)
SELECT $1::bigint, t.app_version, t.kind, t.category, t.detail, t.severity, t.payload::jsonb, nullif(t.first_seen, '')::timestamptz
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
     AS t(app_version, kind, category, detail, severity, payload, first_seen)
ORDER BY t.app_version, t.kind, t.category, t.detail
ON CONFLICT (app_id, app_version, kind, category, detail) DO NOTHING
RETURNING app_version, kind, category, detail
