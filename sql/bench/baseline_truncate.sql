-- Before each timed COPY of `tapwire-bench ingest`: the baseline table emptied, so every round
-- COPYs into the same (empty) uuid-keyed table rather than one grown by every earlier round, its
-- primary key's pages past shared_buffers and its insert-triggered autovacuum running in a later
-- segment.
TRUNCATE bench_copy_baseline
