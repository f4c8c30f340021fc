-- Readiness probe: the database answers.
SELECT 1
