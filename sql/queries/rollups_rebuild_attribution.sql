-- A rebuilt day's conversions queued for attribution (app $1, or every app when NULL, [$2, $3)):
-- the next fold recomputes their credits from the events and corrects the conversion rollups by
-- the change (migration 0161).
SELECT tapwire_queue_attribution($1::bigint, $2::timestamptz, $3::timestamptz)
