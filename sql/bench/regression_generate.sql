-- `tapwire-bench regressions`: deterministic synthetic events in which version, platform,
-- category and response are drawn independently (each from its own hash of the row number), so
-- every category × version × platform × hour has rows: 20 categories of three actions (act_0 a
-- text-input one in every fifth category), six versions delivering every hour, three platforms;
-- delivered, response and backend `sent` events. In 3.5, category cat_07's act_1 is broken: its
-- taps become opens. $1 app, $2 first row number, $3 rows, $4 total rows, $5 window start,
-- $6 window seconds.
INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, action_identifier,
                    category_registered, app_version, platform, user_text_length)
SELECT $1::bigint, t, gen_random_uuid(), ty, t, t, cat, act, CASE WHEN ty = 'sent' THEN NULL ELSE true END, ver, plat,
       CASE WHEN act = 'act_0' AND cat IN ('cat_00', 'cat_05', 'cat_10', 'cat_15') THEN 12 END
FROM (
    SELECT $5::timestamptz + make_interval(secs => (g::double precision / $4::bigint) * $6::bigint) AS t,
           (g * 7919) % 1000 AS r1, (g * 104729) % 997 AS r2, (g * 1299709) % 991 AS r3, (g * 15485863) % 983 AS r4,
           (g * 32452843) % 977 AS r5
    FROM generate_series($2::bigint, $2::bigint + $3::bigint - 1) g
) s,
LATERAL (SELECT CASE WHEN r1 < 50 THEN 'sent' WHEN r1 < 300 THEN 'response' ELSE 'delivered' END::event_type AS ty) a,
LATERAL (SELECT CASE WHEN ty = 'sent' THEN '' ELSE (ARRAY['3.0','3.1','3.2','3.3','3.4','3.5'])[1 + r2 % 6] END AS ver,
                CASE WHEN r3 < 790 THEN 'iOS' WHEN r3 < 940 THEN 'iPadOS' ELSE 'watchOS' END AS plat,
                'cat_' || lpad((r4 % 20)::text, 2, '0') AS cat) b,
LATERAL (SELECT CASE WHEN ty <> 'response' THEN NULL
                     WHEN r5 % 10 < 6 THEN CASE WHEN ver = '3.5' AND cat = 'cat_07' AND r5 % 3 = 1
                                                THEN 'com.apple.UNNotificationDefaultActionIdentifier' ELSE 'act_' || (r5 % 3) END
                     WHEN r5 % 10 < 9 THEN 'com.apple.UNNotificationDefaultActionIdentifier'
                     ELSE 'com.apple.UNNotificationDismissActionIdentifier' END AS act) c
