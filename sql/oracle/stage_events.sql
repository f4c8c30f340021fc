-- The rollup oracle stages one day's raw events (app $1, or every app when NULL, in [$2, $3)) for
-- the statements of sql/fresh/, which recompute the rollups in SQL (see sql/fresh/README.md).
-- Conversions count in attribution's tables, not engagement's (docs/outcomes.md): not staged.
INSERT INTO staging_events
SELECT 0, e.*
FROM events e
WHERE ($1::bigint IS NULL OR e.app_id = $1::bigint) AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
  AND e.type <> 'conversion'
