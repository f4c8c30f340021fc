-- The release-regression check, step 3 (after regression_range.sql): an app's deliveries, opens,
-- dismissals and replies per UTC day, category, app version and platform, an element per hour of
-- the day (migration 0080), in binary: 24-element arrays travel as 8-byte integers instead of
-- being printed and parsed as text, which cost more than reading them. In key order, the order
-- of regression_actions.sql, so the two are merged without a hash. The caller drops the hours at
-- or after the end of the last look. Each setting is read once, in a sub-select, so the range
-- is a parameter the primary key's index can use (cast per row, it made a sequential scan).
COPY (
    SELECT day, category, app_version, platform, delivered, opens, dismissals, replies
    FROM rollup_release_counts
    WHERE app_id = (SELECT current_setting('tapwire.regression_app')::bigint)
      AND day >= (SELECT current_setting('tapwire.regression_from')::timestamptz)
      AND day < (SELECT current_setting('tapwire.regression_to')::timestamptz)
      AND app_version <> ''
    ORDER BY day, category, app_version, platform
) TO STDOUT (FORMAT binary)
