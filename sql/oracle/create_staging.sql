-- The rollup oracle's per-session staging table (Sources/TapwireRollupOracle): one day of
-- events, staged by sql/oracle/stage_events.sql for the statements of sql/fresh/ to aggregate.
-- ON COMMIT DELETE ROWS empties it after every transaction.
CREATE TEMP TABLE IF NOT EXISTS staging_events (seq integer NOT NULL, LIKE events) ON COMMIT DELETE ROWS
