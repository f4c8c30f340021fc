-- The release-regression check, step 3: responses per registered action, per UTC day in [$2, $3),
-- category, app version and platform, an element per hour of the day (migration 0080).
SELECT (extract(epoch FROM day) * 1000000)::bigint, category, app_version, platform, action, n::text
FROM rollup_release_actions
WHERE app_id = $1::bigint AND day >= $2::timestamptz AND day < $3::timestamptz AND app_version <> ''
