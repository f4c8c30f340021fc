-- The release-regression check, step 1: the app versions that delivered in [$2, $3) (whole UTC
-- days from $2 up to the end of the last look, $3, an hour), each with the first UTC day the
-- release rollups hold it on: its release as they saw it, where its comparison starts. That
-- first day is one probe of rollup_release_counts_version per version. Days in µs since 1970.
SELECT v.app_version,
       (extract(epoch FROM (SELECT min(r.day) FROM rollup_release_counts r
                            WHERE r.app_id = $1::bigint AND r.app_version = v.app_version)) * 1000000)::bigint
FROM (SELECT c.app_version
      FROM rollup_release_counts c
      WHERE c.app_id = $1::bigint AND c.day >= $2::timestamptz AND c.day < $3::timestamptz AND c.app_version <> ''
        -- A delivery in an hour before $3: on a day wholly before it, in any hour; on the
        -- last day, in its first ceil(($3 - day) / 1 h) hours.
        AND 0 < ANY (CASE WHEN c.day + interval '1 day' <= $3::timestamptz THEN c.delivered
                          ELSE c.delivered[1:ceil(extract(epoch FROM $3::timestamptz - c.day) / 3600)::integer] END)
      GROUP BY c.app_version) v
ORDER BY 1
