-- 0322: conversion_credits' two widest secondary indexes hold only what their readers look up
-- (issue 35; docs/outcomes.md, "Attribution's WAL by relation").
--
-- A fold writes every changed credit, and at the outcomes shape nearly every credit is new: its
-- heap row and four index entries were 82 % of tapwire_attribute_pending's WAL (pg_walinspect
-- over a bench run, docs/benchmarks.md). Two of those entries carried more than any reader uses:
--   * conversion_credits_by_touch (app_id, touch_time) held every credit, and both of its
--     readers, the conversion report's actions by day (report_conversion_actions.sql,
--     report_raw_conversion_actions.sql), read direct credits only (`kind = 1`): influenced and
--     unattributed credits are now left out of it (a partial index; the bench's credits are
--     nearly all direct, so its saving is an app's with influenced conversions);
--   * conversion_credits_by_notification (app_id, device_id, notification_key) was read by its
--     prefix alone: the fold reads the changed devices' credits (`device_id = ANY`) and joins them
--     by hash with the changed notifications' keys (0307), `devices forget` deletes a device's
--     credits, and retention's trim of notification_conversions looks for a device's credits of
--     one notification, a few rows a device. The notification's key (42 bytes of an
--     `event:`-prefixed id) is no longer in each entry: conversion_credits_by_device
--     (app_id, device_id), whose equal keys B-tree deduplication also stores once per page.
-- No credit, row or figure changes: the same statements read the same rows. Nothing else of the
-- schema changes, so older collectors run unchanged.
DROP INDEX conversion_credits_by_touch;
CREATE INDEX conversion_credits_by_touch ON conversion_credits (app_id, touch_time) WHERE kind = 1;
DROP INDEX conversion_credits_by_notification;
CREATE INDEX conversion_credits_by_device ON conversion_credits (app_id, device_id);
