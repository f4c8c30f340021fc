-- The report benchmark's data: $3 synthetic events of app $1 spread over the 30 days from $2,
-- written straight into events (no HTTP, no dedup table), deterministic for seed $4 (0…1).
-- 80% delivered, 17% responses, 3% sent; 8 categories, 3 app versions, 2 platforms,
-- 4 campaigns (and none) with 2 variants, half of them rich.
WITH seeded AS (SELECT setseed($4::float8)),
g AS (
    SELECT i, r1, r2, r3, r4, r5,
           $2::timestamptz + (i::float8 / $3::bigint) * interval '30 days' AS t
    FROM seeded, LATERAL (
        SELECT i, random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5
        FROM generate_series(1, $3::bigint) i) x
)
INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, action_identifier,
                    user_text_length, has_media, media_types, media_requested, category_registered, campaign, variant,
                    delivered_at, app_version, platform)
SELECT $1::bigint, t, gen_random_uuid(),
       (CASE WHEN r1 < 0.80 THEN 'delivered' WHEN r1 < 0.97 THEN 'response' ELSE 'sent' END)::event_type,
       t, t,
       (ARRAY['message', 'social_post', 'promo', 'news', 'reminder', 'order_update', 'chat', 'digest'])[1 + (r2 * 8)::int % 8],
       CASE WHEN r1 >= 0.80 AND r1 < 0.97 THEN
           (ARRAY['com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDefaultActionIdentifier',
                  'com.apple.UNNotificationDismissActionIdentifier', 'reply', 'like', 'shop_now'])[1 + (r3 * 6)::int % 6]
       END,
       CASE WHEN r1 >= 0.80 AND r1 < 0.97 AND 1 + (r3 * 6)::int % 6 = 4 THEN 1 + (r4 * 120)::int END,
       r5 < 0.5, CASE WHEN r5 < 0.5 THEN 1 ELSE 0 END, r5 < 0.55, true,
       (ARRAY['winter-sale', 'spring', 'onboarding', 'reengage', NULL])[1 + (r4 * 5)::int % 5],
       CASE WHEN r4 < 0.8 THEN (ARRAY['A', 'B'])[1 + (r3 * 2)::int % 2] END,
       CASE WHEN r1 >= 0.80 AND r1 < 0.97 THEN t - exp(r4 * 10) * interval '1 second' END,
       (ARRAY['3.2.1', '3.2.0', '3.1.0'])[1 + (r5 * 3)::int % 3],
       CASE WHEN r2 * 10 - floor(r2 * 10) < 0.9 THEN 'iOS' ELSE 'watchOS' END
FROM g
