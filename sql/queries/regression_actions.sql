-- The release-regression check, step 2: builds the COPY of app $1's responses per registered
-- action, per UTC day in [$2, $3), category, app version and platform, an element per hour of the
-- day (migration 0080), in binary and in the key order of regression_counts.sql (which says how
-- the statement is built and why).
SELECT format($copy$COPY (
    SELECT day, category, app_version, platform, action, n
    FROM rollup_release_actions
    WHERE app_id = %s AND day >= %L::timestamptz AND day < %L::timestamptz AND app_version <> ''
    ORDER BY day, category, app_version, platform, action
) TO STDOUT (FORMAT binary)$copy$, $1::bigint, $2::text, $3::text)
