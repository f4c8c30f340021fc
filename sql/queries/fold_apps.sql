-- The apps sql/queries/take_rollup_delta_batches.sql takes next, as a comma-separated list of
-- app ids, for the rest of the fold's transaction.
SELECT set_config('tapwire.fold_apps', $1, true)
