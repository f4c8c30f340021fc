-- After the switches: the segments they filled are renamed for reuse, not removed
-- (up to max_wal_size), as on a server that has been running for a while.
CHECKPOINT
