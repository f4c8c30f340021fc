-- 0040: grain 4 of rollup_counts, the strata of the adjusted rich vs text-only difference.
--
-- The report compares rich with text-only inside each stratum of campaign × app version ×
-- platform (a Mantel–Haenszel difference) before pooling, so a difference in the mix of
-- campaigns cannot pose as a difference in engagement. Those sums need no local days, only
-- exact range edges, as the action totals: grain 4 holds them per UTC day (`hour` is the day's
-- midnight; variant is ''), and the report reads the hours around whole UTC days from grain 0.
-- A 30-day report then reads 30 rows per category and stratum, not 720 per variant.
--
-- Group commits maintain grain 4 from now on (sql/fresh/10_rollup_counts.sql); this fills it
-- from grain 0 for what is already stored. The lock keeps commits of collectors already
-- running the new statements from adding to a day while it is being filled.
LOCK TABLE rollup_counts IN EXCLUSIVE MODE;

ALTER TABLE rollup_counts DROP CONSTRAINT rollup_counts_grain_check;
ALTER TABLE rollup_counts ADD CONSTRAINT rollup_counts_grain_check CHECK (grain IN (0, 1, 4));

INSERT INTO rollup_counts (app_id, grain, hour, category, app_version, platform, campaign, variant,
    has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
SELECT app_id, 4, tapwire_utc_day(hour), category, app_version, platform, campaign, '', has_media,
    sum(delivered), sum(sent), sum(media_requested), sum(opens), sum(dismissals), sum(actions), sum(replies)
FROM rollup_counts
WHERE grain = 0
GROUP BY app_id, tapwire_utc_day(hour), category, app_version, platform, campaign, has_media
ORDER BY 1, 3, 4, 5, 6, 7, 9
ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, has_media) DO NOTHING;
