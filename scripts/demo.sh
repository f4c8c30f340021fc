#!/usr/bin/env bash
# make demo: a collector (in the `tapwire demo` process, on a loopback port) posts ~200k
# simulated events through the HTTP API, prints the engagement report and writes report.html.
# Uses TAPWIRE_DATABASE_URL when set, else the throwaway cluster of scripts/with-postgres.sh.
# Extra arguments go to `tapwire demo` (e.g. --uplift 4 --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/tapwire
url="${TAPWIRE_DATABASE_URL:-${TAPWIRE_TEST_DATABASE_URL:-}}"
if [ -z "$url" ]; then
  exec scripts/with-postgres.sh "$0" "$@"
fi
"$bin" migrate --database-url "$url" >/dev/null
"$bin" demo --database-url "$url" --html report.html "$@"
echo "open report.html in a browser for the charts"
