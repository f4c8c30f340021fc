-- Before a report's edge COPY (report_edge_events.sql; TapwireStore/ReportEdgeEvents.swift): its
-- minutes are read through the BRIN index, never by a sequential scan of the day. A partition
-- autovacuum has not analysed yet (today's, filling under load) has no correlation statistics,
-- so the planner prices the index as reading every page and scanned the whole day instead:
-- 27,000-32,000 buffers and 250-450 ms a report for events that were not there (docs/reports.md,
-- "The edge read of a day never analysed"). SET LOCAL, undone by report_edge_index_scans_end.sql.
SET LOCAL enable_seqscan = off
