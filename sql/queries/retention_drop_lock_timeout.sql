-- Before retention drops a detached partition: wait at most 30 s for the lock, then give up (the
-- next run retries) rather than stall the collectors queued behind the DROP. SET LOCAL, so it
-- ends with the transaction and nothing outlives it behind a transaction pooler.
SET LOCAL lock_timeout = '30s'
