-- Per-session staging table for group commit: COPY lands here, then one statement moves the
-- rows that are new into events. ON COMMIT DELETE ROWS empties it after every transaction.
CREATE TEMP TABLE IF NOT EXISTS staging_events (seq integer NOT NULL, LIKE events) ON COMMIT DELETE ROWS
