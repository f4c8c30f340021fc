-- The release-regression check, step 2: the app ($1) and UTC days [$2, $3) that
-- regression_counts.sql and regression_actions.sql read, as transaction-local settings. COPY
-- takes no bind parameters; this way the values still travel as parameters, never inside the
-- statement's text (as rollups_rebuild_range.sql does). The instants are kept as given (ISO 8601
-- with an offset), since the session's own text of a timestamptz depends on its DateStyle.
SELECT set_config('tapwire.regression_app', $1::bigint::text, true),
       set_config('tapwire.regression_from', $2::text, true),
       set_config('tapwire.regression_to', $3::text, true)
