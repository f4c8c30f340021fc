-- Step 1 of rebuilding one day: the range sql/queries/rollups_rebuild_events.sql reads (app $1,
-- or every app when NULL, in [$2, $3)), as transaction-local settings. COPY takes no bind
-- parameters; this way the values still travel as parameters, never inside the statement's text.
SELECT set_config('tapwire.rebuild_app', coalesce($1::bigint::text, ''), true),
       set_config('tapwire.rebuild_from', $2::timestamptz::text, true),
       set_config('tapwire.rebuild_to', $3::timestamptz::text, true)
