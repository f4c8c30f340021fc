-- 0171: an app's attribution windows can change (`tapwire apps attribution`), and every credit
-- of the app then follows the new windows (docs/outcomes.md, "Windows").
--
-- Sets the windows of app `p_app` and queues every stored conversion of the app that has an
-- install id (each device at its first and last conversion: the fold recomputes every conversion
-- of a device between its earliest and latest queued time), so the next fold, or the caller's
-- own call of tapwire_attribute_pending, recomputes every credit under the new windows and adds
-- each change to the rollups, as if the conversions had been stored with them. Returns how many
-- devices it queued. The windows are checked by the columns' constraints (migration 0161).
CREATE FUNCTION tapwire_set_attribution_windows(p_app bigint, p_direct interval, p_influence interval) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_devices bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(7358161, p_app::integer);
    UPDATE apps SET direct_window = p_direct, influence_window = p_influence WHERE app_id = p_app;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no app with id %', p_app USING ERRCODE = 'P0002';
    END IF;
    SELECT count(*) INTO v_devices
    FROM (SELECT DISTINCT device_id FROM events WHERE app_id = p_app AND type = 'conversion' AND device_id IS NOT NULL) d;
    IF v_devices > 0 THEN
        INSERT INTO attribution_pending (app_id, device_ids, event_times)
        SELECT p_app, array_agg(q.device_id ORDER BY q.device_id, q.event_time), array_agg(q.event_time ORDER BY q.device_id, q.event_time)
        FROM (SELECT device_id, min(event_time) AS first_time, max(event_time) AS last_time
              FROM events
              WHERE app_id = p_app AND type = 'conversion' AND device_id IS NOT NULL
              GROUP BY device_id) c
        CROSS JOIN LATERAL (VALUES (c.device_id, c.first_time), (c.device_id, c.last_time)) AS q (device_id, event_time);
    END IF;
    RETURN v_devices;
END
$fn$;
