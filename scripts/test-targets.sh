#!/usr/bin/env bash
# Runs the test targets one after another (each target's tests run in parallel within it), so
# the heavy suites of one target (a 200k-event demo, 100k categories, a kill -9 loop) do not
# starve the timing-sensitive tests of another on a 2-core machine. Fails if any target fails,
# after running them all. Extra arguments go to every `swift test`.
set -uo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
targets=$(ls -d Tests/*Tests | xargs -n1 basename)
failed=()
for target in $targets; do
  echo "== $target"
  if ! "$swift" test --skip-build --filter "^$target\." "$@"; then
    failed+=("$target")
  fi
done
if ((${#failed[@]})); then
  echo "test-targets: failed: ${failed[*]}" >&2
  exit 1
fi
echo "test-targets: all passed ($(echo $targets | wc -w) targets)"
