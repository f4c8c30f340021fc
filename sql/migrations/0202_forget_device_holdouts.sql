-- 0202: forgetting a device (migration 0170, docs/outcomes.md "Forgetting a device") covers its
-- holdouts (docs/holdouts.md): its first assignments and what they converted (holdout_assignments)
-- and its entries in queued commits (holdout_pending). rollup_holdouts holds no install id and
-- keeps its counts, as the conversion rollups keep the credits 0170 removes.
--
-- The function of 0170 again, with two more tables, each a row of the result after 0170's. It
-- also takes the holdouts' lock of the app (tapwire_holdouts_pending), after attribution's, the
-- order a fold takes them in, so a fold running beside it never writes a removed row back.
-- Attribution's lock is the key tapwire_attribute_pending takes (hashint8 of the app): 0170 took
-- (7358161, app::integer), another key, so it never waited for a running attribution (0220).
CREATE OR REPLACE FUNCTION tapwire_forget_device(p_app bigint, p_device text) RETURNS TABLE (held_in text, removed bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_count bigint;
    v_row   record;
BEGIN
    PERFORM pg_advisory_xact_lock(7358161, hashint8(p_app));
    PERFORM pg_advisory_xact_lock(7358201, p_app::integer);

    DELETE FROM events WHERE app_id = p_app AND device_id = p_device;
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
                 RETURNING device_ids, event_times, conversions LOOP
        v_count := v_count + 1;
        INSERT INTO attribution_pending (app_id, device_ids, event_times, conversions)
        SELECT p_app, array_agg(u.device_id ORDER BY u.i), array_agg(u.event_time ORDER BY u.i), array_agg(u.conversion ORDER BY u.i)
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
