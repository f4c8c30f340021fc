-- 0271: a device's events are read through events_by_device, never through the time BRIN index.
-- With 0270's key (app_id, device_id), the planner may take the BRIN index of (app_id, event_time)
-- for attribution's per-device read of a partition whose statistics predate its rows (today's,
-- while it fills): a bitmap heap scan of every event of the app in the device's time range, for
-- each queued device. Seen in the outcomes benchmark (auto_explain, docs/benchmarks.md "The real
-- shape's database cost"): one fold's read of 880 devices took 35.6 s instead of well under one.
-- The BRIN index is reached only by bitmap scans, so without them the per-device read is an index
-- scan of events_by_device whatever the statistics say. Both functions' other reads are by btree
-- keys; attribution's read of conversions without an install id (device_id IS NULL, outside
-- events_by_device) has only disabled paths then (enable_seqscan is off in it already), and keeps
-- the cheaper, the BRIN index's. As 0250's work_mem, for these functions' statements only.
ALTER FUNCTION tapwire_attribute_pending(bigint) SET enable_bitmapscan = off;
ALTER FUNCTION tapwire_holdouts_pending(bigint) SET enable_bitmapscan = off;
