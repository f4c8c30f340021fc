-- `tapwire-bench ingest`, before measuring: a transaction that writes a commit record, so the
-- switch that follows (wal_switch.sql) has something to close its WAL segment on.
SELECT txid_current()
