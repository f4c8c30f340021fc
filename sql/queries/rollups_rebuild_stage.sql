-- Rebuilding one day, in its transaction, before its rows are COPYed (copy_rollup_rebuild_rows.sql): the
-- table that stages them (migration 0313), the columns of rollup_deltas, emptied at every commit. Temporary,
-- so never logged: the rows live only in the day's transaction, which replaces the day's stored
-- rows with them (rollups_rebuild_replace.sql). Kept if the session made it already (an earlier
-- day, or an earlier rebuild); made in each day's transaction because behind a pooler in
-- transaction mode each may run in another server session.
CREATE TEMPORARY TABLE IF NOT EXISTS tapwire_rebuild_rows (LIKE rollup_deltas) ON COMMIT DELETE ROWS
