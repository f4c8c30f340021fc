-- The holdouts' share of a fold, for one app: recomputes its queued devices' holdout rows and adds
-- their change to rollup_holdouts; returns how many changed (migration 0201).
SELECT tapwire_holdouts_pending($1::bigint)
