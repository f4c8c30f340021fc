-- Step 2 of reading a report's edge minutes: the raw events of the app and ranges
-- report_edge_events_range.sql set, with the columns of rollups_rebuild_events.sql, streamed back
-- in one COPY to the report, which aggregates them with TapwireCore.RollupDeltas (the one
-- definition of every aggregate; TapwireStore/ReportEdgeEvents.swift). Each range is its own BRIN
-- scan of the partitions it can touch (LATERAL, OFFSET 0: never a join with all of events).
COPY (
    SELECT e.app_id, e.event_time, e.type::text, e.category, e.action_identifier, e.user_text_length, e.has_media,
           e.media_requested, e.category_registered, e.campaign, e.variant, e.delivered_at, e.app_version, e.platform,
           e.os_version
    FROM unnest(current_setting('tapwire.edge_from')::timestamptz[], current_setting('tapwire.edge_to')::timestamptz[]) AS r (lo, hi)
    CROSS JOIN LATERAL (
        SELECT * FROM events
        WHERE app_id = current_setting('tapwire.edge_app')::bigint AND event_time >= r.lo AND event_time < r.hi
        OFFSET 0) e
) TO STDOUT (FORMAT binary)
