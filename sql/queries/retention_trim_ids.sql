-- One batch of dedup ids received before $1 (at most $2 rows), each batch its own short
-- transaction. The caller repeats until a batch deletes fewer than $2.
WITH doomed AS (
    SELECT app_id, event_id FROM event_ids WHERE received_at < $1::timestamptz LIMIT $2::integer
)
DELETE FROM event_ids e USING doomed d WHERE e.app_id = d.app_id AND e.event_id = d.event_id
