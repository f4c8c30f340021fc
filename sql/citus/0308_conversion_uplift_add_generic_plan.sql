-- On Citus, migration 0308's statement runs as this one instead (the Migrator swaps it in; the
-- migration's text, and so its checksum, stay as they were applied):
-- replaces: ALTER FUNCTION tapwire_conversion_uplift_add
--
-- Nothing: tapwire_conversion_uplift_add stays as 0303 made it, its plans chosen by the plan cache.
-- Citus makes no distributed plan of the insert's generic plan, whose app is a parameter ("could
-- not create distributed plan", CitusOutcomesTests failed so), as it makes none of 0313's
-- (docs/reports.md, "Staged without WAL, planned once").
SELECT 1
