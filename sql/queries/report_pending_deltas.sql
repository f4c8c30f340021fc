-- A report's pending deltas (TapwireStore/ReportEdgeEvents.swift): builds the COPY that streams
-- back app $1's batches of deltas not yet folded (rollup_delta_batches, migration 0060) that hold
-- a delta of one of the quarter hours $2 (an array of instants, ISO 8601), without taking them,
-- in the columns the fold takes (sql/queries/take_rollup_delta_batches.sql). In the report's
-- snapshot, the rollups and these batches hold every stored event once between them, so a quarter
-- hour's rollup row and its pending deltas count its events as `events` does (docs/reports.md,
-- "The quarter hour a report cuts"). COPY takes no bind parameters: the database quotes the values
-- into the statement (format %L), and the caller runs it (PostgresConnection.copyOut(built:)). With
-- the app a constant, Citus sends the whole statement to the app's shard.
SELECT format($copy$COPY (
    SELECT app_id, kind, grain, bucket, category, app_version, platform, campaign, variant, has_media, action,
           metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen, os,
           attribution_queued
    FROM rollup_delta_batches
    WHERE app_id = %s AND bucket && %L::timestamptz[]
) TO STDOUT (FORMAT binary)$copy$, $1::bigint, $2::text)
