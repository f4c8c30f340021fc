-- Totals of app $1 by category and rich/text-only from rollup_totals: the whole UTC days $2
-- (grain 2), summed, and the quarter hours $3 (grain 0) of the days the range's edges cut, summed
-- per cut day (`cut_day`, days since 1970-01-01; NULL for the whole days). The plan of what to
-- read is TapwireReport/ReportPlan.swift; the minutes off the quarter hour come from events.
SELECT category, has_media,
    CASE WHEN grain = 0 THEN (date_part('epoch', bucket)::bigint / 86400) END AS cut_day,
    sum(delivered)::bigint AS delivered, sum(sent)::bigint AS sent, sum(media_requested)::bigint AS media_requested,
    sum(opens)::bigint AS opens, sum(dismissals)::bigint AS dismissals, sum(actions)::bigint AS actions,
    sum(replies)::bigint AS replies
FROM rollup_totals
WHERE app_id = $1::bigint
  AND ((grain = 2 AND bucket = ANY ($2::timestamptz[])) OR (grain = 0 AND bucket = ANY ($3::timestamptz[])))
GROUP BY 1, 2, 3
