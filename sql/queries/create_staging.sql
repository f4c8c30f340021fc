-- Per-session staging table of `tapwire rollups rebuild`: one day of events, staged by
-- sql/queries/rollups_rebuild_stage.sql for the statements of sql/fresh/ to aggregate.
-- ON COMMIT DELETE ROWS empties it after every transaction.
CREATE TEMP TABLE IF NOT EXISTS staging_events (seq integer NOT NULL, LIKE events) ON COMMIT DELETE ROWS
