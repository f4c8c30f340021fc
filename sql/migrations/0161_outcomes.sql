-- 0161: conversions attributed to notifications, kept as they change (docs/outcomes.md).
--
-- A conversion is credited to one notification of its device, or to none:
--   direct      the latest engaged response (an open or any action but the dismiss) on the same
--               device within the direct window before it; among those, the one to the
--               notification the conversion names, if it names one;
--   influenced  otherwise, the latest delivery on the same device within the influence window
--               before it, when no engaged response (to any notification) came after that delivery;
--   unattributed otherwise.
-- The rule reads the device's events through events_by_device. Devices post late and out of
-- order, so every commit queues the (device, time) of its new events (attribution_pending), and
-- the fold recomputes the credit of every conversion of those devices that an event at that time
-- can change (from that time to the longer window after it), and adds the change of each credit
-- to the rollups. The result depends only on which events are stored, never on their order.

ALTER TABLE events ADD COLUMN conversion_name text,
                   ADD COLUMN conversion_value double precision,
                   ADD COLUMN conversion_currency text;

-- A device's events in time order: attribution's reads (a few index pages per conversion), and
-- a device's deletion (`tapwire devices forget`). Events without an install id are not in it.
CREATE INDEX events_by_device ON events (app_id, device_id, event_time) WHERE device_id IS NOT NULL;

-- Each app's windows; a report may override them (it then computes credits from the events).
-- The checks are named and added one a statement, apart from the columns: Citus refuses an
-- unnamed constraint added with a column, and an ADD CONSTRAINT beside other subcommands (apps
-- is a reference table there).
ALTER TABLE apps ADD COLUMN direct_window interval NOT NULL DEFAULT interval '1 hour',
                 ADD COLUMN influence_window interval NOT NULL DEFAULT interval '24 hours';
ALTER TABLE apps ADD CONSTRAINT apps_direct_window_check CHECK (direct_window > interval '0' AND direct_window <= interval '30 days');
ALTER TABLE apps ADD CONSTRAINT apps_influence_window_check CHECK (influence_window > interval '0' AND influence_window <= interval '30 days');

-- One row per app and commit: the install ids and times of its new delivered, response and
-- conversion events (which of them are conversions), for the fold to attribute. A conversion
-- without an install id is queued with a NULL one: it is unattributed.
CREATE TABLE attribution_pending (
    app_id      bigint        NOT NULL,
    device_ids  text[]        NOT NULL,
    event_times timestamptz[] NOT NULL,
    conversions boolean[]     NOT NULL,
    CHECK (cardinality(device_ids) = cardinality(event_times) AND cardinality(conversions) = cardinality(event_times))
);
CREATE INDEX attribution_pending_by_app ON attribution_pending (app_id);

-- The devices that ever converted, with the span of their conversions: a queued delivery or tap
-- changes a credit only on such a device and within that span, so most queued events cost one
-- lookup here and no read of events.
CREATE TABLE attribution_devices (
    app_id           bigint      NOT NULL,
    device_id        text        NOT NULL,
    first_conversion timestamptz NOT NULL,
    last_conversion  timestamptz NOT NULL,
    PRIMARY KEY (app_id, device_id)
);

-- The credit of every stored conversion. kind: 1 direct, 2 influenced, 3 unattributed (then the
-- notification's columns are NULL). currency is '' and value 0 for a conversion without a value.
CREATE TABLE conversion_credits (
    app_id            bigint      NOT NULL,
    event_id          uuid        NOT NULL,
    event_time        timestamptz NOT NULL,
    -- NULL for a conversion posted without an install id (unattributed).
    device_id         text,
    name              text        NOT NULL,
    currency          text        NOT NULL,
    value             numeric     NOT NULL,
    kind              smallint    NOT NULL CHECK (kind IN (1, 2, 3)),
    -- The credited notification: its notificationId, or 'event:' and the event id of the tap or
    -- delivery when it had none.
    notification_key  text,
    -- The credited tap (direct) or delivery (influenced), and what it says of its notification.
    touch_time        timestamptz,
    category          text,
    has_media         boolean,
    campaign          text,
    platform          text,
    -- Direct: the action of the tap (Apple's default action identifier for an open).
    action_identifier text,
    PRIMARY KEY (app_id, event_id)
);
CREATE INDEX conversion_credits_by_time ON conversion_credits (app_id, event_time);
CREATE INDEX conversion_credits_by_touch ON conversion_credits (app_id, touch_time);
CREATE INDEX conversion_credits_by_notification ON conversion_credits (app_id, device_id, notification_key);

-- Per credited notification and conversion name (and currency): how many conversions it was
-- credited with, of which kind, and their value. A notification takes the day, category, side,
-- campaign and platform of the credited tap or delivery of its earliest conversion, so that a
-- notification counts once in a rate over delivered.
CREATE TABLE notification_conversions (
    app_id           bigint      NOT NULL,
    device_id        text        NOT NULL,
    notification_key text        NOT NULL,
    name             text        NOT NULL,
    currency         text        NOT NULL,
    touch_time       timestamptz NOT NULL,
    category         text        NOT NULL,
    has_media        boolean     NOT NULL,
    campaign         text        NOT NULL,
    platform         text        NOT NULL,
    first_kind       smallint    NOT NULL,
    direct           bigint      NOT NULL,
    influenced       bigint      NOT NULL,
    value            numeric     NOT NULL,
    PRIMARY KEY (app_id, device_id, notification_key, name, currency)
);
CREATE INDEX notification_conversions_by_touch ON notification_conversions (app_id, touch_time);

-- The report's rollups, by the UTC day of the notification's credited tap or delivery (the
-- conversion's own day for rollup_conversion_totals). The value moments are of each converted
-- notification's value, so a mean per delivered and its skew-adjusted interval follow from them
-- with the delivered count (notifications without a conversion have value 0).
CREATE TABLE rollup_conversions (
    app_id     bigint      NOT NULL,
    day        timestamptz NOT NULL,
    category   text        NOT NULL,
    has_media  boolean     NOT NULL,
    name       text        NOT NULL,
    currency   text        NOT NULL,
    direct     bigint      NOT NULL,
    influenced bigint      NOT NULL,
    converted  bigint      NOT NULL,
    value_sum  numeric     NOT NULL,
    value_sq   numeric     NOT NULL,
    value_cube numeric     NOT NULL,
    PRIMARY KEY (app_id, day, category, has_media, name, currency)
);

-- Converted notifications by side within the engagement strata (rollup_strata: campaign ×
-- platform × UTC day), for the Mantel–Haenszel difference on conversion.
CREATE TABLE rollup_conversion_strata (
    app_id         bigint      NOT NULL,
    day            timestamptz NOT NULL,
    category       text        NOT NULL,
    campaign       text        NOT NULL,
    platform       text        NOT NULL,
    name           text        NOT NULL,
    currency       text        NOT NULL,
    rich_converted bigint      NOT NULL,
    text_converted bigint      NOT NULL,
    PRIMARY KEY (app_id, day, category, campaign, platform, name, currency)
);

-- Direct conversions by the action of the tap that preceded them.
CREATE TABLE rollup_conversion_actions (
    app_id            bigint      NOT NULL,
    day               timestamptz NOT NULL,
    category          text        NOT NULL,
    action_identifier text        NOT NULL,
    name              text        NOT NULL,
    direct            bigint      NOT NULL,
    PRIMARY KEY (app_id, day, category, action_identifier, name)
);

-- Every conversion by its own UTC day and kind, unattributed ones included, so totals add up.
CREATE TABLE rollup_conversion_totals (
    app_id      bigint      NOT NULL,
    day         timestamptz NOT NULL,
    name        text        NOT NULL,
    currency    text        NOT NULL,
    kind        smallint    NOT NULL,
    conversions bigint      NOT NULL,
    value_sum   numeric     NOT NULL,
    PRIMARY KEY (app_id, day, name, currency, kind)
);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('attribution_pending', 'distributed', 'attribution queue, co-located with events'),
    ('attribution_devices', 'distributed', 'attribution, co-located with events'),
    ('conversion_credits', 'distributed', 'attribution, co-located with events'),
    ('notification_conversions', 'distributed', 'attribution, co-located with events'),
    ('rollup_conversions', 'distributed', 'report rollup, co-located with events'),
    ('rollup_conversion_strata', 'distributed', 'report rollup, co-located with events'),
    ('rollup_conversion_actions', 'distributed', 'report rollup, co-located with events'),
    ('rollup_conversion_totals', 'distributed', 'report rollup, co-located with events');
SELECT tapwire_apply_citus_layout();

-- A collector older than this migration queues nothing to attribute: its commits are refused
-- (57P03, answered with 503 and Retry-After, so the client takes the batch to an upgraded
-- collector), as 0150 did. This version's commits set the column.
ALTER TABLE rollup_delta_batches ADD COLUMN attribution_queued boolean NOT NULL DEFAULT true;
CREATE FUNCTION tapwire_refuse_batch_without_attribution() RETURNS boolean
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'a collector older than migration 0161 appended a batch without queueing its attribution; upgrade it'
        USING ERRCODE = '57P03';
END
$fn$;
ALTER TABLE rollup_delta_batches ALTER COLUMN attribution_queued SET DEFAULT tapwire_refuse_batch_without_attribution();

-- Recomputes the credits the queued events of `p_app` can change, stores those that changed and
-- adds their change to the rollups; returns how many credits changed. Under an advisory lock per
-- app, so two folds never apply the same change twice. Each statement reads one app: on Citus it
-- is routed to the app's shard.
-- enable_seqscan is off: every table it joins its scratch tables with grows with the app (the
-- converting devices, the credits, the notification rows, the rollups), and a fold touches a few
-- thousand of their rows; without statistics on the scratch tables the planner would hash-join
-- with a scan of the whole table, a cost that grows with every fold.
CREATE FUNCTION tapwire_attribute_pending(p_app bigint) RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off AS $fn$
DECLARE
    v_direct    interval;
    v_influence interval;
    v_horizon   interval;
    v_changed   bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(7358161, hashint8(p_app));
    SELECT direct_window, influence_window INTO v_direct, v_influence FROM apps WHERE app_id = p_app;
    IF NOT FOUND THEN
        DELETE FROM attribution_pending WHERE app_id = p_app;
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
    TRUNCATE tapwire_attribution_queue, tapwire_attribution_span, tapwire_attribution_conversion, tapwire_attribution_touch, tapwire_credit_change;

    -- The queued events: an install id (NULL: a conversion posted without one), a time, and
    -- whether it is a conversion's.
    WITH taken AS (
        DELETE FROM attribution_pending WHERE app_id = p_app RETURNING device_ids, event_times, conversions
    )
    INSERT INTO tapwire_attribution_queue
    SELECT u.device_id, u.event_time, u.conversion
    FROM taken, unnest(taken.device_ids, taken.event_times, taken.conversions) AS u (device_id, event_time, conversion);

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
        WHERE e.app_id = p_app AND e.device_id = q.device_id AND e.type IN ('delivered', 'response', 'conversion')
          AND e.event_time >= greatest(q.from_time, d.first_conversion) - v_horizon
          AND e.event_time <= least(q.to_time + v_horizon, d.last_conversion)
        OFFSET 0
    ) e;
    INSERT INTO tapwire_attribution_conversion
    SELECT event_id, event_time, device_id, notification_id, action_identifier, coalesce(currency, ''),
           coalesce(value::numeric, 0)
    FROM tapwire_attribution_touch WHERE affected;
    DELETE FROM tapwire_attribution_touch WHERE type = 'conversion';
    ANALYZE tapwire_attribution_conversion, tapwire_attribution_touch;

    -- The rule (docs/outcomes.md): the tap in the direct window (the named notification's first,
    -- then the latest), else the latest delivery in the influence window with no tap after it,
    -- else none. Ties go to the greater event id.
    INSERT INTO tapwire_credit_change
    WITH direct AS (
        SELECT DISTINCT ON (c.event_id) c.event_id, t.notification_key, t.event_time, t.category, t.has_media,
               t.campaign, t.platform, t.action_identifier
        FROM tapwire_attribution_conversion c
        JOIN tapwire_attribution_touch t ON t.device_id = c.device_id AND t.engaged
         AND t.event_time >= c.event_time - v_direct AND t.event_time <= c.event_time
        ORDER BY c.event_id, (c.notification_id IS NOT NULL AND t.notification_id IS NOT DISTINCT FROM c.notification_id) DESC,
                 t.event_time DESC, t.event_id DESC
    ), last_tap AS (
        SELECT c.event_id, max(t.event_time) AS at
        FROM tapwire_attribution_conversion c
        JOIN tapwire_attribution_touch t ON t.device_id = c.device_id AND t.engaged
         AND t.event_time >= c.event_time - v_influence AND t.event_time <= c.event_time
        GROUP BY c.event_id
    ), influenced AS (
        SELECT DISTINCT ON (c.event_id) c.event_id, t.notification_key, t.event_time, t.category, t.has_media,
               t.campaign, t.platform
        FROM tapwire_attribution_conversion c
        JOIN tapwire_attribution_touch t ON t.device_id = c.device_id AND t.type = 'delivered'
         AND t.event_time >= c.event_time - v_influence AND t.event_time <= c.event_time
        LEFT JOIN last_tap l ON l.event_id = c.event_id
        WHERE l.at IS NULL OR l.at <= t.event_time
        ORDER BY c.event_id, t.event_time DESC, t.event_id DESC
    )
    SELECT 1, c.event_id, c.event_time, c.device_id, c.name, c.currency, c.value,
           CASE WHEN d.event_id IS NOT NULL THEN 1 WHEN i.event_id IS NOT NULL THEN 2 ELSE 3 END,
           coalesce(d.notification_key, i.notification_key), coalesce(d.event_time, i.event_time),
           coalesce(d.category, i.category), coalesce(d.has_media, i.has_media), coalesce(d.campaign, i.campaign),
           coalesce(d.platform, i.platform), d.action_identifier
    FROM tapwire_attribution_conversion c
    LEFT JOIN direct d ON d.event_id = c.event_id
    LEFT JOIN influenced i ON i.event_id = c.event_id;

    -- Beside the credits stored: a credit unchanged appears once with each sign, and both go.
    INSERT INTO tapwire_credit_change
    SELECT -1, s.event_id, s.event_time, s.device_id, s.name, s.currency, s.value, s.kind, s.notification_key,
           s.touch_time, s.category, s.has_media, s.campaign, s.platform, s.action_identifier
    FROM conversion_credits s
    WHERE s.app_id = p_app AND s.event_id IN (SELECT event_id FROM tapwire_credit_change);
    DELETE FROM tapwire_credit_change x
    USING (SELECT event_id FROM tapwire_credit_change
           GROUP BY event_id, event_time, device_id, name, currency, value, kind, notification_key, touch_time,
                    category, has_media, campaign, platform, action_identifier
           HAVING count(*) = 2) same
    WHERE x.event_id = same.event_id;
    SELECT count(*) FILTER (WHERE sign = 1) INTO v_changed FROM tapwire_credit_change;
    ANALYZE tapwire_credit_change;
    IF v_changed = 0 THEN
        RETURN 0;
    END IF;

    -- The credits.
    DELETE FROM conversion_credits s
    WHERE s.app_id = p_app AND s.event_id IN (SELECT event_id FROM tapwire_credit_change WHERE sign = -1);
    INSERT INTO conversion_credits (app_id, event_id, event_time, device_id, name, currency, value, kind,
                                    notification_key, touch_time, category, has_media, campaign, platform, action_identifier)
    SELECT p_app, event_id, event_time, device_id, name, currency, value, kind, notification_key, touch_time,
           category, has_media, campaign, platform, action_identifier
    FROM tapwire_credit_change WHERE sign = 1;

    -- What each credit adds: every conversion by its day and kind, direct ones by action.
    INSERT INTO rollup_conversion_totals AS t (app_id, day, name, currency, kind, conversions, value_sum)
    SELECT p_app, tapwire_utc_day(event_time), name, currency, kind, sum(sign), sum(sign * value)
    FROM tapwire_credit_change
    GROUP BY 2, 3, 4, 5
    ORDER BY 2, 3, 4, 5
    ON CONFLICT (app_id, day, name, currency, kind) DO UPDATE
        SET conversions = t.conversions + excluded.conversions, value_sum = t.value_sum + excluded.value_sum;
    -- A key whose credits all moved away is no row, as if they had never come: the tables do
    -- not depend on the order events arrived in (so for each rollup below).
    DELETE FROM rollup_conversion_totals t
    WHERE t.app_id = p_app AND t.conversions = 0
      AND (t.day, t.name, t.currency, t.kind) IN (SELECT tapwire_utc_day(event_time), name, currency, kind FROM tapwire_credit_change);

    INSERT INTO rollup_conversion_actions AS t (app_id, day, category, action_identifier, name, direct)
    SELECT p_app, tapwire_utc_day(touch_time), category, action_identifier, name, sum(sign)
    FROM tapwire_credit_change
    WHERE kind = 1
    GROUP BY 2, 3, 4, 5
    ORDER BY 2, 3, 4, 5
    ON CONFLICT (app_id, day, category, action_identifier, name) DO UPDATE
        SET direct = t.direct + excluded.direct;
    DELETE FROM rollup_conversion_actions t
    WHERE t.app_id = p_app AND t.direct = 0
      AND (t.day, t.category, t.action_identifier, t.name) IN (SELECT tapwire_utc_day(touch_time), category, action_identifier, name
                                                               FROM tapwire_credit_change WHERE kind = 1);

    -- The notifications whose credits changed: their stored rows out (sign -1), their rows made
    -- again from the credits now stored in (sign 1).
    CREATE TEMP TABLE IF NOT EXISTS tapwire_notification_change (
        sign smallint, device_id text, notification_key text, name text, currency text, touch_time timestamptz,
        category text, has_media boolean, campaign text, platform text, first_kind smallint, direct bigint,
        influenced bigint, value numeric
    ) ON COMMIT DELETE ROWS;
    TRUNCATE tapwire_notification_change;

    WITH touched AS (
        SELECT DISTINCT device_id, notification_key, name, currency
        FROM tapwire_credit_change WHERE notification_key IS NOT NULL
    ), removed AS (
        DELETE FROM notification_conversions n
        USING touched k
        WHERE n.app_id = p_app AND n.device_id = k.device_id AND n.notification_key = k.notification_key
          AND n.name = k.name AND n.currency = k.currency
        RETURNING n.*
    )
    INSERT INTO tapwire_notification_change
    SELECT -1, device_id, notification_key, name, currency, touch_time, category, has_media, campaign, platform,
           first_kind, direct, influenced, value
    FROM removed;

    INSERT INTO tapwire_notification_change
    SELECT 1, s.device_id, s.notification_key, s.name, s.currency,
           (array_agg(s.touch_time ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.category ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.has_media ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.campaign ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.platform ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.kind ORDER BY s.event_time, s.event_id))[1],
           count(*) FILTER (WHERE s.kind = 1), count(*) FILTER (WHERE s.kind = 2), sum(s.value)
    FROM conversion_credits s
    JOIN (SELECT DISTINCT device_id, notification_key, name, currency
          FROM tapwire_credit_change WHERE notification_key IS NOT NULL) k
      ON s.device_id = k.device_id AND s.notification_key = k.notification_key AND s.name = k.name AND s.currency = k.currency
    WHERE s.app_id = p_app
    GROUP BY s.device_id, s.notification_key, s.name, s.currency;

    ANALYZE tapwire_notification_change;
    INSERT INTO notification_conversions (app_id, device_id, notification_key, name, currency, touch_time, category,
                                          has_media, campaign, platform, first_kind, direct, influenced, value)
    SELECT p_app, device_id, notification_key, name, currency, touch_time, category, has_media, campaign, platform,
           first_kind, direct, influenced, value
    FROM tapwire_notification_change WHERE sign = 1;

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
            value_sq = t.value_sq + excluded.value_sq, value_cube = t.value_cube + excluded.value_cube;
    DELETE FROM rollup_conversions t
    WHERE t.app_id = p_app AND t.converted = 0
      AND (t.day, t.category, t.has_media, t.name, t.currency) IN (SELECT tapwire_utc_day(touch_time), category, has_media, name, currency
                                                                   FROM tapwire_notification_change);

    INSERT INTO rollup_conversion_strata AS t (app_id, day, category, campaign, platform, name, currency,
                                              rich_converted, text_converted)
    SELECT p_app, tapwire_utc_day(touch_time), category, campaign, platform, name, currency,
           coalesce(sum(sign) FILTER (WHERE has_media), 0), coalesce(sum(sign) FILTER (WHERE NOT has_media), 0)
    FROM tapwire_notification_change
    GROUP BY 2, 3, 4, 5, 6, 7
    ORDER BY 2, 3, 4, 5, 6, 7
    ON CONFLICT (app_id, day, category, campaign, platform, name, currency) DO UPDATE
        SET rich_converted = t.rich_converted + excluded.rich_converted,
            text_converted = t.text_converted + excluded.text_converted;
    DELETE FROM rollup_conversion_strata t
    WHERE t.app_id = p_app AND t.rich_converted = 0 AND t.text_converted = 0
      AND (t.day, t.category, t.campaign, t.platform, t.name, t.currency) IN (
          SELECT tapwire_utc_day(touch_time), category, campaign, platform, name, currency FROM tapwire_notification_change);
    RETURN v_changed;
END
$fn$;

-- Queues every conversion of [p_from, p_to) of an app (every app when NULL) for attribution, so
-- the next fold recomputes its credit: the rollups rebuild and a change of an app's windows use
-- it. A credit that does not change writes nothing.
CREATE FUNCTION tapwire_queue_attribution(p_app bigint, p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_queued bigint;
BEGIN
    -- PL/pgSQL, not SQL: Citus cannot plan a query on a distributed table that uses a SQL
    -- function's arguments (migration 0121).
    SELECT count(*) INTO v_queued
    FROM events
    WHERE (p_app IS NULL OR app_id = p_app) AND type = 'conversion' AND event_time >= p_from AND event_time < p_to;
    IF v_queued > 0 THEN
        INSERT INTO attribution_pending (app_id, device_ids, event_times, conversions)
        SELECT app_id, array_agg(device_id), array_agg(event_time), array_agg(true)
        FROM events
        WHERE (p_app IS NULL OR app_id = p_app) AND type = 'conversion'
          AND event_time >= p_from AND event_time < p_to
        GROUP BY app_id;
    END IF;
    RETURN v_queued;
END
$fn$;
