#!/usr/bin/env bash
# Runs the test targets one after another (each target's tests run in parallel within it), so
# the heavy suites of one target (a 200k-event demo, 100k categories, a kill -9 loop) do not
# starve the timing-sensitive tests of another on a 2-core machine. Fails if any target fails,
# after running them all. Extra arguments go to every `swift test`.
#
# Each target's output is also kept, and a failed target's failure lines (Swift Testing's ✘ and
# recorded issues, XCTest's "error:" and "failed" lines) are printed again at the very end: CI
# shows only the tail of what a run printed, and that tail must name the test that failed.
set -uo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
targets=$(ls -d Tests/*Tests | xargs -n1 basename)
logs=$(mktemp -d "${TMPDIR:-/tmp}/tapwire-test-targets.XXXXXX")
trap 'rm -rf "$logs"' EXIT
failed=()
for target in $targets; do
  echo "== $target"
  if ! "$swift" test --skip-build --filter "^$target\." "$@" 2>&1 | tee "$logs/$target.log"; then
    failed+=("$target")
  fi
done
if ((${#failed[@]})); then
  for target in "${failed[@]}"; do
    echo "== what failed in $target (at most 60 lines):" >&2
    grep -E '✘|error:|: failed|Test Case .* failed|Fatal error|signal [0-9]+|Exited with' "$logs/$target.log" \
      | grep -v -E '^\s*$' | head -60 >&2
  done
  echo "test-targets: failed: ${failed[*]}" >&2
  exit 1
fi
echo "test-targets: all passed ($(echo $targets | wc -w) targets)"
