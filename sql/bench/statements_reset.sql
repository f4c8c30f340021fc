SELECT pg_stat_statements_reset()
