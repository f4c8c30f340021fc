-- 0090: the webhook outbox of migration 0021 announces every family's findings (category
-- mismatches and release regressions), so it is renamed finding_alerts and its key gains
-- `detail`: what tells apart findings of one kind and category. '' for mismatches (announced per
-- category, as before); the outcome for a release regression (`opens`, `action:accept`, …), each
-- its own broken button. Rows already announced keep their state: nothing is sent again.
ALTER TABLE mismatch_alerts RENAME TO finding_alerts;
ALTER INDEX mismatch_alerts_due RENAME TO finding_alerts_due;
ALTER TABLE finding_alerts ADD COLUMN detail text NOT NULL DEFAULT '';
ALTER TABLE finding_alerts DROP CONSTRAINT mismatch_alerts_pkey;
ALTER TABLE finding_alerts ADD CONSTRAINT finding_alerts_pkey PRIMARY KEY (app_id, app_version, kind, category, detail);

UPDATE tapwire_table_layout SET table_name = 'finding_alerts', reason = 'webhook outbox, one row per app finding'
WHERE table_name = 'mismatch_alerts';
