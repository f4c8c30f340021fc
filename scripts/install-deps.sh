#!/usr/bin/env bash
# Installs what building, running and testing Tapwire need on Debian 12, when it is missing.
# The one list of Debian packages: `make` (dev) and the Dockerfile (build, runtime) both call
# this script, so a machine and the container image cannot drift apart.
#
#   scripts/install-deps.sh [dev|build|runtime] [extra packages…]
#     dev      (default) build + the PostgreSQL server used by `make run` and `make test`;
#              checks the Swift toolchain
#     build    pkg-config and the C libraries' headers: what `swift build` needs (Dockerfile build stage)
#     runtime  the shared libraries the binary loads, plus curl for the container health check
#              (Dockerfile final stage); no compiler, no headers
#     check    the config checkers scripts/check-deploy.sh runs (haproxy -c, promtool)
#     list-build, list-runtime, list-dev   print that profile's packages, one a line, and exit
set -euo pipefail

# The C libraries Tapwire links (Package.swift systemLibrary targets) and their runtime packages.
build_pkgs=(pkg-config libpq-dev zlib1g-dev libmicrohttpd-dev)
runtime_pkgs=(libpq5 zlib1g libmicrohttpd12 libstdc++6 ca-certificates curl)
dev_pkgs=("${build_pkgs[@]}" postgresql)
check_pkgs=(haproxy prometheus)

profile=dev
case "${1:-}" in
  dev|build|runtime|check) profile=$1; shift ;;
  list-build) printf '%s\n' "${build_pkgs[@]}"; exit 0 ;;
  list-runtime) printf '%s\n' "${runtime_pkgs[@]}"; exit 0 ;;
  list-dev) printf '%s\n' "${dev_pkgs[@]}"; exit 0 ;;
esac
case $profile in
  dev) wanted=("${dev_pkgs[@]}") ;;
  build) wanted=("${build_pkgs[@]}") ;;
  runtime) wanted=("${runtime_pkgs[@]}") ;;
  check) wanted=("${check_pkgs[@]}") ;;
esac

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in "${wanted[@]}" "$@"; do
  have_pkg "$pkg" || need+=("$pkg")
done

if ((${#need[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${need[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "install-deps: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # A fresh machine (or a container image) may have no package lists yet; retry once after updating them.
  $sudo apt-get install -y --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
    $sudo apt-get update -q >/dev/null
    $sudo apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
  }
fi

[ "$profile" = runtime ] || [ "$profile" = check ] && exit 0

if ! command -v swift >/dev/null; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "install-deps: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "install-deps: the Swift 6 toolchain is not installed (https://www.swift.org/install/linux/)" >&2
  fi
  exit 1
fi
