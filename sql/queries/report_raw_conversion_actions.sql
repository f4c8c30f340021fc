-- Direct conversions by the action of the tap before them, from conversion_credits over the range
-- [$2, $3) of app $1 by the tap's time, by --by group ($5) and category (see
-- report_raw_conversions.sql for $4 and $5).
SELECT tapwire_dimension_value($5::text, NULL, c.platform, c.campaign, NULL, NULL) AS group_value, c.category,
    c.action_identifier AS action, c.name, count(*)::bigint AS direct
FROM conversion_credits c
WHERE c.app_id = $1::bigint AND c.kind = 1 AND c.touch_time >= $2::timestamptz AND c.touch_time < $3::timestamptz
  AND tapwire_event_matches($4::text[], NULL, c.platform, c.campaign, NULL, NULL)
GROUP BY 1, 2, 3, 4
