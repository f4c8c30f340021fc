-- Moves the fold's rows from rollup_deltas into the rollup tables (migration 0150); returns the rows moved.
SELECT tapwire_fold_rollups()
