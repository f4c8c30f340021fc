-- Fresh planner statistics after a bulk load.
ANALYZE events
