#!/usr/bin/env bash
# The report benchmark of `make bench`: 10M events loaded straight into events, rollups
# rebuilt, then the 30-day report from rollups (must be < 100 ms) vs from raw events, in UTC and
# in Asia/Kolkata (whose midnights fall mid-hour).
set -euo pipefail
cd "$(dirname "$0")/.."
url="${TAPWIRE_DATABASE_URL:-${TAPWIRE_TEST_DATABASE_URL:?run under scripts/with-postgres.sh or set TAPWIRE_DATABASE_URL}}"
.build/release/tapwire-bench report --database-url "$url" --events "${REPORT_BENCH_EVENTS:-10000000}" "$@"
