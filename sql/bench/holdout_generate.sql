-- `tapwire-bench holdouts`: one campaign's randomised holdout straight into events, as the sender
-- and the devices would have posted it (docs/holdouts.md, "Cost"): $2 devices of app $1, each
-- assigned once at a uniform instant of [$3, $3 + $4 days), held out with probability $5; a device
-- converts with probability $6 held out, $6 + $7 treated, once, at a uniform instant of its 7-day
-- window cut at the period's end, a purchase of a skewed value. Install ids `holdout-<i>`. Draws
-- from random(): the caller seeds the session (setseed) first, so a run is repeatable.
WITH devices AS MATERIALIZED (
    SELECT i, random() < $5::double precision AS held_out,
           $3::timestamptz + random() * ($4::integer * interval '1 day' - interval '1 second') AS assigned_at,
           random() AS u, random() AS w, random() AS v
    FROM generate_series(1, $2::bigint) AS i
), posted AS (
    SELECT i, 'assignment'::event_type AS type, date_trunc('milliseconds', assigned_at) AS at, held_out, NULL::double precision AS value
    FROM devices
    UNION ALL
    SELECT i, 'conversion'::event_type,
           date_trunc('milliseconds', assigned_at + w * least(interval '7 days', $3::timestamptz + $4::integer * interval '1 day' - assigned_at)),
           NULL, round(exp(3 + 1.1 * sqrt(12) * (v - 0.5))::numeric, 2)::double precision
    FROM devices
    WHERE u < $6::double precision + CASE WHEN held_out THEN 0 ELSE $7::double precision END
)
INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, campaign, held_out, holdout_share,
                    app_version, platform, sdk, device_id, conversion_name, conversion_value, conversion_currency)
SELECT $1::bigint, at, md5(type::text || ':' || i)::uuid, type, at, at, '', CASE WHEN type = 'assignment' THEN 'bench-holdout' END,
       held_out, CASE WHEN type = 'assignment' THEN $5::double precision END, 'backend', 'server', 'bench-sender/1.0',
       'holdout-' || i, CASE WHEN type = 'conversion' THEN 'purchase' END, value, CASE WHEN type = 'conversion' THEN 'EUR' END
FROM posted
