#!/usr/bin/env bash
# Fuzzes the body decoder for SECONDS (default 60) with each fuzzer: libFuzzer (coverage-guided,
# the build `make fuzz` makes in .build/libfuzzer) over the seeds and the regression inputs, then
# the seeded mutator (FUZZ_SEED, default 1). An input that breaks an invariant is saved under
# .build/fuzz-findings/ and the script exits 1; replay it with `tapwire-fuzz --replay FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
findings=.build/fuzz-findings
corpus=.build/fuzz-corpus
seeds=.build/fuzz-seeds
mkdir -p "$findings" "$corpus"
.build/debug/tapwire-fuzz --write-seeds "$seeds" >/dev/null

status=0
libfuzzer=.build/libfuzzer/debug/tapwire-fuzz
if [ -x "$libfuzzer" ]; then
  echo "fuzz: libFuzzer for ${seconds}s (corpus $corpus)"
  log=$findings/libfuzzer.log
  # The Swift backtracer would hide the crash from libFuzzer, which then could not save the input.
  if SWIFT_BACKTRACE=enable=no "$libfuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=3000 \
      -seed=1 -artifact_prefix="$findings/" -print_final_stats=1 "$corpus" "$seeds" Tests/Fuzz/regressions >"$log" 2>&1; then
    grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss" "$log" | sed 's/^/fuzz:   /'
  else
    status=1
    grep -E "Fatal error|ERROR|Test unit written|SUMMARY" "$log" | sed 's/^/fuzz:   /' || true
    echo "fuzz: libFuzzer found a problem; full log in $log"
  fi
else
  echo "fuzz: $libfuzzer is not built (make fuzz builds it); seeded mutator only"
fi

echo "fuzz: seeded mutator for ${seconds}s"
.build/debug/tapwire-fuzz --seconds "$seconds" --seed "${FUZZ_SEED:-1}" --findings "$findings" --corpus Tests/Fuzz/regressions \
  | grep -v " s: " | sed 's/^/fuzz:   /' || status=1
[ "${PIPESTATUS[0]}" = 0 ] || status=1
exit $status
