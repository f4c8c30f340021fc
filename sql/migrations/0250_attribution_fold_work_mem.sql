-- 0250: attribution's fold sorts in memory. tapwire_attribute_pending (0161, 0190, 0233) orders
-- every queued device's taps, deliveries and conversions three times (the rule's window pass,
-- docs/outcomes.md "What a fold costs"); a fold of the outcomes benchmark's 100 devices is
-- about 49,000 rows of 180 bytes, past the default work_mem of 4 MB, so its first sort went to
-- disk (EXPLAIN ANALYZE: "external merge  Disk: 7512kB") on every fold. 32 MB holds about
-- 180,000 such rows, a fold of about 370 devices of 500 events, in memory; it applies to this
-- function's statements only, as its enable_seqscan and jit settings do.
ALTER FUNCTION tapwire_attribute_pending(bigint) SET work_mem = '32MB';
