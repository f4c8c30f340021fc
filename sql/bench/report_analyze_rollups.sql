ANALYZE rollup_totals, rollup_total_actions, rollup_total_histograms, rollup_trend, rollup_dismiss_base, rollup_strata, rollup_uplift_days, rollup_marginals
