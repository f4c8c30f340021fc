-- Step 1 of rebuilding one day: the range sql/queries/rollups_rebuild_events.sql reads (app $1,
-- or every app when NULL, in [$2, $3)), as transaction-local settings. COPY takes no bind
-- parameters; this way the values still travel as parameters, never inside the statement's text.
-- The instants are kept as given (ISO 8601 with an offset; rollups_rebuild_events.sql casts them): the session's
-- own text of a timestamptz depends on its DateStyle and TimeZone (an "IST" would read back as
-- Israel's), which behind a pooler are the server's.
SELECT set_config('tapwire.rebuild_app', coalesce($1::bigint::text, ''), true),
       set_config('tapwire.rebuild_from', $2::text, true),
       set_config('tapwire.rebuild_to', $3::text, true)
