#!/usr/bin/env bash
# Type-checks TapwireClient's Apple adapter (Sources/TapwireClient/AppleAdapter.swift) for iOS,
# macOS, watchOS, tvOS and visionOS, here on Linux, with Swift 6 and complete concurrency checking.
#
# For each platform: the stand-in UserNotifications module (UserNotifications.swift, written from
# Apple's headers) is cut to that platform's view, with every declaration whose header says
# API_UNAVAILABLE(<platform>) marked `@available(*, unavailable)`; the adapter's `#if os(…)` and
# `canImport(UserNotifications)` conditions are resolved to that platform's truth; then the whole
# TapwireClient module is type-checked with that adapter. Then the check proves it can fail: for
# tvOS, watchOS and macOS, an adapter copy with that platform's guards taken away (every `os(…)`
# false) uses API the headers mark unavailable there, and must be rejected for exactly that.
#
# Needs only swiftc and zlib.h (TapwireClient's CZlib, through TapwireZlib). Usage: Tests/AppleAdapterCheck/check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
swiftc=${SWIFTC:-swiftc}
here=Tests/AppleAdapterCheck
adapter=Sources/TapwireClient/AppleAdapter.swift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-swift-version 6 -strict-concurrency=complete -enable-upcoming-feature ExistentialAny)
core=()
for f in Sources/TapwireClient/*.swift; do [[ $f == "$adapter" ]] || core+=("$f"); done

# The SDK's own module dependencies, as Package.swift builds them: the wire format and zlib.
mkdir -p "$work/deps"
"$swiftc" -emit-module -parse-as-library -module-name TapwireWire "${flags[@]}" \
  -emit-module-path "$work/deps/TapwireWire.swiftmodule" Sources/TapwireWire/*.swift
"$swiftc" -emit-module -parse-as-library -module-name TapwireZlib "${flags[@]}" -I Sources/CZlib \
  -emit-module-path "$work/deps/TapwireZlib.swiftmodule" Sources/TapwireZlib/*.swift

# view <macro platform>: the stand-in as that platform sees it. A `//@` line naming the platform in
# API_UNAVAILABLE(…) becomes the attribute (same line, so diagnostics keep their line numbers);
# visionOS follows iOS unless the line names visionos itself.
view() {
  awk -v platform="$1" '
    /^[ \t]*\/\/@ / {
      rest = $0; off = 0
      while (match(rest, /API_UNAVAILABLE\([^)]*\)/)) {
        n = split(substr(rest, RSTART + 16, RLENGTH - 17), names, /[ ,]+/)
        for (i = 1; i <= n; i++) {
          if (names[i] == platform) off = 1
          if (platform == "visionos" && names[i] == "ios" && index($0, "visionos(") == 0) off = 1
        }
        rest = substr(rest, RSTART + RLENGTH)
      }
      if (off) {
        match($0, /^[ \t]*/); header = $2; sub(/:$/, "", header)
        print substr($0, 1, RLENGTH) "@available(*, unavailable, message: \"API_UNAVAILABLE(" platform ") in " header "\")"
        next
      }
    }
    { print }' "$here/UserNotifications.swift"
}

# resolve <Swift os name> <output file>: the adapter with its conditions decided for that platform
# (os(<name>) true, every other os(…) false). `none` makes every os(…) false.
resolve() {
  sed -E "/^[[:space:]]*#(if|elseif)/ {
            s/canImport\\(UserNotifications\\)/true/g
            s/os\\($1\\)/true/g
            s/os\\([A-Za-z]+\\)/false/g
          }" "$adapter" > "$2"
  if grep -En '^[[:space:]]*#(if|elseif).*[a-zA-Z]+\(' "$2" >&2; then
    echo "apple-adapter-check: a condition above is not resolved per platform; teach resolve() about it" >&2
    exit 1
  fi
}

# typecheck <macro platform> <resolved adapter>: prints the compiler's output, fails as it does.
typecheck() {
  "$swiftc" -typecheck -module-name TapwireClient "${flags[@]}" -I "$work/$1" -I "$work/deps" -I Sources/CZlib "${core[@]}" "$2" 2>&1
}

platforms=(ios:iOS macos:macOS watchos:watchOS tvos:tvOS visionos:visionOS)
failed=0
for entry in "${platforms[@]}"; do
  macro=${entry%%:*} name=${entry#*:}
  mkdir -p "$work/$macro/resolved"
  view "$macro" > "$work/$macro/UserNotifications.swift"
  "$swiftc" -emit-module -parse-as-library -module-name UserNotifications "${flags[@]}" \
    -emit-module-path "$work/$macro/UserNotifications.swiftmodule" "$work/$macro/UserNotifications.swift"
  resolve "$name" "$work/$macro/resolved/AppleAdapter.swift"
  if out=$(typecheck "$macro" "$work/$macro/resolved/AppleAdapter.swift"); then
    [[ -z $out ]] || echo "$out"
    echo "apple-adapter-check: $name: the adapter type-checks"
  else
    echo "$out" >&2
    echo "apple-adapter-check: $name: the adapter does NOT type-check (errors above)" >&2
    failed=1
  fi
done

# The check must be able to fail: each copy uses what the headers mark unavailable on that platform.
rejected=0
for expectation in "tvos:tvOS:UNNotificationResponse" "watchos:watchOS:hiddenPreviewsBodyPlaceholder" \
                   "macos:macOS:allowInCarPlay"; do
  IFS=: read -r macro name member <<< "$expectation"
  mkdir -p "$work/$macro/unguarded"
  resolve none "$work/$macro/unguarded/AppleAdapter.swift"
  if out=$(typecheck "$macro" "$work/$macro/unguarded/AppleAdapter.swift"); then
    echo "apple-adapter-check: $name: an adapter copy without its $name guards was ACCEPTED; the check cannot fail" >&2
    failed=1
  elif grep -q "error: '$member' is unavailable" <<< "$out"; then
    echo "apple-adapter-check: $name: an adapter copy without its $name guards is rejected ($(grep -cE '^[^ ].*: error: ' <<< "$out") errors, '$member' among them)"
    rejected=$((rejected + 1))
  else
    echo "$out" >&2
    echo "apple-adapter-check: $name: the unguarded copy failed, but not with \"'$member' is unavailable\"" >&2
    failed=1
  fi
done

if ((failed)); then exit 1; fi
echo "apple-adapter-check: all passed (${#platforms[@]} platforms type-check, $rejected unguarded copies rejected)"
