#!/bin/sh
# Runs once, when the postgres volume is first initialised (docker-entrypoint-initdb.d): the
# read-only role Grafana connects as. It may read every table the collectors' role creates
# later (migrations, daily event partitions), and change none.
set -eu
: "${GRAFANA_DB_USER:?}" "${GRAFANA_DB_PASSWORD:?}" "${POSTGRES_USER:?}" "${POSTGRES_DB:?}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
     -v reader="$GRAFANA_DB_USER" -v password="$GRAFANA_DB_PASSWORD" \
     -v owner="$POSTGRES_USER" -v db="$POSTGRES_DB" <<'SQL'
CREATE ROLE :"reader" LOGIN PASSWORD :'password' NOSUPERUSER NOCREATEDB NOCREATEROLE;
GRANT CONNECT ON DATABASE :"db" TO :"reader";
GRANT USAGE ON SCHEMA public TO :"reader";
GRANT SELECT ON ALL TABLES IN SCHEMA public TO :"reader";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT SELECT ON TABLES TO :"reader";
ALTER ROLE :"reader" SET default_transaction_read_only = on;
ALTER ROLE :"reader" SET statement_timeout = '30s';
SQL
