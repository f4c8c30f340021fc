-- Step 2 of a group commit (after sql/queries/copy_staged_ids.sql): claims each staged
-- (app_id, event_id) for good, and returns the seq of each staged id it did not claim, because
-- it was stored before (by any collector, at any time). The caller staged them in key order with
-- repeats within the group dropped, so concurrent collectors lock the dedup index in the same
-- order. What was claimed is told by RETURNING, not by the rows' xmin: on Citus a row's xmin is
-- the transaction id of the worker that holds it, not this transaction's (docs/deployment.md,
-- "Where PostgreSQL and Citus differ").
WITH claimed AS (
    INSERT INTO event_ids (app_id, event_id, received_at)
    SELECT app_id, event_id, received_at
    FROM staged_ids
    ON CONFLICT (app_id, event_id) DO NOTHING
    RETURNING app_id, event_id
)
SELECT s.seq
FROM staged_ids s
WHERE NOT EXISTS (SELECT 1 FROM claimed c WHERE c.app_id = s.app_id AND c.event_id = s.event_id)
