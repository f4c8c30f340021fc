-- A digest of the report rollups of one app: compared before and after `tapwire rollups rebuild`.
-- The strata's sums are exact decimals, digested without trailing zeros.
SELECT (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_totals t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_total_actions t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_total_histograms t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_trend t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_dismiss_base t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_dismiss_blocks t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_dismiss_versions t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_dismiss_quarters t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_strata t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(concat_ws(' ', day, category, strata, excluded_delivered, trim_scale(weights),
               trim_scale(numerator), trim_scale(p), trim_scale(q), trim_scale(null_sum), trim_scale(deviation), used_rich_delivered,
               used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered,
               both_text_engaged, not_meaningful_delivered, engaged_without_deliveries), E'\n' ORDER BY day, category)), '')
        FROM rollup_uplift_days WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_marginals t WHERE app_id = $1::bigint)
