-- The apps with a holdout assignment on a UTC day since $1: those the sample-ratio family's
-- monitor scan looks at (docs/holdouts.md). A probe per app (tapwire_app_has_holdouts_since,
-- migration 0219, which says why it is a function).
SELECT a.app_id, a.name
FROM apps a
WHERE tapwire_app_has_holdouts_since(a.app_id, $1::timestamptz)
ORDER BY a.app_id
