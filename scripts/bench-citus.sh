#!/usr/bin/env bash
# Tapwire on a three-node Citus cluster beside one PostgreSQL, on this machine, in one run
# (docs/deployment.md, "Past one machine"): `tapwire-bench ingest` against each, alternated
# PAIRS times, then `tapwire-bench report` against each. Every server is durable (fsync and
# synchronous_commit on, as `make bench`), with pg_stat_statements; the Citus coordinator and
# its two workers each get the settings the single server gets.
#   scripts/bench-citus.sh [PAIRS]    (after `swift build -c release`; Citus installed if missing)
# Environment: CITUS_BENCH_INGEST (extra `ingest` arguments, default "--batches 200 --rounds 3"),
# CITUS_BENCH_REPORT_EVENTS (default 2000000), CITUS_BENCH_SHARDS (citus.shard_count, default 8).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-2}
bench=.build/release/tapwire-bench
tapwire=.build/release/tapwire
[ -x "$bench" ] && [ -x "$tapwire" ] || { echo "bench-citus: build first: swift build -c release" >&2; exit 1; }
scripts/install-citus.sh

bindir=""
for v in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
  [ -x "/usr/lib/postgresql/$v/bin/pg_ctl" ] && { bindir="/usr/lib/postgresql/$v/bin"; break; }
done
dir=$(mktemp -d /tmp/tapwire-citus-bench.XXXXXX)
chmod 755 "$dir"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$dir"; as_pg=(runuser -u postgres --); fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

nodes=(plain coordinator worker1 worker2)
declare -A port
cleanup() {
  for node in "${nodes[@]}"; do
    [ -d "$dir/$node" ] && "${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/$node" -m immediate -w stop >/dev/null 2>&1 || true
  done
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

common="-c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=256MB -c max_wal_size=2GB"
for node in "${nodes[@]}"; do
  port[$node]=$(free_port)
  "${as_pg[@]}" "$bindir/initdb" -D "$dir/$node" -U postgres --auth=trust --encoding=UTF8 --locale=C >/dev/null
  preload="citus,pg_stat_statements"
  extra=""
  case $node in
    plain) preload="pg_stat_statements" ;;
    coordinator) extra="-c citus.shard_count=${CITUS_BENCH_SHARDS:-8}" ;;
  esac
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/$node" -l "$dir/$node.log" -w -t 60 \
    -o "-p ${port[$node]} -k $dir $common -c shared_preload_libraries=$preload $extra" start >/dev/null
done
url() { echo "postgresql://postgres@127.0.0.1:${port[$1]}/${2:-postgres}?sslmode=disable"; }
workers="$(url worker1),$(url worker2)"
echo "bench-citus: PostgreSQL on ${port[plain]}; Citus coordinator on ${port[coordinator]}, workers on ${port[worker1]} and ${port[worker2]}"

ingest=(${CITUS_BENCH_INGEST:---batches 200 --rounds 3})
for pair in $(seq 1 "$pairs"); do
  echo "== pair $pair: ingestion, one PostgreSQL"
  "$bench" ingest --database-url "$(url plain)" --tapwire "$tapwire" "${ingest[@]}"
  echo "== pair $pair: ingestion, Citus (coordinator + 2 workers)"
  "$bench" ingest --database-url "$(url coordinator)" --citus-workers "$workers" --tapwire "$tapwire" "${ingest[@]}"
done

# The report benchmark loads its events into the database it is given: a Citus database made as
# docs/deployment.md says, beside a plain one.
psql -X -q "$(url plain)" -c "CREATE DATABASE report"
for node in coordinator worker1 worker2; do
  psql -X -q "$(url $node)" -c "CREATE DATABASE report"
  psql -X -q "$(url $node report)" -c "CREATE EXTENSION citus"
done
psql -X -q "$(url coordinator report)" -c "SELECT citus_set_coordinator_host('127.0.0.1', ${port[coordinator]})" \
  -c "SELECT citus_add_node('127.0.0.1', ${port[worker1]})" -c "SELECT citus_add_node('127.0.0.1', ${port[worker2]})" >/dev/null
events=${CITUS_BENCH_REPORT_EVENTS:-2000000}
echo "== report: $events events, one PostgreSQL"
"$bench" report --database-url "$(url plain report)" --events "$events" || true
echo "== report: $events events, Citus"
"$bench" report --database-url "$(url coordinator report)" --events "$events" || true
