-- The apps with work for attribution's share of the fold, in order, each taken once: whether
-- changes of delivered in strata wait to be added to the conversions in them (migration 0180),
-- and whether their commits queued events to attribute (migration 0161). Both take the app's
-- attribution lock, so one pass in app order keeps concurrent folds from waiting on each other
-- in a circle.
SELECT app_id, bool_or(delivered) AS delivered, bool_or(queued) AS queued
FROM (SELECT DISTINCT app_id, true AS delivered, false AS queued FROM conversion_strata_pending
      UNION ALL
      SELECT DISTINCT app_id, false, true FROM attribution_pending) work
GROUP BY app_id
ORDER BY app_id
