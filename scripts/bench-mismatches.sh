#!/usr/bin/env bash
# Mismatch detection benchmark (part of `make bench`, run under scripts/with-postgres.sh):
# 30 days of 10M events in a scratch database; prints detection time from the rollups against
# a raw-event scan of the same events.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TAPWIRE_TEST_DATABASE_URL:?run under scripts/with-postgres.sh (or set TAPWIRE_TEST_DATABASE_URL to a superuser URL)}"
binary="${TAPWIRE_BENCH_BINARY:-.build/release/tapwire-bench}"
events="${TAPWIRE_BENCH_MISMATCH_EVENTS:-10000000}"
db="bench_mismatch_$$"
base="${TAPWIRE_TEST_DATABASE_URL%%\?*}"
query=""
[[ "$TAPWIRE_TEST_DATABASE_URL" == *\?* ]] && query="?${TAPWIRE_TEST_DATABASE_URL#*\?}"
url="${base%/*}/$db$query"
psql "$TAPWIRE_TEST_DATABASE_URL" -qc "CREATE DATABASE $db"
trap 'psql "$TAPWIRE_TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true' EXIT
"$binary" mismatches --events "$events" --days 30 --database-url "$url"
