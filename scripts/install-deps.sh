#!/usr/bin/env bash
# Installs what building, running and testing Tapwire need on Debian 12, when it is missing:
# the C libraries it links (libpq, zlib, libmicrohttpd), pkg-config, and the PostgreSQL server
# used by `make run` and `make test`. Extra packages can be named as arguments.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in pkg-config libpq-dev zlib1g-dev libmicrohttpd-dev postgresql "$@"; do
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
  # A fresh machine may have no package lists yet; retry once after updating them.
  $sudo apt-get install -y --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
    $sudo apt-get update -q >/dev/null
    $sudo apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
  }
fi

if ! command -v swift >/dev/null; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "install-deps: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "install-deps: the Swift 6 toolchain is not installed (https://www.swift.org/install/linux/)" >&2
  fi
  exit 1
fi
