-- `tapwire devices forget` and POST /v1/devices/forget: every row holding install id $2 of app
-- $1 removed, a row per table with how many (migration 0170).
SELECT held_in, removed FROM tapwire_forget_device($1::bigint, $2::text)
