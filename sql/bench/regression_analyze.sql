-- `tapwire-bench regressions`: fresh planner statistics after the bulk load and the rebuild.
ANALYZE events, rollup_release_counts, rollup_release_actions
