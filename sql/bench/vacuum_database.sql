-- `tapwire-bench report`, before it times anything: the state autovacuum keeps a live database in
-- (visibility map set, statistics fresh). Right after a bulk load and a rebuild, autovacuum's
-- first pass over the just-written rollups runs for about a minute, and the report timed first
-- (UTC, in zone order) ran beside it: slower for the real shape than Kolkata's, measured later,
-- though it reads fewer rows (docs/reports.md, "What each report reads, and what it costs").
VACUUM (ANALYZE)
