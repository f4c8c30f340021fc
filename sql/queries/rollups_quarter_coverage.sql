-- After a rebuilt day [$2, $3) of app $1 (every app when NULL), in the same transaction: the
-- quarter-hour grain (migration 0100) of an app is complete from the day's start if it was
-- complete from the day's end or earlier. A rebuild goes back in time a day at a time
-- (TapwireStore/RollupStore.swift), so a rebuild of the days since the migration makes every
-- one of them complete; a day that did not join up (a gap not rebuilt) moves nothing.
UPDATE rollup_quarter_coverage
SET complete_from = $2::timestamptz
WHERE ($1::bigint IS NULL OR app_id = $1::bigint)
  AND complete_from <= $3::timestamptz AND complete_from > $2::timestamptz
