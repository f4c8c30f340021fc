-- 0323: the holdouts' fold reads a queued device's events only when something of it can change
-- (issue 35; docs/holdouts.md, "What is kept, and how it stays right"). Since 0201 the collector
-- queued every new assignment AND every conversion with an install id, and the fold read
-- `events` (events_by_device, keyed (app_id, device_id) since 0270: every event of the device
-- fetched and filtered) for the assignments in each queued device's span, although at the
-- outcomes shape, conversions and no holdout at all, no device has any.
--
-- The queue now says which entries are assignments (`assignments`, parallel to device_ids, as
-- attribution_pending's `conversions`; NULL from an older collector, or from 0202's forgetting,
-- which puts entries back without it, is "maybe", so they are read as before). The fold reads
-- assignments only for devices with a queued (or maybe) assignment, and a device at all only if
-- it has one or a stored holdout_assignments row. Exact: an assignment of the device stored in
-- `events` either (a) was queued by a commit (or a rebuild's tapwire_queue_holdouts) whose queue
-- row an earlier fold took: that fold's read of `events` came after its DELETE saw the queue row,
-- committed with the event, so it saw the event, and the stored row of its campaign is it or an
-- earlier one (a row leaves holdout_assignments only by forgetting, which deletes the device's
-- events too, or by retention's trim of rows assigned 90 days before its horizon, whose counts
-- rollup_holdouts keeps), so it can displace nothing; or (b) its queue row is taken by this same call, flagged true or NULL, and the device
-- is read; or (c) it committed after this call's DELETE, and the next fold takes its queue row.
-- A device with neither a stored row nor a queued assignment then has no first assignment to
-- make, and its conversions count nowhere until an assignment arrives, whose fold reads them
-- from `events` by the assignment's window (so a conversion posted before it still counts).
-- A stored row's conversions are read again as before. 0271's setting is restated (CREATE OR
-- REPLACE resets a function's settings); same signature, so older collectors run it unchanged.
-- (The check is its own command: Citus refuses a column added with a constraint in one.)
ALTER TABLE holdout_pending ADD COLUMN assignments boolean[];
ALTER TABLE holdout_pending ADD CONSTRAINT holdout_pending_assignments_check
    CHECK (cardinality(assignments) = cardinality(device_ids));

CREATE OR REPLACE FUNCTION tapwire_holdouts_pending(p_app bigint) RETURNS bigint
LANGUAGE plpgsql SET enable_bitmapscan = off AS $fn$
DECLARE
    v_window  interval;
    v_devices text[];
    v_from    timestamptz[];
    v_to      timestamptz[];
    v_assigned boolean[];
    v_changed bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(7358201, p_app::integer);
    SELECT holdout_window INTO v_window FROM apps WHERE app_id = p_app;
    IF NOT FOUND THEN
        DELETE FROM holdout_pending WHERE app_id = p_app;
        RETURN 0;
    END IF;

    WITH taken AS (
        DELETE FROM holdout_pending WHERE app_id = p_app RETURNING device_ids, event_times, assignments
    ), queued AS (
        -- A NULL array (an older collector's row) unnests as NULLs: "maybe an assignment".
        SELECT u.device_id, min(u.event_time) AS from_time, max(u.event_time) AS to_time,
               bool_or(u.assignment IS NOT false) AS assigned
        FROM taken, unnest(taken.device_ids, taken.event_times, taken.assignments) AS u (device_id, event_time, assignment)
        GROUP BY u.device_id
    )
    SELECT array_agg(device_id ORDER BY device_id), array_agg(from_time ORDER BY device_id),
           array_agg(to_time ORDER BY device_id), array_agg(assigned ORDER BY device_id)
    INTO v_devices, v_from, v_to, v_assigned
    FROM queued;
    IF v_devices IS NULL THEN
        RETURN 0;
    END IF;

    CREATE TEMP TABLE IF NOT EXISTS tapwire_holdout_change (
        sign smallint, campaign text, device_id text, event_id uuid, assigned_at timestamptz, held_out boolean,
        holdout_share double precision, converted_at timestamptz, value numeric
    ) ON COMMIT DELETE ROWS;
    -- Empty at a transaction's first call (the commit before emptied it in place), so nothing is
    -- done and it keeps its file and the function its plans; a fold of several apps calls this
    -- once per app in one transaction, and a later call truncates what the previous app left
    -- (0306).
    IF EXISTS (SELECT FROM tapwire_holdout_change) THEN
        TRUNCATE tapwire_holdout_change;
    END IF;

    -- The stored rows of the queued devices, out.
    INSERT INTO tapwire_holdout_change
    SELECT -1, s.campaign, s.device_id, s.event_id, s.assigned_at, s.held_out, s.holdout_share, s.converted_at, s.value
    FROM unnest(v_devices) AS q (device_id)
    JOIN holdout_assignments s ON s.app_id = p_app AND s.device_id = q.device_id;

    -- Only the devices with a stored row or a queued assignment can change (0323, at the top:
    -- an assignment not queued here was folded before, or is queued for the next fold).
    -- Conversions alone of a device never assigned are read by no statement below. This reads
    -- only the scratch table and the arrays (no distributed table, so one plan on Citus too).
    SELECT array_agg(q.device_id ORDER BY q.device_id), array_agg(q.from_time ORDER BY q.device_id),
           array_agg(q.to_time ORDER BY q.device_id), array_agg(q.assigned ORDER BY q.device_id)
    INTO v_devices, v_from, v_to, v_assigned
    FROM unnest(v_devices, v_from, v_to, v_assigned) AS q (device_id, from_time, to_time, assigned)
    WHERE q.assigned OR q.device_id IN (SELECT x.device_id FROM tapwire_holdout_change x);
    IF v_devices IS NULL THEN
        RETURN 0;
    END IF;

    -- Their rows made again. The first assignment per campaign is the earliest of the stored one
    -- and the assignments in the queued span (an assignment can only displace the stored one by
    -- arriving, and so by being queued). A row's conversions are read again when its window
    -- reaches the queued span; otherwise nothing queued can change them and the stored ones stay
    -- (so a dropped partition never takes a conversion out of the rollups).
    WITH q AS (
        SELECT * FROM unnest(v_devices, v_from, v_to, v_assigned) AS q (device_id, from_time, to_time, assigned)
    ), candidates AS (
        SELECT s.campaign, s.device_id, s.event_id, s.assigned_at, s.held_out, s.holdout_share,
               true AS stored, s.converted_at, s.value
        FROM tapwire_holdout_change s WHERE s.sign = -1
        UNION ALL
        SELECT e.campaign, e.device_id, e.event_id, e.event_time, e.held_out, e.holdout_share, false, NULL, NULL
        FROM q JOIN events e ON e.app_id = p_app AND e.device_id = q.device_id AND e.type = 'assignment'
                            AND e.event_time >= q.from_time AND e.event_time <= q.to_time
        WHERE q.assigned AND e.campaign IS NOT NULL AND e.held_out IS NOT NULL AND e.holdout_share IS NOT NULL
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


-- A rebuild's queue (0219's function) says which entries are assignments too, so its conversions
-- alone are not read either. Otherwise unchanged.
CREATE OR REPLACE FUNCTION tapwire_queue_holdouts(p_app bigint, p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_queued bigint := 0;
    v_row    record;
BEGIN
    FOR v_row IN
        INSERT INTO holdout_pending (app_id, device_ids, event_times, assignments)
        SELECT app_id, array_agg(device_id), array_agg(event_time), array_agg(type = 'assignment')
        FROM events
        WHERE (p_app IS NULL OR app_id = p_app) AND type IN ('assignment', 'conversion') AND device_id IS NOT NULL
          AND event_time >= p_from AND event_time < p_to
        GROUP BY app_id
        RETURNING cardinality(device_ids) AS n
    LOOP
        v_queued := v_queued + v_row.n;
    END LOOP;
    RETURN v_queued;
END
$fn$;
