-- The report benchmark's raw-event baseline runs with PostgreSQL's default JIT setting ($1 =
-- 'on'), its best case for long scans; Tapwire's own sessions connect with jit=off.
SELECT set_config('jit', $1::text, false)
