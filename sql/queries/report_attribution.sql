-- The attribution windows of app $1 (migration 0161), in seconds: what the report states it used.
SELECT extract(epoch FROM direct_window)::bigint AS direct_seconds, extract(epoch FROM influence_window)::bigint AS influence_seconds
FROM apps
WHERE app_id = $1::bigint
