-- The rollup oracle stages one day's raw events (app $1, or every app when NULL, in [$2, $3)) for
-- the statements of sql/fresh/, which recompute the rollups in SQL (see sql/fresh/README.md).
-- Conversions and assignments are not engagement: attribution and the holdouts count them
-- (docs/outcomes.md, docs/holdouts.md), as TapwireCore.RollupDeltas leaves them out.
INSERT INTO staging_events
SELECT 0, e.*
FROM events e
WHERE ($1::bigint IS NULL OR e.app_id = $1::bigint) AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
  AND e.type NOT IN ('conversion', 'assignment')
