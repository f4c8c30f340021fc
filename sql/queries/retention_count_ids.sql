SELECT count(*) FROM event_ids WHERE received_at < $1::timestamptz
