-- Fresh planner statistics for every table after a bulk load and a rebuild (the benchmark's own
-- scratch database).
ANALYZE
