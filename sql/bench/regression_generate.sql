-- `tapwire-bench regressions`: deterministic synthetic events in which version, platform,
-- category and response are drawn independently (each from PostgreSQL's 64-bit hash of the row
-- number with its own seed; a multiplicative hash would tie them together within an hour), so
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
           (hashint8extended(g, 1) & 1048575) % 1000 AS r1, (hashint8extended(g, 2) & 1048575) % 1000 AS r2,
           (hashint8extended(g, 3) & 1048575) % 1000 AS r3, (hashint8extended(g, 4) & 1048575) % 1000 AS r4,
           (hashint8extended(g, 5) & 1048575) % 1000 AS r5
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
