-- The apps with a holdout assignment on a UTC day since $1: those the sample-ratio family's
-- monitor scan looks at (docs/holdouts.md).
SELECT a.app_id, a.name
FROM apps a
WHERE EXISTS (SELECT 1 FROM rollup_holdouts r WHERE r.app_id = a.app_id AND r.day >= tapwire_utc_day($1::timestamptz) AND r.assigned <> 0)
ORDER BY a.app_id
