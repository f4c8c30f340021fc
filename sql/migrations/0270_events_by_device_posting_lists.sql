-- 0270: events_by_device keyed by the install id alone, so a device's entries share one key and
-- B-tree deduplication stores them as posting lists (6 bytes an event instead of a whole tuple).
-- 0161 keyed it (app_id, device_id, event_time): every event of the real shape then cost an index
-- tuple of about 68 bytes, its WAL record and, at a random device's place in the index, page splits
-- and full-page images after each checkpoint: the largest part of the real shape's extra COPY cost
-- (docs/benchmarks.md, "The real shape's database cost"). Every reader gives both keys and reads
-- one device's events: attribution (0233) and the holdouts (0201) filter them by time on the heap,
-- within the partitions of their range only (the time bounds still prune partitions), and
-- `devices forget` (0202) wants all of them. A device's day of events is a few index pages either way.
DROP INDEX events_by_device;
CREATE INDEX events_by_device ON events (app_id, device_id) WITH (deduplicate_items = on) WHERE device_id IS NOT NULL;
