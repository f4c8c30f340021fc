-- The COPY baseline of `tapwire-bench ingest`: a plain table with the columns of events and a
-- uuid primary key, which the same rows the collector gets are COPYed into.
CREATE TABLE bench_copy_baseline (LIKE events INCLUDING DEFAULTS, PRIMARY KEY (event_id))
