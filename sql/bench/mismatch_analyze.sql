-- Fresh planner statistics after a bulk load.
ANALYZE events, mismatch_usage_hourly, mismatch_usage_daily
