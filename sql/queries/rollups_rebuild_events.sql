-- Step 2 of rebuilding one day (after the lock and the fold of what was pending): builds the COPY that streams
-- back the raw events of app $1 (every app when NULL) in [$2, $3), with the columns
-- TapwireCore.RollupDeltas reads, to `tapwire rollups rebuild`, which recomputes the rollups with
-- the code the group commits use (TapwireStore/RollupStore.swift). COPY takes no bind
-- parameters: the database quotes the values into the statement (format %L), and the caller runs
-- it (PostgresConnection.copyOut(built:)); on Citus a rebuild of one app then reads its shard
-- only. The instants are quoted as given (ISO 8601 with an offset) and cast where they are read:
-- the session's own text of a timestamptz depends on its DateStyle and TimeZone (an "IST" would
-- read back as Israel's), which behind a pooler are the server's.
SELECT format($copy$COPY (
    SELECT app_id, event_time, type::text, category, action_identifier, user_text_length, has_media,
           media_requested, category_registered, campaign, variant, delivered_at, app_version, platform, os_version
    FROM events
    WHERE %s event_time >= %L::timestamptz AND event_time < %L::timestamptz AND type NOT IN ('conversion', 'assignment')
) TO STDOUT (FORMAT binary)$copy$,
    CASE WHEN $1::bigint IS NULL THEN '' ELSE format('app_id = %s AND', $1::bigint) END, $2::text, $3::text)
