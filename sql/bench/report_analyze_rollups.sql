ANALYZE rollup_counts, rollup_actions, rollup_histograms
