-- The release-regression check, step 3: builds the COPY of app $1's deliveries, opens,
-- dismissals and replies per UTC day in [$2, $3), category, app version and platform, an element
-- per hour of the day (migration 0080), in binary: 24-element arrays travel as 8-byte integers
-- instead of being printed and parsed as text, which cost more than reading them. In key order,
-- the order of regression_actions.sql, so the two are merged without a hash. The caller drops
-- the hours at or after the end of the last look. COPY takes no bind parameters: the database
-- quotes the values into the statement (format %L; PostgresConnection.copyOut(built:)), so the
-- range is a constant the primary key's index can use, and on Citus the read goes to the app's
-- shard only. The instants are quoted as given (ISO 8601 with an offset).
SELECT format($copy$COPY (
    SELECT day, category, app_version, platform, delivered, opens, dismissals, replies
    FROM rollup_release_counts
    WHERE app_id = %s AND day >= %L::timestamptz AND day < %L::timestamptz AND app_version <> ''
    ORDER BY day, category, app_version, platform
) TO STDOUT (FORMAT binary)$copy$, $1::bigint, $2::text, $3::text)
