-- The release-regression check, step 2: an app's deliveries, opens, dismissals and replies per
-- UTC day in [$2, $3), category, app version and platform, an element per hour of the day
-- (migration 0080). The caller drops the hours at or after the end of the last look.
SELECT (extract(epoch FROM day) * 1000000)::bigint, category, app_version, platform,
       delivered::text, opens::text, dismissals::text, replies::text
FROM rollup_release_counts
WHERE app_id = $1::bigint AND day >= $2::timestamptz AND day < $3::timestamptz AND app_version <> ''
