-- 0329: three cuts of tapwire_attribute_pending's work, each giving the same rows (issue 35;
-- docs/outcomes.md, "Fewer copies in the fold (migration 0329, branch attrib11)"). The body is
-- 0328's, its settings restated, with the lines marked 0329:
--
-- 1. The notifications' rows (tapwire_notification_change, from the fold's changes and, for keys
--    with a stored row, from the stored credits) in one sort: each (device, notification, name,
--    currency) took six ordered aggregates, `(array_agg(x ORDER BY event_time, event_id))[1]`,
--    and PostgreSQL 15 sorts each ordered aggregate of each group apart (six small sorts a key).
--    Now one sort by the key, then time and event id: the first row of each key (DISTINCT ON)
--    gives the touch's day, category, side, campaign, platform and the first credit's kind, and
--    a window over the whole key (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING,
--    ordered as the sort, so no second sort) its counts by kind and its sum of values. A key's
--    rows differ in event id (one credit a conversion event), so its first row in (time, event
--    id) order is one row, the one each array_agg(…)[1] took its element from; counts and a
--    numeric sum do not depend on order.
-- 2. The touch table is no longer read back and deleted from for the conversions: they stay in
--    it after their copy to tapwire_attribution_conversion. Every read of it in the rule takes
--    taps (`engaged`, false for a conversion) or deliveries (`type = 'delivered'`) only, and the
--    delete's dead rows were read by the rule's scans all the same.
-- 3. The touch table's notification_key is left NULL by the read: it is coalesce(notification_id,
--    'event:' || event_id) of the same row, made now in the rule for the credited taps and
--    deliveries alone (about one a conversion) instead of for every event read (about ten a
--    conversion); a row that carries a key (none written by this function) keeps it.
--
-- Same signature and scratch tables, so older collectors run it; the rule's plan keeps one window
-- and hash joins only (AttributionRulePlanTests).
CREATE OR REPLACE FUNCTION tapwire_attribute_pending(p_app bigint, p_part integer) RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off SET jit = off SET work_mem = '32MB' SET enable_bitmapscan = off
SET enable_nestloop = on SET enable_mergejoin = on SET enable_indexscan = on AS $fn$
DECLARE
    v_direct    interval;
    v_influence interval;
    v_horizon   interval;
    v_changed   bigint;
    v_ids       uuid[];
    v_zero      tid[];
    v_devices   text[];
    v_keys      text[];
    v_names     text[];
    v_currencies text[];
    v_parts     bigint := tapwire_attribution_parts(); -- 0328
BEGIN
    PERFORM tapwire_attribution_lock(p_app, p_part); -- 0328: the part's lock, or every part's in order
    SELECT direct_window, influence_window INTO v_direct, v_influence FROM apps WHERE app_id = p_app;
    IF NOT FOUND THEN
        DELETE FROM attribution_pending WHERE app_id = p_app AND (p_part IS NULL OR part = p_part); -- 0328
        RETURN 0;
    END IF;
    v_horizon := greatest(v_direct, v_influence);

    -- Scratch tables of this transaction (kept for the session, emptied at commit).
    CREATE TEMP TABLE IF NOT EXISTS tapwire_attribution_queue (
        device_id text, event_time timestamptz, converted boolean
    ) ON COMMIT DELETE ROWS;
    CREATE TEMP TABLE IF NOT EXISTS tapwire_attribution_span (
        device_id text, from_time timestamptz, to_time timestamptz, first_conversion timestamptz, last_conversion timestamptz
    ) ON COMMIT DELETE ROWS;
    CREATE TEMP TABLE IF NOT EXISTS tapwire_attribution_conversion (
        event_id uuid, event_time timestamptz, device_id text, notification_id text, name text, currency text, value numeric
    ) ON COMMIT DELETE ROWS;
    -- A device's events the rule reads: its taps and deliveries, and its conversions (copied to
    -- the table above, and since 0329 left here), whose name then sits in action_identifier, with
    -- their currency and value, and whether a queued event can change their credit. Since 0329
    -- notification_key is left NULL by the read (the rule makes it for the credited rows).
    CREATE TEMP TABLE IF NOT EXISTS tapwire_attribution_touch (
        device_id text, event_id uuid, event_time timestamptz, type event_type, engaged boolean, notification_key text,
        notification_id text, category text, has_media boolean, campaign text, platform text, action_identifier text,
        currency text, value float8, affected boolean
    ) ON COMMIT DELETE ROWS;
    CREATE TEMP TABLE IF NOT EXISTS tapwire_credit_change (
        sign smallint, event_id uuid, event_time timestamptz, device_id text, name text, currency text,
        value numeric, kind smallint, notification_key text, touch_time timestamptz, category text,
        has_media boolean, campaign text, platform text, action_identifier text
    ) ON COMMIT DELETE ROWS;
    -- Empty at a transaction's first call: the last commit emptied them in place (ON COMMIT
    -- DELETE ROWS), so nothing is done, and they keep their files and the function its plans. A
    -- fold of several apps calls this once per app in one transaction: a later call truncates
    -- what the previous app left, which gives the tables new files once in the transaction (a
    -- TRUNCATE of a table truncated earlier in the transaction is done in place). Not DELETE:
    -- its dead rows stayed until the commit, read by every later scan of the fold (0305).
    IF EXISTS (SELECT FROM tapwire_attribution_queue) OR EXISTS (SELECT FROM tapwire_attribution_span)
       OR EXISTS (SELECT FROM tapwire_attribution_conversion) OR EXISTS (SELECT FROM tapwire_attribution_touch)
       OR EXISTS (SELECT FROM tapwire_credit_change) THEN
        TRUNCATE tapwire_attribution_queue, tapwire_attribution_span, tapwire_attribution_conversion, tapwire_attribution_touch, tapwire_credit_change;
    END IF;

    -- The queued events: an install id (NULL: a conversion posted without one), a time, and
    -- whether it is a conversion's.
    WITH taken AS (
        DELETE FROM attribution_pending WHERE app_id = p_app AND (p_part IS NULL OR part = p_part) -- 0328
        RETURNING device_ids, event_times, conversions
    )
    INSERT INTO tapwire_attribution_queue
    SELECT u.device_id, u.event_time, u.conversion
    FROM taken, unnest(taken.device_ids, taken.event_times, taken.conversions) AS u (device_id, event_time, conversion);

    -- 0328: an older collector queues every device in part 0. Part 0's call that finds a device
    -- of another part takes every part's lock before writing anything (in order: part 0's, which
    -- it holds, is the first), so it never attributes a device beside that device's part. Only
    -- part 0 can hold another part's devices (commits and tapwire_queue_attribution split by
    -- the hash).
    IF p_part IS NOT DISTINCT FROM 0
       AND EXISTS (SELECT FROM tapwire_attribution_queue
                   WHERE (hashtextextended(device_id, 0) % v_parts + v_parts) % v_parts <> 0) THEN
        PERFORM tapwire_attribution_lock(p_app, NULL);
    END IF;

    -- Conversions without an install id: unattributed.
    INSERT INTO tapwire_credit_change
    SELECT 1, e.event_id, e.event_time, NULL, e.conversion_name, coalesce(e.conversion_currency, ''),
           coalesce(e.conversion_value::numeric, 0), 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM (SELECT DISTINCT event_time FROM tapwire_attribution_queue WHERE device_id IS NULL AND converted) t
    CROSS JOIN LATERAL (
        SELECT e.* FROM events e
        WHERE e.app_id = p_app AND e.event_time = t.event_time AND e.type = 'conversion' AND e.device_id IS NULL
        OFFSET 0
    ) e;

    -- Each device, from its earliest queued time to its latest, and the span of its queued
    -- conversions.
    INSERT INTO tapwire_attribution_span
    SELECT device_id, min(event_time), max(event_time), min(event_time) FILTER (WHERE converted),
           max(event_time) FILTER (WHERE converted)
    FROM tapwire_attribution_queue
    WHERE device_id IS NOT NULL
    GROUP BY device_id;

    -- The devices that converted, and the span of their new conversions.
    INSERT INTO attribution_devices AS d (app_id, device_id, first_conversion, last_conversion)
    SELECT p_app, device_id, first_conversion, last_conversion FROM tapwire_attribution_span
    WHERE first_conversion IS NOT NULL
    ORDER BY device_id
    ON CONFLICT (app_id, device_id) DO UPDATE
        SET first_conversion = least(d.first_conversion, excluded.first_conversion),
            last_conversion = greatest(d.last_conversion, excluded.last_conversion);

    -- The conversions an event queued can change (of a device that converted, from the event's
    -- time to the longer window after it), and the taps and deliveries they can be credited to
    -- (the longer window before them): one read of events_by_device per such device, in the
    -- partitions of its range only (OFFSET 0 keeps the read per device: the planner cannot know
    -- how few devices there are, and would scan every conversion).
    INSERT INTO tapwire_attribution_touch
    SELECT e.device_id, e.event_id, e.event_time, e.type,
           e.type = 'response' AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier',
           NULL, -- 0329: the notification's key is made in the rule, for the credited taps and deliveries alone
           e.notification_id, e.category, e.has_media, coalesce(e.campaign, ''), e.platform,
           CASE WHEN e.type = 'conversion' THEN e.conversion_name ELSE e.action_identifier END,
           e.conversion_currency, e.conversion_value,
           e.type = 'conversion' AND e.event_time >= q.from_time AND e.event_time <= q.to_time + v_horizon
    FROM tapwire_attribution_span q
    CROSS JOIN LATERAL (
        SELECT d.* FROM attribution_devices d
        WHERE d.app_id = p_app AND d.device_id = q.device_id
          AND d.last_conversion >= q.from_time AND d.first_conversion <= q.to_time + v_horizon
        OFFSET 0
    ) d
    CROSS JOIN LATERAL (
        SELECT e.* FROM events e
        WHERE e.app_id = p_app AND hashtextextended(e.device_id, 0) = hashtextextended(q.device_id, 0) -- 0326
          AND e.device_id = q.device_id AND e.type IN ('delivered', 'response', 'conversion')
          -- 0325: not a response that is no tap (a dismissal, no action): the rule reads none.
          AND (e.type <> 'response' OR e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier')
          AND e.event_time >= greatest(q.from_time, d.first_conversion) - v_horizon
          AND e.event_time <= least(q.to_time + v_horizon, d.last_conversion)
        OFFSET 0
    ) e;
    INSERT INTO tapwire_attribution_conversion
    SELECT event_id, event_time, device_id, notification_id, action_identifier, coalesce(currency, ''),
           coalesce(value::numeric, 0)
    FROM tapwire_attribution_touch WHERE affected;
    -- 0329: the conversions stay in tapwire_attribution_touch (0328 deleted them here): every
    -- read of it in the rule below takes taps (engaged, false for a conversion) or deliveries
    -- (type 'delivered') only, and the delete's dead rows were read by those scans all the same.

    -- The rule (docs/outcomes.md), changed by 0190 to one pass over each device's events in time
    -- order instead of a join of every conversion with every tap and delivery in its windows:
    -- the latest tap to the named notification in the direct window; else the latest tap, if it
    -- is in the direct window; else the latest delivery, if it is in the influence window and no
    -- tap came after it; else none. Ties go to the greater event id. A device's taps, deliveries
    -- and conversions are ordered by time (taps and deliveries before conversions at one time,
    -- since a touch at the conversion's instant precedes it), then by event id. Since 0325 the
    -- pass carries narrow rows and keeps, for each conversion, the time of the latest tap and of
    -- the latest delivery before it; the tap or delivery credited is then the one of the device
    -- at that time with the greatest event id, read with its attributes for the conversions
    -- alone (0302 carried every row whole through the sort and joined the conversions with the
    -- taps and the deliveries by their running counts). Hash joins only, whatever the scratch
    -- tables' sizes (0302); the settings come back right after the statement (and at the
    -- function's end, by its own SET of both).
    SET LOCAL enable_nestloop = off;
    SET LOCAL enable_mergejoin = off;
    INSERT INTO tapwire_credit_change
    WITH latest AS (
        -- One sort: each conversion with the time of the latest tap and of the latest delivery
        -- up to it. A response that is neither (a dismissal) counts in neither and is left out.
        SELECT s.event_id, s.event_time, s.device_id, s.name, s.currency, s.value, s.tap_time, s.delivery_time
        FROM (
            SELECT s.*,
                   max(s.event_time) FILTER (WHERE s.engaged) OVER w AS tap_time,
                   max(s.event_time) FILTER (WHERE s.delivered) OVER w AS delivery_time
            FROM (
                SELECT device_id, event_id, event_time, false AS conversion, engaged, type = 'delivered' AS delivered,
                       NULL::text AS name, NULL::text AS currency, NULL::numeric AS value
                FROM tapwire_attribution_touch
                WHERE engaged OR type = 'delivered'
                UNION ALL
                SELECT device_id, event_id, event_time, true, false, false, name, currency, value
                FROM tapwire_attribution_conversion
            ) s
            WINDOW w AS (PARTITION BY s.device_id ORDER BY s.event_time, s.conversion, s.event_id ROWS UNBOUNDED PRECEDING)
        ) s
        WHERE s.conversion
    ), named AS (
        -- A notification's taps are few: the join is by its id.
        SELECT DISTINCT ON (c.event_id) c.event_id,
               coalesce(t.notification_key, t.notification_id, 'event:' || t.event_id::text) AS notification_key, -- 0329
               t.event_time, t.category, t.has_media, t.campaign, t.platform, t.action_identifier
        FROM tapwire_attribution_conversion c
        JOIN tapwire_attribution_touch t ON t.device_id = c.device_id AND t.engaged AND t.notification_id = c.notification_id
         AND t.event_time >= c.event_time - v_direct AND t.event_time <= c.event_time
        WHERE c.notification_id IS NOT NULL
        ORDER BY c.event_id, t.event_time DESC, t.event_id DESC
    ), chosen AS (
        -- credit: 0 the named notification's tap, 1 the latest tap, 2 the latest delivery, 3 none.
        SELECT l.event_id, l.event_time, l.device_id, l.name, l.currency, l.value, l.tap_time, l.delivery_time,
               n.notification_key AS n_key, n.event_time AS n_time, n.category AS n_category,
               n.has_media AS n_has_media, n.campaign AS n_campaign, n.platform AS n_platform,
               n.action_identifier AS n_action,
               CASE WHEN n.event_id IS NOT NULL THEN 0
                    WHEN l.tap_time >= l.event_time - v_direct THEN 1
                    WHEN l.delivery_time >= l.event_time - v_influence
                         AND (l.tap_time IS NULL OR l.tap_time <= l.delivery_time) THEN 2
                    ELSE 3 END AS credit
        FROM latest l
        LEFT JOIN named n ON n.event_id = l.event_id
    ), touched AS (
        -- The latest tap or delivery: of the device's at that time, the greatest event id.
        SELECT DISTINCT ON (c.event_id) c.event_id,
               coalesce(t.notification_key, t.notification_id, 'event:' || t.event_id::text) AS notification_key, -- 0329
               t.event_time, t.category, t.has_media, t.campaign, t.platform, t.action_identifier
        FROM chosen c
        JOIN tapwire_attribution_touch t
          ON t.device_id = c.device_id
         AND t.event_time = CASE c.credit WHEN 1 THEN c.tap_time WHEN 2 THEN c.delivery_time END
         AND CASE c.credit WHEN 1 THEN t.engaged ELSE t.type = 'delivered' END
        ORDER BY c.event_id, t.event_id DESC
    ), credited AS (
        SELECT c.event_id, c.event_time, c.device_id, c.name, c.currency, c.value, c.credit,
               CASE c.credit WHEN 0 THEN c.n_key ELSE t.notification_key END AS notification_key,
               CASE c.credit WHEN 0 THEN c.n_time ELSE t.event_time END AS touch_time,
               CASE c.credit WHEN 0 THEN c.n_category ELSE t.category END AS category,
               CASE c.credit WHEN 0 THEN c.n_has_media ELSE t.has_media END AS has_media,
               CASE c.credit WHEN 0 THEN c.n_campaign ELSE t.campaign END AS campaign,
               CASE c.credit WHEN 0 THEN c.n_platform ELSE t.platform END AS platform,
               CASE c.credit WHEN 0 THEN c.n_action WHEN 1 THEN t.action_identifier END AS action_identifier
        FROM chosen c
        LEFT JOIN touched t ON t.event_id = c.event_id
    )
    SELECT 1, event_id, event_time, device_id, name, currency, value,
           CASE credit WHEN 0 THEN 1 WHEN 1 THEN 1 WHEN 2 THEN 2 ELSE 3 END,
           notification_key, touch_time, category, has_media, campaign, platform, action_identifier
    FROM credited;
    SET LOCAL enable_nestloop = on;
    SET LOCAL enable_mergejoin = on;

    -- Beside the credits stored: a credit unchanged appears once with each sign, and both go.
    -- The stored credits are looked up by key, one probe per change (0280): a join with this
    -- table read every credit of the app (0233's plan) or, on stale statistics, rescanned this
    -- table per stored credit.
    SELECT array_agg(DISTINCT event_id) INTO v_ids FROM tapwire_credit_change;
    INSERT INTO tapwire_credit_change
    SELECT -1, s.event_id, s.event_time, s.device_id, s.name, s.currency, s.value, s.kind, s.notification_key,
           s.touch_time, s.category, s.has_media, s.campaign, s.platform, s.action_identifier
    FROM conversion_credits s
    WHERE s.app_id = p_app AND s.event_id = ANY (v_ids);
    -- Two scratch tables joined: by hash, whatever their sizes (0307: without ANALYZE the plan is
    -- kept from call to call, and may have been made when they held a few rows).
    SET LOCAL enable_nestloop = off;
    SET LOCAL enable_mergejoin = off;
    DELETE FROM tapwire_credit_change x
    USING (SELECT event_id FROM tapwire_credit_change
           GROUP BY event_id, event_time, device_id, name, currency, value, kind, notification_key, touch_time,
                    category, has_media, campaign, platform, action_identifier
           HAVING count(*) = 2) same
    WHERE x.event_id = same.event_id;
    SET LOCAL enable_nestloop = on;
    SET LOCAL enable_mergejoin = on;
    SELECT count(*) FILTER (WHERE sign = 1) INTO v_changed FROM tapwire_credit_change;
    IF v_changed = 0 THEN
        RETURN 0;
    END IF;

    -- The credits.
    SELECT array_agg(event_id) INTO v_ids FROM tapwire_credit_change WHERE sign = -1;
    DELETE FROM conversion_credits s
    WHERE s.app_id = p_app AND s.event_id = ANY (v_ids);
    INSERT INTO conversion_credits (app_id, event_id, event_time, device_id, name, currency, value, kind,
                                    notification_key, touch_time, category, has_media, campaign, platform, action_identifier)
    SELECT p_app, event_id, event_time, device_id, name, currency, value, kind, notification_key, touch_time,
           category, has_media, campaign, platform, action_identifier
    FROM tapwire_credit_change WHERE sign = 1;


    -- The notifications whose credits changed: their stored rows out (sign -1), their rows made
    -- again from the credits now stored in (sign 1).
    CREATE TEMP TABLE IF NOT EXISTS tapwire_notification_change (
        sign smallint, device_id text, notification_key text, name text, currency text, touch_time timestamptz,
        category text, has_media boolean, campaign text, platform text, first_kind smallint, direct bigint,
        influenced bigint, value numeric
    ) ON COMMIT DELETE ROWS;
    IF EXISTS (SELECT FROM tapwire_notification_change) THEN -- as above (0305)
        TRUNCATE tapwire_notification_change;
    END IF;

    -- 0307: the stored rows are deleted, and the credits read below, by a hash join with the
    -- changed keys passed as arrays, reading the rows of the changed devices only (device_id =
    -- ANY: the prefix of both tables' indexes by device). Not a probe per key (OFFSET 0), nor
    -- a nested loop: when a stored table's statistics do not know the app yet, the app looks to
    -- have no rows, every index of it looks as good as its key, and a probe per key through an
    -- index of (app_id, time) read all the app's rows once per key (57 s for 4,072 keys in a
    -- bench run of the branch's first version, docs/benchmarks.md); a hash join reads them once
    -- at worst. (Not by tuple id as the rollups below: Citus plans this delete apart from the
    -- insert it feeds, and refuses a tuple id there.)
    SELECT array_agg(device_id), array_agg(notification_key), array_agg(name), array_agg(currency)
    INTO v_devices, v_keys, v_names, v_currencies
    FROM (SELECT DISTINCT device_id, notification_key, name, currency
          FROM tapwire_credit_change WHERE notification_key IS NOT NULL) k;
    SET LOCAL enable_nestloop = off;
    SET LOCAL enable_mergejoin = off;
    WITH removed AS (
        DELETE FROM notification_conversions n
        USING unnest(v_devices, v_keys, v_names, v_currencies) AS k (device_id, notification_key, name, currency)
        WHERE n.app_id = p_app AND n.device_id = ANY (v_devices)
          AND n.device_id = k.device_id AND n.notification_key = k.notification_key
          AND n.name = k.name AND n.currency = k.currency
        RETURNING n.*
    )
    INSERT INTO tapwire_notification_change
    SELECT -1, device_id, notification_key, name, currency, touch_time, category, has_media, campaign, platform,
           first_kind, direct, influenced, value
    FROM removed;

    -- 0325: only the keys that had a stored row are made again from the credits stored. A key
    -- without one had no stored credit (a notification's row is made whenever a credit names
    -- it, and goes only with its last credit: here, `devices forget`, retention's trim), so its
    -- credits are this fold's new ones, and its row is made from the changes alone (the common
    -- case: a device's first conversions after a notification), not read back.
    SELECT array_agg(device_id), array_agg(notification_key), array_agg(name), array_agg(currency)
    INTO v_devices, v_keys, v_names, v_currencies
    FROM tapwire_notification_change WHERE sign = -1;
    IF v_devices IS NOT NULL THEN
        INSERT INTO tapwire_notification_change
        SELECT DISTINCT ON (s.device_id, s.notification_key, s.name, s.currency) -- 0329: one sort
               1, s.device_id, s.notification_key, s.name, s.currency, s.touch_time, s.category, s.has_media,
               s.campaign, s.platform, s.kind, count(*) FILTER (WHERE s.kind = 1) OVER w,
               count(*) FILTER (WHERE s.kind = 2) OVER w, sum(s.value) OVER w
        FROM unnest(v_devices, v_keys, v_names, v_currencies) AS k (device_id, notification_key, name, currency)
        JOIN conversion_credits s
          ON s.device_id = k.device_id AND s.notification_key = k.notification_key AND s.name = k.name AND s.currency = k.currency
        WHERE s.app_id = p_app AND s.device_id = ANY (v_devices)
        WINDOW w AS (PARTITION BY s.device_id, s.notification_key, s.name, s.currency ORDER BY s.event_time, s.event_id
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
        ORDER BY s.device_id, s.notification_key, s.name, s.currency, s.event_time, s.event_id;
    END IF;
    INSERT INTO tapwire_notification_change
    SELECT DISTINCT ON (c.device_id, c.notification_key, c.name, c.currency) -- 0329: one sort
           1, c.device_id, c.notification_key, c.name, c.currency, c.touch_time, c.category, c.has_media, c.campaign,
           c.platform, c.kind, count(*) FILTER (WHERE c.kind = 1) OVER w, count(*) FILTER (WHERE c.kind = 2) OVER w,
           sum(c.value) OVER w
    FROM tapwire_credit_change c
    WHERE c.sign = 1 AND c.notification_key IS NOT NULL
      AND NOT EXISTS (SELECT FROM tapwire_notification_change r
                      WHERE r.sign = -1 AND r.device_id = c.device_id AND r.notification_key = c.notification_key
                        AND r.name = c.name AND r.currency = c.currency)
    WINDOW w AS (PARTITION BY c.device_id, c.notification_key, c.name, c.currency ORDER BY c.event_time, c.event_id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
    ORDER BY c.device_id, c.notification_key, c.name, c.currency, c.event_time, c.event_id;
    SET LOCAL enable_nestloop = on;
    SET LOCAL enable_mergejoin = on;

    INSERT INTO notification_conversions (app_id, device_id, notification_key, name, currency, touch_time, category,
                                          has_media, campaign, platform, first_kind, direct, influenced, value)
    SELECT p_app, device_id, notification_key, name, currency, touch_time, category, has_media, campaign, platform,
           first_kind, direct, influenced, value
    FROM tapwire_notification_change WHERE sign = 1;

    -- 0328: the rollups every part of the app shares, last, after the device's own rows (the
    -- notifications' above): a part that meets a key the other holds waits only for what is
    -- left of the other's function, these upserts and the uplift's.
    -- What each credit adds: every conversion by its day and kind, direct ones by action.
    -- A key whose credits all moved away is no row, as if they had never come: the tables do
    -- not depend on the order events arrived in (so for each rollup below). The rows left at
    -- zero are among the upsert's own, which it returns: deleted by tuple id (0307), where a
    -- join of the rollup with the scratch table was planned on the scratch table's statistics.
    WITH upserted AS (
        INSERT INTO rollup_conversion_totals AS t (app_id, day, name, currency, kind, conversions, value_sum)
        SELECT p_app, tapwire_utc_day(event_time), name, currency, kind, sum(sign), sum(sign * value)
        FROM tapwire_credit_change
        GROUP BY 2, 3, 4, 5
        ORDER BY 2, 3, 4, 5
        ON CONFLICT (app_id, day, name, currency, kind) DO UPDATE
            SET conversions = t.conversions + excluded.conversions, value_sum = t.value_sum + excluded.value_sum
        RETURNING t.ctid, t.conversions = 0 AS zero
    )
    SELECT array_agg(ctid) FILTER (WHERE zero) INTO v_zero FROM upserted;
    SET LOCAL enable_indexscan = off;
    DELETE FROM rollup_conversion_totals WHERE app_id = p_app AND ctid = ANY (v_zero);
    SET LOCAL enable_indexscan = on;

    WITH upserted AS (
        INSERT INTO rollup_conversion_actions AS t (app_id, day, category, action_identifier, name, direct)
        SELECT p_app, tapwire_utc_day(touch_time), category, action_identifier, name, sum(sign)
        FROM tapwire_credit_change
        WHERE kind = 1
        GROUP BY 2, 3, 4, 5
        ORDER BY 2, 3, 4, 5
        ON CONFLICT (app_id, day, category, action_identifier, name) DO UPDATE
            SET direct = t.direct + excluded.direct
        RETURNING t.ctid, t.direct = 0 AS zero
    )
    SELECT array_agg(ctid) FILTER (WHERE zero) INTO v_zero FROM upserted;
    SET LOCAL enable_indexscan = off;
    DELETE FROM rollup_conversion_actions WHERE app_id = p_app AND ctid = ANY (v_zero);
    SET LOCAL enable_indexscan = on;

    WITH upserted AS (
        INSERT INTO rollup_conversions AS t (app_id, day, category, has_media, name, currency, direct, influenced,
                                            converted, value_sum, value_sq, value_cube)
        SELECT p_app, tapwire_utc_day(touch_time), category, has_media, name, currency, sum(sign * direct),
               sum(sign * influenced), sum(sign), sum(sign * value), sum(sign * value * value), sum(sign * value * value * value)
        FROM tapwire_notification_change
        GROUP BY 2, 3, 4, 5, 6
        ORDER BY 2, 3, 4, 5, 6
        ON CONFLICT (app_id, day, category, has_media, name, currency) DO UPDATE
            SET direct = t.direct + excluded.direct, influenced = t.influenced + excluded.influenced,
                converted = t.converted + excluded.converted, value_sum = t.value_sum + excluded.value_sum,
                value_sq = t.value_sq + excluded.value_sq, value_cube = t.value_cube + excluded.value_cube
        RETURNING t.ctid, t.converted = 0 AS zero
    )
    SELECT array_agg(ctid) FILTER (WHERE zero) INTO v_zero FROM upserted;
    SET LOCAL enable_indexscan = off;
    DELETE FROM rollup_conversions WHERE app_id = p_app AND ctid = ANY (v_zero);
    SET LOCAL enable_indexscan = on;

    WITH upserted AS (
        INSERT INTO rollup_conversion_strata AS t (app_id, day, category, campaign, platform, name, currency,
                                                  rich_converted, text_converted)
        SELECT p_app, tapwire_utc_day(touch_time), category, campaign, platform, name, currency,
               coalesce(sum(sign) FILTER (WHERE has_media), 0), coalesce(sum(sign) FILTER (WHERE NOT has_media), 0)
        FROM tapwire_notification_change
        GROUP BY 2, 3, 4, 5, 6, 7
        ORDER BY 2, 3, 4, 5, 6, 7
        ON CONFLICT (app_id, day, category, campaign, platform, name, currency) DO UPDATE
            SET rich_converted = t.rich_converted + excluded.rich_converted,
                text_converted = t.text_converted + excluded.text_converted
        RETURNING t.ctid, t.rich_converted = 0 AND t.text_converted = 0 AS zero
    )
    SELECT array_agg(ctid) FILTER (WHERE zero) INTO v_zero FROM upserted;
    SET LOCAL enable_indexscan = off;
    DELETE FROM rollup_conversion_strata WHERE app_id = p_app AND ctid = ANY (v_zero);
    SET LOCAL enable_indexscan = on;
    -- Migration 0180: the change of the converted strata's terms (rich vs text-only on conversion).
    PERFORM tapwire_conversion_uplift_converted(p_app);
    RETURN v_changed;
END
$fn$;
