-- Rows, distinct ids, and dedup claims without an event row (a claimed id whose event is gone
-- would be lost for good: every retry of it counts as a duplicate).
SELECT (SELECT count(*) FROM events WHERE app_id = $1::bigint),
       (SELECT count(DISTINCT event_id) FROM events WHERE app_id = $1::bigint),
       (SELECT count(*) FROM event_ids i WHERE i.app_id = $1::bigint
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.app_id = i.app_id AND e.event_id = i.event_id))
