-- Per-statement database time, when the server preloads pg_stat_statements (make bench does).
CREATE EXTENSION IF NOT EXISTS pg_stat_statements
