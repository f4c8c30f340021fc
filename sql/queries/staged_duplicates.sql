-- Step 3, only when the claim skipped some ids: the staged ids this transaction did not claim,
-- because they were stored before (by any collector). Rows this transaction inserted carry its
-- transaction id in xmin (the 32-bit xid, which is pg_current_xact_id() modulo 2^32).
SELECT s.seq
FROM staged_ids s
JOIN event_ids e ON e.app_id = s.app_id AND e.event_id = s.event_id
WHERE e.xmin::text::bigint <> pg_current_xact_id()::text::bigint % 4294967296
