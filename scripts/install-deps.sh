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
#     citus    what building the Citus extension from source needs (scripts/install-citus.sh): a
#              compiler, the compression and Kerberos headers, and the server headers pinned to the
#              installed server's exact version (newer headers than the server break Citus 13.2.2)
#     list-build, list-runtime, list-dev   print that profile's packages, one a line, and exit
set -euo pipefail

# The C libraries Tapwire links (Package.swift systemLibrary targets) and their runtime packages.
build_pkgs=(pkg-config libpq-dev zlib1g-dev libmicrohttpd-dev)
runtime_pkgs=(libpq5 zlib1g libmicrohttpd12 libstdc++6 ca-certificates curl)
dev_pkgs=("${build_pkgs[@]}" postgresql)
check_pkgs=(haproxy prometheus)
citus_pkgs=(build-essential liblz4-dev libzstd-dev libkrb5-dev)

# The server's major version and exact Debian version, for the pinned server headers.
server_version() {
  local major
  major=$(ls /usr/lib/postgresql 2>/dev/null | sort -rn | head -1)
  [ -n "$major" ] || return 1
  echo "$major $(dpkg-query -W -f='${Version}' "postgresql-$major" 2>/dev/null)"
}

profile=dev
case "${1:-}" in
  dev|build|runtime|check|citus) profile=$1; shift ;;
  list-build) printf '%s\n' "${build_pkgs[@]}"; exit 0 ;;
  list-runtime) printf '%s\n' "${runtime_pkgs[@]}"; exit 0 ;;
  list-dev) printf '%s\n' "${dev_pkgs[@]}"; exit 0 ;;
esac
case $profile in
  dev) wanted=("${dev_pkgs[@]}") ;;
  build) wanted=("${build_pkgs[@]}") ;;
  runtime) wanted=("${runtime_pkgs[@]}") ;;
  check) wanted=("${check_pkgs[@]}") ;;
  citus)
    read -r major version < <(server_version) || { echo "install-deps: no PostgreSQL server installed" >&2; exit 1; }
    [ -n "${version:-}" ] || { echo "install-deps: postgresql-$major is not a Debian package here; install its server headers by hand" >&2; exit 1; }
    wanted=("${citus_pkgs[@]}" "postgresql-server-dev-$major=$version") ;;
esac

need=()
# A package, or package=version for an exact version.
have_pkg() {
  local name=${1%%=*} status
  status=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null) || return 1
  case $status in "install ok installed "*) ;; *) return 1 ;; esac
  [ "$name" = "$1" ] || [ "${status##* }" = "${1#*=}" ]
}
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
  # --allow-downgrades: a pinned version (the server headers) may be older than one installed.
  $sudo apt-get install -y --no-install-recommends --allow-downgrades "${need[@]}" >/dev/null 2>&1 || {
    $sudo apt-get update -q >/dev/null
    $sudo apt-get install -y --no-install-recommends --allow-downgrades "${need[@]}" >/dev/null
  }
fi

case $profile in runtime|check|citus) exit 0 ;; esac

if ! command -v swift >/dev/null; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "install-deps: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "install-deps: the Swift 6 toolchain is not installed (https://www.swift.org/install/linux/)" >&2
  fi
  exit 1
fi
