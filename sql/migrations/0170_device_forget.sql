-- 0170: a device's data can be forgotten (docs/outcomes.md, "Forgetting a device").
--
-- A third kind of key, `admin` (twa_…), may delete: it is made with `tapwire keys rotate APP
-- --kind admin`, never ships in an app and cannot post or read reports.
ALTER TABLE api_keys DROP CONSTRAINT api_keys_kind_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('write', 'read', 'admin'));

-- Removes everything that holds install id `p_device` of app `p_app`: its events (through
-- events_by_device), its conversions' credits, its notifications' conversion rows, the span of
-- its conversions (attribution_devices) and its entries in the attribution queue. The rollups are anonymous counts and stay as they are.
-- Returns a row per table with how many rows it removed or rewrote. Under attribution's lock of
-- the app (tapwire_attribute_pending), so a fold running beside it never writes a credit back.
-- Each statement reads one app: on Citus it is routed to the app's shard.
CREATE FUNCTION tapwire_forget_device(p_app bigint, p_device text) RETURNS TABLE (held_in text, removed bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_count bigint;
    v_row   record;
BEGIN
    PERFORM pg_advisory_xact_lock(7358161, p_app::integer);

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
END
$fn$;
