#!/usr/bin/env bash
# The benchmarks of `make bench`, run inside scripts/with-postgres.sh (durable cluster:
# TAPWIRE_PG_DURABLE=1 keeps fsync and synchronous_commit on, as in production). Ingestion and
# the report run on both workload shapes (docs/benchmarks.md). Every part runs even when one
# fails; the script then exits 1 naming them.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/tapwire-bench
url="${TAPWIRE_TEST_DATABASE_URL:?run me through scripts/with-postgres.sh}"
failed=()
echo "== ingestion: end to end vs plain COPY, each shape; then a report's effect on it (issue 33)"
# TAPWIRE_BENCH_REPORT_PAIRS pairs of 20 s segments, quiet and with a reader (0: none): 5 pairs
# add 200 s per shape, and their median ratio does not hang on one segment (docs/benchmarks.md).
"$bin" ingest --database-url "$url" --tapwire .build/release/tapwire --shape "${TAPWIRE_BENCH_SHAPES:-benchmark,real,outcomes,holdouts}" \
  --with-reports "${TAPWIRE_BENCH_REPORT_PAIRS:-5}" "$@" || failed+=(ingest)
echo "== report: the 30-day engagement report from rollups vs from raw events, the benchmark and the real shape"
scripts/bench-report.sh || failed+=(report)
echo "== holdouts: the report of a campaign of 10M assigned devices against the engagement-only report"
scripts/bench-scratch.sh holdouts --devices "${TAPWIRE_BENCH_HOLDOUT_DEVICES:-10000000}" --tapwire .build/release/tapwire || failed+=(holdouts)
echo "== mismatch detection: 30 days of 10M events, rollups vs raw scan"
scripts/bench-scratch.sh mismatches --events "${TAPWIRE_BENCH_MISMATCH_EVENTS:-10000000}" --days 30 || failed+=(mismatches)
echo "== release-regression check: 14 days of 10M events, 20 categories"
scripts/bench-scratch.sh regressions --events "${TAPWIRE_BENCH_REGRESSION_EVENTS:-10000000}" --days 14 || failed+=(regressions)
if ((${#failed[@]})); then
  echo "bench: failed: ${failed[*]}" >&2
  exit 1
fi
