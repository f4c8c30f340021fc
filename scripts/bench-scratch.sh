#!/usr/bin/env bash
# Runs one `tapwire-bench` subcommand that loads its own data (mismatches, regressions) in a
# scratch database, dropped afterwards (part of `make bench`, run under scripts/with-postgres.sh).
# Usage: scripts/bench-scratch.sh SUBCOMMAND [ARGUMENTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TAPWIRE_TEST_DATABASE_URL:?run under scripts/with-postgres.sh (or set TAPWIRE_TEST_DATABASE_URL to a superuser URL)}"
subcommand="${1:?usage: scripts/bench-scratch.sh SUBCOMMAND [ARGUMENTS...]}"
shift
binary="${TAPWIRE_BENCH_BINARY:-.build/release/tapwire-bench}"
db="bench_${subcommand}_$$"
base="${TAPWIRE_TEST_DATABASE_URL%%\?*}"
query=""
[[ "$TAPWIRE_TEST_DATABASE_URL" == *\?* ]] && query="?${TAPWIRE_TEST_DATABASE_URL#*\?}"
url="${base%/*}/$db$query"
psql "$TAPWIRE_TEST_DATABASE_URL" -qc "CREATE DATABASE $db"
trap 'psql "$TAPWIRE_TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true' EXIT
"$binary" "$subcommand" "$@" --database-url "$url"
