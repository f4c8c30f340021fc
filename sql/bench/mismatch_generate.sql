-- `tapwire-bench mismatches`: deterministic synthetic events (20 registered categories, a case
-- mismatch, a near miss, 30 unknown ones; 6 versions; 3 platforms; delivered, response, sent).
-- $1 app, $2 first row number, $3 rows, $4 total rows, $5 window start, $6 window seconds.
INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, action_identifier,
                    category_registered, app_version, platform)
SELECT $1::bigint, t, gen_random_uuid(), ty, t, t, cat, act, reg, ver, plat
FROM (
    SELECT g,
           $5::timestamptz + make_interval(secs => (g::double precision / $4::bigint) * $6::bigint) AS t,
           (g * 7919) % 1000 AS r1, (g * 104729) % 1000 AS r2, (g * 1299709) % 1000 AS r3
    FROM generate_series($2::bigint, $2::bigint + $3::bigint - 1) g
) s,
LATERAL (SELECT CASE WHEN r1 < 50 THEN 'sent' WHEN r1 < 300 THEN 'response' ELSE 'delivered' END::event_type AS ty) a,
LATERAL (SELECT CASE WHEN ty = 'sent' THEN '' ELSE (ARRAY['3.0','3.1','3.2','3.3','3.4','3.5'])[1 + r2 % 6] END AS ver,
                CASE WHEN r3 < 800 THEN 'iOS' WHEN r3 < 950 THEN 'iPadOS' ELSE 'watchOS' END AS plat,
                CASE WHEN r2 < 970 THEN 'cat_' || lpad(((r3 * 7 + r2) % 20)::text, 2, '0')
                     WHEN r2 < 980 THEN 'Cat_03' WHEN r2 < 985 THEN 'cat07x'
                     ELSE 'unknown_' || (r3 % 30) END AS cat) b,
LATERAL (SELECT CASE WHEN ty <> 'response' THEN NULL
                     WHEN r3 % 10 < 6 THEN 'act_' || (r3 % 3)
                     WHEN r3 % 10 < 8 THEN 'com.apple.UNNotificationDefaultActionIdentifier'
                     WHEN r3 % 10 < 9 THEN 'com.apple.UNNotificationDismissActionIdentifier'
                     ELSE 'act_legacy' END AS act,
                CASE WHEN ty = 'sent' THEN NULL WHEN cat LIKE 'unknown%' THEN false WHEN r1 % 10 = 0 THEN NULL ELSE true END AS reg) c
