#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster, then stops and deletes the cluster
# whatever the command's outcome. The command sees TAPWIRE_TEST_DATABASE_URL (a superuser URL
# to the `postgres` database) and TAPWIRE_PG_BINDIR.
#   scripts/with-postgres.sh swift test
set -euo pipefail

bindir=""
for v in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
  [ -x "/usr/lib/postgresql/$v/bin/pg_ctl" ] && { bindir="/usr/lib/postgresql/$v/bin"; break; }
done
[ -n "$bindir" ] || { echo "with-postgres: no PostgreSQL server found; run scripts/install-deps.sh" >&2; exit 1; }

# /tmp is searchable by every user, so the postgres user can reach the cluster when we are root.
dir=$(mktemp -d /tmp/tapwire-pg.XXXXXX)
chmod 755 "$dir"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres:postgres "$dir"
  as_pg=(runuser -u postgres --)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 55439)

cleanup() {
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
# If this script is killed (SIGKILL: no trap runs), a guardian in a session of its own stops the
# cluster: its stdin is a pipe only this script holds, which the kernel closes when the script
# ends, however it ends. Nothing this script starts inherits the pipe ({guard}>&-).
exec {guard}> >(exec setsid sh -c 'while read -r _; do :; done; shift; "$@" >/dev/null 2>&1; rm -rf "$0"' \
  "$dir" -- "${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop)

"${as_pg[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 {guard}>&- \
  || { cat "$dir/initdb.log" >&2; exit 1; }
# Durability is off unless TAPWIRE_PG_DURABLE=1 (benchmarks): this cluster is thrown away.
settings="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300"
if [ "${TAPWIRE_PG_DURABLE:-0}" = 1 ]; then
  settings="$settings -c shared_buffers=256MB -c max_wal_size=2GB"
else
  settings="$settings -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
fi
# TAPWIRE_PG_SETTINGS adds server settings, e.g. "-c shared_preload_libraries=pg_stat_statements".
settings="$settings ${TAPWIRE_PG_SETTINGS:-}"
"${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 -o "$settings" \
  start >/dev/null {guard}>&- || { cat "$dir/postgres.log" >&2; exit 1; }

export TAPWIRE_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:$port/postgres?sslmode=disable"
export TAPWIRE_PG_BINDIR="$bindir"
# The command runs in the background so that a SIGTERM or SIGINT (a timeout, ^C) reaches this
# script at once (bash runs a trap only after its foreground command ends): it is passed on to
# the command, and the cluster is stopped once the command has ended. `<&0` keeps the script's
# stdin for it (a background command's is /dev/null otherwise).
set +e
"$@" <&0 {guard}>&- &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' INT TERM
wait "$child"
status=$?
# A wait cut short by a trapped signal returns 128+n: wait again for the command's own status.
while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done
set -e
exit $status
