-- Local-day edges in time zone $1 (an unknown zone fails with SQLSTATE 22023): the midnight
-- starting day $2, the midnight ending day $3 (so a --to date is inclusive), and the midnight
-- starting the day $4 - 1 days before today (--since N days ends with today). NULL in, NULL out.
-- Instants as microseconds since the Unix epoch: the same whatever the session's TimeZone and
-- DateStyle (behind a pooler they are the server's).
SELECT (extract(epoch FROM $2::date::timestamp AT TIME ZONE $1::text) * 1000000)::bigint AS from_start,
       (extract(epoch FROM ($3::date + 1)::timestamp AT TIME ZONE $1::text) * 1000000)::bigint AS to_end,
       (extract(epoch FROM ((now() AT TIME ZONE $1::text)::date - ($4::integer - 1))::timestamp AT TIME ZONE $1::text) * 1000000)::bigint AS since_start,
       (extract(epoch FROM now()) * 1000000)::bigint AS now
