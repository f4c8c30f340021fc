-- The hours that hold events of app $1 (every app when NULL): the default range of a rebuild.
SELECT tapwire_hour(min(event_time)), tapwire_hour(max(event_time)) + interval '1 hour'
FROM events WHERE ($1::bigint IS NULL OR app_id = $1::bigint)
