-- The holdouts of a report (app $1, range [$2, $3)): every campaign with an assignment in the
-- range, and each of its UTC days before the range's end, per arm (rollup_holdouts, migration
-- 0201; docs/holdouts.md). `shares` lists every holdout share the campaign's assignments stated;
-- `conversion_window` is the campaign's, else the app's.
WITH campaigns AS (
    SELECT DISTINCT campaign
    FROM rollup_holdouts
    WHERE app_id = $1::bigint AND day >= tapwire_utc_day($2::timestamptz) AND day < $3::timestamptz AND assigned <> 0
), shares AS (
    SELECT r.campaign, string_agg(DISTINCT r.holdout_share::text, ',') AS shares
    FROM rollup_holdouts r JOIN campaigns c USING (campaign)
    WHERE r.app_id = $1::bigint AND r.day < $3::timestamptz AND r.assigned <> 0
    GROUP BY r.campaign
)
SELECT r.campaign, to_char(r.day AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, r.held_out,
       sum(r.assigned) AS assigned, sum(r.converted) AS converted, sum(r.value_sum) AS value_sum,
       sum(r.value_sq) AS value_sq, sum(r.value_cube) AS value_cube, s.shares,
       (SELECT coalesce(h.conversion_window, a.holdout_window)::text
        FROM apps a LEFT JOIN holdout_campaigns h ON h.app_id = a.app_id AND h.campaign = r.campaign
        WHERE a.app_id = $1::bigint) AS conversion_window
FROM rollup_holdouts r
JOIN shares s USING (campaign)
WHERE r.app_id = $1::bigint AND r.day < $3::timestamptz
GROUP BY r.campaign, r.day, r.held_out, s.shares
ORDER BY r.campaign, r.day, r.held_out
