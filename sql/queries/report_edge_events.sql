-- A report's edge minutes (TapwireStore/ReportEdgeEvents.swift): builds the COPY that streams
-- back the raw events of app $1 in the ranges [$2[i], $3[i]) (arrays of instants, ISO 8601), with
-- the columns of rollups_rebuild_events.sql, to the report, which aggregates them with
-- TapwireCore.RollupDeltas (the one definition of every aggregate). COPY takes no bind
-- parameters: the database quotes the values into the statement (format %L), and the caller
-- runs it (PostgresConnection.copyOut(built:)). With the app a constant, Citus sends the whole
-- statement to the app's shard. Each range is its own BRIN scan of the partitions it can touch
-- (LATERAL, OFFSET 0: never a join with all of events).
SELECT format($copy$COPY (
    SELECT e.app_id, e.event_time, e.type::text, e.category, e.action_identifier, e.user_text_length, e.has_media,
           e.media_requested, e.category_registered, e.campaign, e.variant, e.delivered_at, e.app_version, e.platform,
           e.os_version
    FROM unnest(%L::timestamptz[], %L::timestamptz[]) AS r (lo, hi)
    CROSS JOIN LATERAL (
        SELECT * FROM events
        WHERE app_id = %s AND event_time >= r.lo AND event_time < r.hi AND type NOT IN ('conversion', 'assignment')
        OFFSET 0) e
) TO STDOUT (FORMAT binary)$copy$, $2::text, $3::text, $1::bigint)
