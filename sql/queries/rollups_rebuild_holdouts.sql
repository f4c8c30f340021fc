-- A rebuilt day's assignments and conversions queued for the holdouts (app $1, or every app when
-- NULL, [$2, $3)): the next fold recomputes their devices' holdout rows (migration 0201).
SELECT tapwire_queue_holdouts($1::bigint, $2::timestamptz, $3::timestamptz)
