-- Step 1 of reading a report's edge minutes (TapwireStore/ReportEdgeEvents.swift): app $1 and
-- the ranges [$2[i], $3[i]) (arrays of instants, ISO 8601) that report_edge_events.sql reads, as
-- transaction-local settings: COPY takes no bind parameters, and this way the values still travel
-- as parameters, never inside the statement's text.
SELECT set_config('tapwire.edge_app', $1::bigint::text, true),
       set_config('tapwire.edge_from', $2::timestamptz[]::text, true),
       set_config('tapwire.edge_to', $3::timestamptz[]::text, true)
