#!/usr/bin/env bash
# The report benchmark of `make bench`: REPORT_BENCH_EVENTS (default 10M) events of each shape of
# REPORT_BENCH_SHAPES (default benchmark,real,outcomes) loaded straight into events, `tapwire rollups
# rebuild` (killed after REPORT_BENCH_REBUILD_LIMIT seconds, default 900), the rollups' rows and
# bytes, then the 30-day report from rollups (must be < 100 ms), the shapes alternated, vs from raw
# events, in UTC and in Asia/Kolkata (whose midnights fall mid-hour). docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
url="${TAPWIRE_DATABASE_URL:-${TAPWIRE_TEST_DATABASE_URL:?run under scripts/with-postgres.sh or set TAPWIRE_DATABASE_URL}}"
.build/release/tapwire-bench report --database-url "$url" --tapwire .build/release/tapwire \
  --shape "${REPORT_BENCH_SHAPES:-${TAPWIRE_BENCH_SHAPES:-benchmark,real,outcomes}}" --events "${REPORT_BENCH_EVENTS:-10000000}" \
  --rebuild-limit "${REPORT_BENCH_REBUILD_LIMIT:-900}" "$@"
