-- Moves the pending rollup deltas into the rollup tables (migration 0050); returns the rows moved.
SELECT tapwire_fold_rollup_deltas()
