-- Before a rebuild's first day: the session's table that stages each day's rows (migration
-- 0313), the columns of rollup_deltas, emptied at every commit. Temporary, so never logged: the
-- rows live only in the day's transaction, which replaces the day's stored rows with them
-- (rollups_rebuild_replace.sql). Kept if the session made it already (an earlier rebuild).
CREATE TEMPORARY TABLE IF NOT EXISTS tapwire_rebuild_rows (LIKE rollup_deltas) ON COMMIT DELETE ROWS
