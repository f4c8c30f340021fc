-- A digest of the report rollups of one app: compared before and after `tapwire rollups rebuild`.
SELECT (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_counts t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_actions t WHERE app_id = $1::bigint),
       (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM rollup_histograms t WHERE app_id = $1::bigint)
