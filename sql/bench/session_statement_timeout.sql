-- `tapwire-bench report`: the raw-events baseline gives up after the benchmark's time limit ($1,
-- e.g. '60s'; '0' is none), like every other timed step of it.
SELECT set_config('statement_timeout', $1::text, false)
