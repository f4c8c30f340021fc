-- Every conversion of app $1 in [$2, $3) by its own time, name, currency and kind, from
-- conversion_credits. With a filter ($4, campaign or platform only), the conversions credited to
-- a notification that passes it (an unattributed one has no campaign or platform, so none passes).
SELECT c.name, c.currency, c.kind, count(*)::bigint AS conversions, sum(c.value) AS value_sum
FROM conversion_credits c
WHERE c.app_id = $1::bigint AND c.event_time >= $2::timestamptz AND c.event_time < $3::timestamptz
  AND ((SELECT bool_and(f IS NULL) FROM unnest($4::text[]) AS f)
       OR tapwire_event_matches($4::text[], NULL, c.platform, c.campaign, NULL, NULL))
GROUP BY 1, 2, 3
