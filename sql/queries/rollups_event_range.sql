-- The hours that hold events of app $1 (every app when NULL): the default range of a rebuild.
SELECT (extract(epoch FROM tapwire_hour(min(event_time))) * 1000000)::bigint,
       (extract(epoch FROM tapwire_hour(max(event_time)) + interval '1 hour') * 1000000)::bigint
FROM events WHERE ($1::bigint IS NULL OR app_id = $1::bigint)
