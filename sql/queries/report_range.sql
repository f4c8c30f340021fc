-- Local-day edges in time zone $1 (an unknown zone fails with SQLSTATE 22023): the midnight
-- starting day $2, the midnight ending day $3 (so a --to date is inclusive), and the midnight
-- starting the day $4 - 1 days before today (--since N days ends with today). NULL in, NULL out.
SELECT ($2::date::timestamp AT TIME ZONE $1::text) AS from_start,
       (($3::date + 1)::timestamp AT TIME ZONE $1::text) AS to_end,
       (((now() AT TIME ZONE $1::text)::date - ($4::integer - 1))::timestamp AT TIME ZONE $1::text) AS since_start,
       now() AS now
