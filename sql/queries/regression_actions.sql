-- The release-regression check, step 4 (after regression_range.sql): responses per registered
-- action, per UTC day, category, app version and platform, an element per hour of the day
-- (migration 0080), in binary and in the key order of regression_counts.sql.
COPY (
    SELECT day, category, app_version, platform, action, n
    FROM rollup_release_actions
    WHERE app_id = (SELECT current_setting('tapwire.regression_app')::bigint)
      AND day >= (SELECT current_setting('tapwire.regression_from')::timestamptz)
      AND day < (SELECT current_setting('tapwire.regression_to')::timestamptz)
      AND app_version <> ''
    ORDER BY day, category, app_version, platform, action
) TO STDOUT (FORMAT binary)
