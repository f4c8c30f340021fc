-- Step 3 of rebuilding one day (after rollups_rebuild_events.sql and the COPY of the day's rows
-- into the session's tapwire_rebuild_rows, copy_rollup_rebuild_rows.sql): makes the stored rows
-- of [$2, $3) (whole UTC days) for app $1, or every app when $1 is NULL, exactly the day's rows,
-- writing only what changed, and bumps the rebuild generation (tapwire_replace_rollups,
-- migrations 0310, 0311, 0313). The blocks of days that hold the day are made again from their
-- days' rows once the day is done (rollups_rebuild_blocks.sql).
SELECT tapwire_replace_rollups($1::bigint, $2::timestamptz, $3::timestamptz, 'tapwire_rebuild_rows'::regclass)
