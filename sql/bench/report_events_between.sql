-- `tapwire-bench report`: the events of app $1 in [$2, $3), the days a time-limited rebuild got through.
SELECT count(*) FROM events WHERE app_id = $1::bigint AND event_time >= $2::timestamptz AND event_time < $3::timestamptz
