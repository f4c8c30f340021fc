-- `tapwire-bench ingest`: the cluster's WAL insert position in bytes, read before and after each
-- timed segment, so a segment's WAL volume (full-page images included) is a count, not a time.
SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text
