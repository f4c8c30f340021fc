-- 0201: randomised holdouts, kept as assignments and conversions arrive (docs/holdouts.md).
--
-- A device's assignment in a campaign is its first assignment event for that campaign (earliest
-- time, ties by the smaller event id). It converted when a conversion of the device (of the
-- campaign's conversion name, or of any name) lies in [assigned, assigned + window), the window
-- being the campaign's, else the app's. Its value is the sum of those conversions' values.
-- Devices post late and out of order, so each commit queues the (device, time) of its new
-- assignments and conversions (holdout_pending), and the fold recomputes the holdout rows of
-- those devices and adds the change of each to rollup_holdouts. The result depends only on which
-- events are stored, never on their order. The fold reads a device's events through 0161's
-- events_by_device, only over the queued span and the windows that reach it.

ALTER TABLE events ADD COLUMN held_out boolean,
                   ADD COLUMN holdout_share double precision;

-- The app's conversion window after an assignment, and a campaign's own window or conversion
-- name when it has one.
-- (The check is its own command: Citus refuses a column added with a constraint in one.)
ALTER TABLE apps ADD COLUMN holdout_window interval NOT NULL DEFAULT interval '7 days';
ALTER TABLE apps ADD CONSTRAINT apps_holdout_window_check
    CHECK (holdout_window > interval '0' AND holdout_window <= interval '90 days');
CREATE TABLE holdout_campaigns (
    app_id            bigint   NOT NULL,
    campaign          text     NOT NULL,
    conversion_window interval CHECK (conversion_window > interval '0' AND conversion_window <= interval '90 days'),
    conversion_name   text,
    PRIMARY KEY (app_id, campaign)
);

-- One row per app and commit: the install ids and times of its new assignments and conversions.
CREATE TABLE holdout_pending (
    app_id      bigint        NOT NULL,
    device_ids  text[]        NOT NULL,
    event_times timestamptz[] NOT NULL,
    CHECK (cardinality(device_ids) = cardinality(event_times))
);
CREATE INDEX holdout_pending_by_app ON holdout_pending (app_id);

-- Each device's first assignment per campaign, and what it converted within the window.
CREATE TABLE holdout_assignments (
    app_id        bigint           NOT NULL,
    campaign      text             NOT NULL,
    device_id     text             NOT NULL,
    event_id      uuid             NOT NULL,
    assigned_at   timestamptz      NOT NULL,
    held_out      boolean          NOT NULL,
    holdout_share double precision NOT NULL,
    converted_at  timestamptz,
    value         numeric          NOT NULL,
    PRIMARY KEY (app_id, campaign, device_id)
);
CREATE INDEX holdout_assignments_by_device ON holdout_assignments (app_id, device_id);

-- Per campaign, arm, stated holdout share and UTC day: devices assigned that day, devices whose
-- first conversion in the window fell on that day, and the sum, squares and cubes of those
-- devices' values (a device's value sits on its first conversion's day). A report sums the days.
CREATE TABLE rollup_holdouts (
    app_id        bigint           NOT NULL,
    campaign      text             NOT NULL,
    held_out      boolean          NOT NULL,
    holdout_share double precision NOT NULL,
    day           timestamptz      NOT NULL,
    assigned      bigint           NOT NULL,
    converted     bigint           NOT NULL,
    value_sum     numeric          NOT NULL,
    value_sq      numeric          NOT NULL,
    value_cube    numeric          NOT NULL,
    PRIMARY KEY (app_id, campaign, held_out, holdout_share, day)
);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('holdout_campaigns', 'distributed', 'holdout settings, co-located with events'),
    ('holdout_pending', 'distributed', 'holdout queue, co-located with events'),
    ('holdout_assignments', 'distributed', 'holdouts, co-located with events'),
    ('rollup_holdouts', 'distributed', 'report rollup, co-located with events');
SELECT tapwire_apply_citus_layout();

-- A collector older than this migration queues no holdout work for its conversions: its commits
-- are refused (57P03, answered with 503 and Retry-After), as 0161 did.
ALTER TABLE rollup_delta_batches ADD COLUMN holdouts_queued boolean NOT NULL DEFAULT true;
CREATE FUNCTION tapwire_refuse_batch_without_holdouts() RETURNS boolean
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'a collector older than migration 0201 appended a batch without queueing its holdouts; upgrade it'
        USING ERRCODE = '57P03';
END
$fn$;
ALTER TABLE rollup_delta_batches ALTER COLUMN holdouts_queued SET DEFAULT tapwire_refuse_batch_without_holdouts();

-- Recomputes the holdout rows of the devices queued for `p_app`, stores those that changed and
-- adds their change to rollup_holdouts; returns how many rows changed. Under an advisory lock per
-- app, so two folds never apply one change twice. Each statement reads one app.
CREATE FUNCTION tapwire_holdouts_pending(p_app bigint) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_window  interval;
    v_devices text[];
    v_from    timestamptz[];
    v_to      timestamptz[];
    v_changed bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(7358201, p_app::integer);
    SELECT holdout_window INTO v_window FROM apps WHERE app_id = p_app;
    IF NOT FOUND THEN
        DELETE FROM holdout_pending WHERE app_id = p_app;
        RETURN 0;
    END IF;

    WITH taken AS (
        DELETE FROM holdout_pending WHERE app_id = p_app RETURNING device_ids, event_times
    ), queued AS (
        SELECT u.device_id, min(u.event_time) AS from_time, max(u.event_time) AS to_time
        FROM taken, unnest(taken.device_ids, taken.event_times) AS u (device_id, event_time)
        GROUP BY u.device_id
    )
    SELECT array_agg(device_id ORDER BY device_id), array_agg(from_time ORDER BY device_id),
           array_agg(to_time ORDER BY device_id)
    INTO v_devices, v_from, v_to
    FROM queued;
    IF v_devices IS NULL THEN
        RETURN 0;
    END IF;

    CREATE TEMP TABLE IF NOT EXISTS tapwire_holdout_change (
        sign smallint, campaign text, device_id text, event_id uuid, assigned_at timestamptz, held_out boolean,
        holdout_share double precision, converted_at timestamptz, value numeric
    ) ON COMMIT DELETE ROWS;
    TRUNCATE tapwire_holdout_change;

    -- The stored rows of the queued devices, out.
    INSERT INTO tapwire_holdout_change
    SELECT -1, s.campaign, s.device_id, s.event_id, s.assigned_at, s.held_out, s.holdout_share, s.converted_at, s.value
    FROM unnest(v_devices) AS q (device_id)
    JOIN holdout_assignments s ON s.app_id = p_app AND s.device_id = q.device_id;

    -- Their rows made again. The first assignment per campaign is the earliest of the stored one
    -- and the assignments in the queued span (an assignment can only displace the stored one by
    -- arriving, and so by being queued). A row's conversions are read again when its window
    -- reaches the queued span; otherwise nothing queued can change them and the stored ones stay
    -- (so a dropped partition never takes a conversion out of the rollups).
    WITH q AS (
        SELECT * FROM unnest(v_devices, v_from, v_to) AS q (device_id, from_time, to_time)
    ), candidates AS (
        SELECT s.campaign, s.device_id, s.event_id, s.assigned_at, s.held_out, s.holdout_share,
               true AS stored, s.converted_at, s.value
        FROM tapwire_holdout_change s WHERE s.sign = -1
        UNION ALL
        SELECT e.campaign, e.device_id, e.event_id, e.event_time, e.held_out, e.holdout_share, false, NULL, NULL
        FROM q JOIN events e ON e.app_id = p_app AND e.device_id = q.device_id AND e.type = 'assignment'
                            AND e.event_time >= q.from_time AND e.event_time <= q.to_time
        WHERE e.campaign IS NOT NULL AND e.held_out IS NOT NULL AND e.holdout_share IS NOT NULL
    ), firsts AS (
        SELECT DISTINCT ON (c.device_id, c.campaign) c.*, q.from_time,
               coalesce(hc.conversion_window, v_window) AS conversion_window, hc.conversion_name
        FROM candidates c
        JOIN q ON q.device_id = c.device_id
        LEFT JOIN holdout_campaigns hc ON hc.app_id = p_app AND hc.campaign = c.campaign
        ORDER BY c.device_id, c.campaign, c.assigned_at, c.event_id
    )
    INSERT INTO tapwire_holdout_change
    SELECT 1, f.campaign, f.device_id, f.event_id, f.assigned_at, f.held_out, f.holdout_share,
           CASE WHEN f.stored AND f.assigned_at + f.conversion_window <= f.from_time THEN f.converted_at ELSE c.converted_at END,
           CASE WHEN f.stored AND f.assigned_at + f.conversion_window <= f.from_time THEN f.value ELSE coalesce(c.value, 0) END
    FROM firsts f
    CROSS JOIN LATERAL (
        SELECT min(e.event_time) AS converted_at, sum(coalesce(e.conversion_value::numeric, 0)) AS value
        FROM events e
        WHERE e.app_id = p_app AND e.device_id = f.device_id AND e.type = 'conversion'
          AND e.event_time >= f.assigned_at AND e.event_time < f.assigned_at + f.conversion_window
          AND (f.conversion_name IS NULL OR e.conversion_name = f.conversion_name)
          AND NOT (f.stored AND f.assigned_at + f.conversion_window <= f.from_time)
    ) c;

    -- A row unchanged appears once with each sign: drop both.
    DELETE FROM tapwire_holdout_change x
    USING (SELECT campaign, device_id FROM tapwire_holdout_change
           GROUP BY campaign, device_id, event_id, assigned_at, held_out, holdout_share, converted_at, value
           HAVING count(*) = 2) same
    WHERE x.campaign = same.campaign AND x.device_id = same.device_id;
    SELECT count(*) FILTER (WHERE sign = 1) INTO v_changed FROM tapwire_holdout_change;
    IF v_changed = 0 THEN
        RETURN 0;
    END IF;

    DELETE FROM holdout_assignments s
    USING tapwire_holdout_change x
    WHERE x.sign = -1 AND s.app_id = p_app AND s.campaign = x.campaign AND s.device_id = x.device_id;
    INSERT INTO holdout_assignments (app_id, campaign, device_id, event_id, assigned_at, held_out, holdout_share,
                                     converted_at, value)
    SELECT p_app, campaign, device_id, event_id, assigned_at, held_out, holdout_share, converted_at, value
    FROM tapwire_holdout_change WHERE sign = 1;

    -- Each change: an assignment on its day, a conversion and its value on the first conversion's day.
    INSERT INTO rollup_holdouts AS t (app_id, campaign, held_out, holdout_share, day, assigned, converted,
                                      value_sum, value_sq, value_cube)
    SELECT p_app, campaign, held_out, holdout_share, day, sum(assigned), sum(converted), sum(value_sum),
           sum(value_sq), sum(value_cube)
    FROM (SELECT campaign, held_out, holdout_share, tapwire_utc_day(assigned_at) AS day, sign::bigint AS assigned,
                 0::bigint AS converted, 0::numeric AS value_sum, 0::numeric AS value_sq, 0::numeric AS value_cube
          FROM tapwire_holdout_change
          UNION ALL
          SELECT campaign, held_out, holdout_share, tapwire_utc_day(converted_at), 0, sign, sign * value,
                 sign * value * value, sign * value * value * value
          FROM tapwire_holdout_change WHERE converted_at IS NOT NULL) d
    GROUP BY 2, 3, 4, 5
    ORDER BY 2, 3, 4, 5
    ON CONFLICT (app_id, campaign, held_out, holdout_share, day) DO UPDATE
        SET assigned = t.assigned + excluded.assigned, converted = t.converted + excluded.converted,
            value_sum = t.value_sum + excluded.value_sum, value_sq = t.value_sq + excluded.value_sq,
            value_cube = t.value_cube + excluded.value_cube;
    RETURN v_changed;
END
$fn$;

-- Queues every assignment and conversion of [p_from, p_to) of an app (every app when NULL), so
-- the next fold recomputes their devices' holdout rows: the rollups rebuild and a change of a
-- window use it. A row that does not change writes nothing.
CREATE FUNCTION tapwire_queue_holdouts(p_app bigint, p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE sql AS $fn$
    WITH queued AS (
        INSERT INTO holdout_pending (app_id, device_ids, event_times)
        SELECT app_id, array_agg(device_id), array_agg(event_time)
        FROM events
        WHERE (p_app IS NULL OR app_id = p_app) AND type IN ('assignment', 'conversion') AND device_id IS NOT NULL
          AND event_time >= p_from AND event_time < p_to
        GROUP BY app_id
        RETURNING cardinality(device_ids) AS n
    )
    SELECT coalesce(sum(n), 0)::bigint FROM queued
$fn$;
