-- After each fold: the BRIN summaries of the recent partitions of events (migration 0070).
SELECT tapwire_summarize_recent_event_ranges()
