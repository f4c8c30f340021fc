-- App $1's attribution windows, in seconds (migration 0161).
SELECT extract(epoch FROM direct_window)::bigint AS direct_seconds, extract(epoch FROM influence_window)::bigint AS influence_seconds
FROM apps WHERE app_id = $1::bigint
