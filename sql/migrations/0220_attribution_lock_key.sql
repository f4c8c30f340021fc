-- 0220: changing an app's attribution windows waits for a running attribution of the app.
-- tapwire_attribute_pending (0161, 0190) takes pg_advisory_xact_lock(7358161, hashint8(app));
-- tapwire_set_attribution_windows (0171) took (7358161, app::integer), a different key, so a fold
-- attributing under the old windows could run beside it (tapwire_forget_device had the same
-- mismatch, fixed where 0202 replaces it). The function of 0171 with the fold's key.
CREATE OR REPLACE FUNCTION tapwire_set_attribution_windows(p_app bigint, p_direct interval, p_influence interval) RETURNS bigint
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM pg_advisory_xact_lock(7358161, hashint8(p_app));
    UPDATE apps SET direct_window = p_direct, influence_window = p_influence WHERE app_id = p_app;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no app with id %', p_app USING ERRCODE = 'P0002';
    END IF;
    RETURN tapwire_queue_attribution(p_app, '-infinity', 'infinity');
END
$fn$;
