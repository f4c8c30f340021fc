-- 0328: an app's attribution in parts by install id, so two connections can attribute one app at
-- once (issue 35; docs/outcomes.md, "Attribution in parts by install id"). After a round of the
-- outcomes shape the fold's tapwire_attribute_pending of the one app ran ~1 s on one core, under
-- the app's lock, while the other core idled (docs/benchmarks.md, "What the two ratio targets ask
-- of two cores (session 19)").
--
-- The queue gets a part: commits write each app's queued entries as one row per part, the part of
-- an install id being hashtextextended(id, 0) modulo tapwire_attribution_parts() (taken
-- non-negative; the collector computes the same hash, Sources/TapwireStore/AttributionPart.swift),
-- and a conversion without an install id in part 0. A device is therefore in one part only: its
-- attribution_devices row, its conversions' credits and its notification_conversions rows are
-- written by that part alone. Older collectors write part 0 only (the default), which stays
-- correct: part 0 then holds devices of every part; the all-parts call (which older collectors
-- make) takes every lock, and part 0's call that finds a device of another part takes the other
-- parts' locks too, before writing, so no device is attributed by two transactions at once.
--
-- Locks. Part p's is pg_advisory_xact_lock(7358161 + p, hashint8(app)): part 0's is the key every
-- function took before (0220), classes 7358161 up to 7358161 + parts - 1 are attribution's.
-- tapwire_attribute_pending(app, part) takes its part's; tapwire_attribute_pending(app) (older
-- collectors, the sequential fold, a reader's own fold) attributes every part in one pass and
-- takes every part's lock, in part order, before writing anything: were it to take part 1's after
-- writing part 0's rollup rows, a worker holding part 1 and waiting on those rows would close a
-- circle. tapwire_conversion_uplift_delivered, tapwire_set_attribution_windows and
-- tapwire_forget_device take every part's lock in order too: the first reads the converted
-- counts of every stratum of the app, which any part may change (with one part running beside it,
-- each would add its change of the uplift terms against the other's "before", and a part inserting
-- a stratum's first row is invisible to any row lock it could take); the windows apply to every
-- part; a forgotten device may sit in part 0's rows of an older collector. A transaction that
-- takes them after writing rollup rows of the app (uplift_delivered after a part) could close a
-- circle with a running part: callers take them first, as the fold does (delivered, then the
-- queue, per app in app order).
--
-- Two parts of one app running at once write the same rollup keys: rollup_conversion_totals,
-- rollup_conversion_actions, rollup_conversions, rollup_conversion_strata and (through
-- tapwire_conversion_uplift_add) rollup_conversion_uplift_days. Each is upserted by one statement
-- whose rows are sorted by the conflict key (ORDER BY of every key column), the tables in the same
-- order in both parts, and each table once. So a part that meets a key the other holds waits for
-- the other's commit, and the other never waits on it: it holds only keys before that one and
-- tables before that one, which the other has passed (PostgreSQL's ON CONFLICT waits for the
-- holder, then updates the committed row, or inserts when the holder deleted it). The deletes of
-- rows left at zero (ctid = ANY of v_zero) name only rows the statement before returned, which
-- this transaction updated and holds. The uplift's v_gone delete names rows of keys with no
-- stratum left, which the part's uplift upsert just wrote (a key is in v_gone only when a stratum
-- of it changed), so it holds them too; and a part that runs first sees the other's strata
-- uncommitted as they were, the second (after waiting on the uplift row) sees them all: the row
-- is deleted at most when its terms sum to zero. conversion_credits, notification_conversions and
-- attribution_devices are keyed by event and device, disjoint between parts. The uplift's change
-- reads the stratum's converted count after its own upsert, which waited for the other part's
-- commit: each part's "before" is the other's "after", as in a sequential fold.
--
-- The shared upserts come last: 0326 upserted the totals and the actions before writing the
-- notifications' rows (disjoint between parts; 15-175 ms a statement on the bench's replay), so a
-- part meeting the other's totals rows waited for those too; they now follow them, and a wait
-- lasts at most the other's remaining upserts and uplift (docs/benchmarks.md, "Attribution in
-- parts"). The function bodies below are 0326's, 0180's, 0220's and 0162's, with the lines marked 0328.

ALTER TABLE attribution_pending ADD COLUMN part smallint NOT NULL DEFAULT 0;

-- The number of parts: the one place it is set on the database's side. The collector's is
-- AttributionPart.count (a test checks they agree). More parts than connections that fold gain nothing.
CREATE FUNCTION tapwire_attribution_parts() RETURNS integer
LANGUAGE sql IMMUTABLE AS $fn$ SELECT 2 $fn$;

-- Attribution's lock of an app: part p_part's, or (NULL) every part's in part order.
CREATE FUNCTION tapwire_attribution_lock(p_app bigint, p_part integer) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
    v_parts integer := tapwire_attribution_parts();
BEGIN
    IF p_part IS NOT NULL THEN
        IF p_part < 0 OR p_part >= v_parts THEN
            RAISE EXCEPTION 'no attribution part % (parts 0 to %)', p_part, v_parts - 1 USING ERRCODE = '22023';
        END IF;
        PERFORM pg_advisory_xact_lock(7358161 + p_part, hashint8(p_app));
        RETURN;
    END IF;
    FOR v_part IN 0 .. v_parts - 1 LOOP
        PERFORM pg_advisory_xact_lock(7358161 + v_part, hashint8(p_app));
    END LOOP;
END
$fn$;

-- 0326's function, for the queue of part p_part of the app (NULL: every part, under every part's
-- lock), its settings restated.
CREATE FUNCTION tapwire_attribute_pending(p_app bigint, p_part integer) RETURNS bigint
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
    -- A device's events the rule reads: its taps and deliveries, and (until moved to the table
    -- above) its conversions, whose name then sits in action_identifier, with their currency and
    -- value, and whether a queued event can change their credit.
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
           CASE WHEN e.type = 'conversion' THEN NULL ELSE coalesce(e.notification_id, 'event:' || e.event_id::text) END,
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
    DELETE FROM tapwire_attribution_touch WHERE type = 'conversion';

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
        SELECT DISTINCT ON (c.event_id) c.event_id, t.notification_key, t.event_time, t.category, t.has_media,
               t.campaign, t.platform, t.action_identifier
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
        SELECT DISTINCT ON (c.event_id) c.event_id, t.notification_key, t.event_time, t.category, t.has_media,
               t.campaign, t.platform, t.action_identifier
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
        SELECT 1, s.device_id, s.notification_key, s.name, s.currency,
               (array_agg(s.touch_time ORDER BY s.event_time, s.event_id))[1],
               (array_agg(s.category ORDER BY s.event_time, s.event_id))[1],
               (array_agg(s.has_media ORDER BY s.event_time, s.event_id))[1],
               (array_agg(s.campaign ORDER BY s.event_time, s.event_id))[1],
               (array_agg(s.platform ORDER BY s.event_time, s.event_id))[1],
               (array_agg(s.kind ORDER BY s.event_time, s.event_id))[1],
               count(*) FILTER (WHERE s.kind = 1), count(*) FILTER (WHERE s.kind = 2), sum(s.value)
        FROM unnest(v_devices, v_keys, v_names, v_currencies) AS k (device_id, notification_key, name, currency)
        JOIN conversion_credits s
          ON s.device_id = k.device_id AND s.notification_key = k.notification_key AND s.name = k.name AND s.currency = k.currency
        WHERE s.app_id = p_app AND s.device_id = ANY (v_devices)
        GROUP BY s.device_id, s.notification_key, s.name, s.currency;
    END IF;
    INSERT INTO tapwire_notification_change
    SELECT 1, c.device_id, c.notification_key, c.name, c.currency,
           (array_agg(c.touch_time ORDER BY c.event_time, c.event_id))[1],
           (array_agg(c.category ORDER BY c.event_time, c.event_id))[1],
           (array_agg(c.has_media ORDER BY c.event_time, c.event_id))[1],
           (array_agg(c.campaign ORDER BY c.event_time, c.event_id))[1],
           (array_agg(c.platform ORDER BY c.event_time, c.event_id))[1],
           (array_agg(c.kind ORDER BY c.event_time, c.event_id))[1],
           count(*) FILTER (WHERE c.kind = 1), count(*) FILTER (WHERE c.kind = 2), sum(c.value)
    FROM tapwire_credit_change c
    WHERE c.sign = 1 AND c.notification_key IS NOT NULL
      AND NOT EXISTS (SELECT FROM tapwire_notification_change r
                      WHERE r.sign = -1 AND r.device_id = c.device_id AND r.notification_key = c.notification_key
                        AND r.name = c.name AND r.currency = c.currency)
    GROUP BY c.device_id, c.notification_key, c.name, c.currency;
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

-- Every part of the app, as before: every lock first, then the one pass over the whole queue.
CREATE OR REPLACE FUNCTION tapwire_attribute_pending(p_app bigint) RETURNS bigint
LANGUAGE sql AS $fn$ SELECT tapwire_attribute_pending(p_app, NULL::integer) $fn$;

-- 0180's function, under every part's lock.
CREATE OR REPLACE FUNCTION tapwire_conversion_uplift_delivered(p_app bigint) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_taken bigint;
BEGIN
    PERFORM tapwire_attribution_lock(p_app, NULL); -- 0328: every part's, in order
    PERFORM tapwire_conversion_uplift_scratch();
    WITH taken AS (
        DELETE FROM conversion_strata_pending WHERE app_id = p_app
        RETURNING day, category, campaign, platform, rich_before, text_before, rich_after, text_after
    ), changed AS (
        INSERT INTO tapwire_conversion_uplift_change
        SELECT q.day, q.category, c.name, c.currency, q.rich_before, c.rich_converted, q.text_before, c.text_converted,
               q.rich_after, c.rich_converted, q.text_after, c.text_converted
        FROM taken q
        CROSS JOIN LATERAL (
            SELECT c.name, c.currency, c.rich_converted, c.text_converted FROM rollup_conversion_strata c
            WHERE c.app_id = p_app AND c.day = q.day AND c.category = q.category AND c.campaign = q.campaign
              AND c.platform = q.platform
            OFFSET 0
        ) c
    )
    SELECT count(*) INTO v_taken FROM taken;
    PERFORM tapwire_conversion_uplift_add(p_app);
    RETURN v_taken;
END
$fn$;

-- 0220's function, under every part's lock.
CREATE OR REPLACE FUNCTION tapwire_set_attribution_windows(p_app bigint, p_direct interval, p_influence interval) RETURNS bigint
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM tapwire_attribution_lock(p_app, NULL); -- 0328: every part's, in order
    UPDATE apps SET direct_window = p_direct, influence_window = p_influence WHERE app_id = p_app;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no app with id %', p_app USING ERRCODE = 'P0002';
    END IF;
    RETURN tapwire_queue_attribution(p_app, '-infinity', 'infinity');
END
$fn$;

-- 0162's function, its rows one per app and part (the part computed inline from the parts'
-- number, a parameter: no function of ours inside a query of the distributed events on Citus).
CREATE OR REPLACE FUNCTION tapwire_queue_attribution(p_app bigint, p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_queued bigint;
    v_row    record;
    v_parts  bigint := tapwire_attribution_parts(); -- 0328
BEGIN
    -- PL/pgSQL, not SQL: Citus cannot plan a query on a distributed table that uses a SQL
    -- function's arguments (migration 0121).
    -- One read of the range: the rows queued say how many conversions they hold.
    v_queued := 0;
    FOR v_row IN
        INSERT INTO attribution_pending (app_id, part, device_ids, event_times, conversions)
        SELECT app_id, part, array_agg(device_id), array_agg(event_time), array_agg(true)
        FROM (SELECT app_id, device_id, event_time,
                     coalesce((hashtextextended(device_id, 0) % v_parts + v_parts) % v_parts, 0)::smallint AS part -- 0328
              FROM events
              WHERE (p_app IS NULL OR app_id = p_app) AND type = 'conversion'
                AND event_time >= p_from AND event_time < p_to) e
        GROUP BY app_id, part
        RETURNING cardinality(event_times) AS n
    LOOP
        v_queued := v_queued + v_row.n;
    END LOOP;
    RETURN v_queued;
END
$fn$;

-- 0326's function, under every part's lock, each queue row put back in its part.
CREATE OR REPLACE FUNCTION tapwire_forget_device(p_app bigint, p_device text) RETURNS TABLE (held_in text, removed bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_count bigint;
    v_row   record;
BEGIN
    PERFORM tapwire_attribution_lock(p_app, NULL); -- 0328: every part's, in order
    PERFORM pg_advisory_xact_lock(7358201, p_app::integer);

    DELETE FROM events WHERE app_id = p_app AND hashtextextended(device_id, 0) = hashtextextended(p_device, 0) -- 0326
                         AND device_id = p_device;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    held_in := 'events'; removed := v_count; RETURN NEXT;

    DELETE FROM conversion_credits WHERE app_id = p_app AND device_id = p_device;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    held_in := 'conversion_credits'; removed := v_count; RETURN NEXT;

    DELETE FROM notification_conversions WHERE app_id = p_app AND device_id = p_device;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    held_in := 'notification_conversions'; removed := v_count; RETURN NEXT;

    DELETE FROM attribution_devices WHERE app_id = p_app AND device_id = p_device;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    held_in := 'attribution_devices'; removed := v_count; RETURN NEXT;

    -- A queued commit's arrays: taken out, and put back with only the other entries (other
    -- devices', and conversions without an install id, queued with a NULL one).
    v_count := 0;
    FOR v_row IN DELETE FROM attribution_pending WHERE app_id = p_app AND p_device = ANY (device_ids)
                 RETURNING part, device_ids, event_times, conversions LOOP -- 0328: put back in its part
        v_count := v_count + 1;
        INSERT INTO attribution_pending (app_id, part, device_ids, event_times, conversions)
        SELECT p_app, v_row.part, array_agg(u.device_id ORDER BY u.i), array_agg(u.event_time ORDER BY u.i), array_agg(u.conversion ORDER BY u.i)
        FROM unnest(v_row.device_ids, v_row.event_times, v_row.conversions) WITH ORDINALITY AS u (device_id, event_time, conversion, i)
        WHERE u.device_id IS DISTINCT FROM p_device
        HAVING count(*) > 0;
    END LOOP;
    held_in := 'attribution_pending'; removed := v_count; RETURN NEXT;

    -- Its first assignment per campaign; rollup_holdouts keeps what they added.
    DELETE FROM holdout_assignments WHERE app_id = p_app AND device_id = p_device;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    held_in := 'holdout_assignments'; removed := v_count; RETURN NEXT;

    -- The holdouts' queue, as attribution's: the other devices' entries put back, in order.
    v_count := 0;
    FOR v_row IN DELETE FROM holdout_pending WHERE app_id = p_app AND p_device = ANY (device_ids)
                 RETURNING device_ids, event_times LOOP
        v_count := v_count + 1;
        INSERT INTO holdout_pending (app_id, device_ids, event_times)
        SELECT p_app, array_agg(u.device_id ORDER BY u.i), array_agg(u.event_time ORDER BY u.i)
        FROM unnest(v_row.device_ids, v_row.event_times) WITH ORDINALITY AS u (device_id, event_time, i)
        WHERE u.device_id IS DISTINCT FROM p_device
        HAVING count(*) > 0;
    END LOOP;
    held_in := 'holdout_pending'; removed := v_count; RETURN NEXT;
END
$fn$;
