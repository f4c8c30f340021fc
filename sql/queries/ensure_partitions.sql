SELECT tapwire_ensure_event_partitions($1::date, $2::date)
