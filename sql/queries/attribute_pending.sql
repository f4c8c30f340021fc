-- Attribution's share of a fold, for one app: recomputes the credits its queued events can change
-- and adds their change to the rollups; returns how many changed (migration 0161). Every part of
-- the queue, under every part's lock, taken first (migration 0328).
SELECT tapwire_attribute_pending($1::bigint)
