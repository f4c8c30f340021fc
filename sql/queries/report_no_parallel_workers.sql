-- The report's transaction: a rollup read touches few rows, so starting parallel workers costs
-- more than it saves, and on a busy server a worker can take seconds to start. SET LOCAL: it
-- ends with the transaction.
SET LOCAL max_parallel_workers_per_gather = 0
