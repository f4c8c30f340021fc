-- The outbox by state, for /metrics and tests.
SELECT state, count(*)::bigint FROM finding_alerts GROUP BY state ORDER BY state
