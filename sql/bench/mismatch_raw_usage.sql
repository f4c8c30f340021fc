-- `tapwire-bench mismatches` baseline: detection's input grouped straight from the raw events.
SELECT app_version, platform, type::text, category, coalesce(action_identifier, ''),
       CASE category_registered WHEN true THEN 1 WHEN false THEN 0 ELSE -1 END,
       count(*), (extract(epoch FROM min(event_time)) * 1000000)::bigint, (extract(epoch FROM max(event_time)) * 1000000)::bigint
FROM events WHERE app_id = $1::bigint AND event_time >= $2::timestamptz AND event_time < $3::timestamptz
  AND type <> 'conversion'
GROUP BY 1, 2, 3, 4, 5, 6
