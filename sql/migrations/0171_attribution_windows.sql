-- 0171: an app's attribution windows can change (`tapwire apps attribution`), and every credit
-- of the app then follows the new windows (docs/outcomes.md, "Windows").
--
-- Sets the windows of app `p_app` and queues every stored conversion of the app
-- (tapwire_queue_attribution, migration 0161), so the caller's own call of
-- tapwire_attribute_pending, or else the next fold, recomputes every credit under the new windows
-- and adds each change to the rollups, as if the conversions had been stored with them. Returns
-- how many conversions it queued. The windows are checked by the columns' constraints (0161).
CREATE FUNCTION tapwire_set_attribution_windows(p_app bigint, p_direct interval, p_influence interval) RETURNS bigint
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM pg_advisory_xact_lock(7358161, p_app::integer);
    UPDATE apps SET direct_window = p_direct, influence_window = p_influence WHERE app_id = p_app;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no app with id %', p_app USING ERRCODE = 'P0002';
    END IF;
    RETURN tapwire_queue_attribution(p_app, '-infinity', 'infinity');
END
$fn$;
