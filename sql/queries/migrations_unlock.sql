SELECT pg_advisory_unlock(7358000)
