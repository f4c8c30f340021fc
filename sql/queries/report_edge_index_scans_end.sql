-- After a report's edge COPY: the transaction's later reads planned as before
-- (report_edge_index_scans.sql).
SET LOCAL enable_seqscan TO DEFAULT
