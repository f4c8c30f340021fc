#!/usr/bin/env bash
# Makes the Citus extension available to the installed PostgreSQL server, when it is missing.
# Citus is not packaged for Debian, so it is built from a source tarball: TAPWIRE_CITUS_SOURCE
# (its default is below), a `git archive` of a Citus release tag that supports the server's
# major version. The build is kept under .build/citus/,
# keyed by the tarball and the server's version, so a second run only installs it again (when the
# server's directories lost it) and never rebuilds. How it builds: docs/deployment.md, "Citus".
#
#   scripts/install-citus.sh          install when missing; exit 0 when Citus is there
#   scripts/install-citus.sh --check  exit 0 when installed, 1 when not, and install nothing
#
# When Citus cannot be had (no tarball, no root), it says why and how to get it and exits 3;
# with CI=true it exits 1 instead, so CI fails rather than skipping the cluster tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bindir=""
for v in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
  [ -x "/usr/lib/postgresql/$v/bin/pg_ctl" ] && { bindir="/usr/lib/postgresql/$v/bin"; major=$v; break; }
done
[ -n "$bindir" ] || { echo "install-citus: no PostgreSQL server found; run scripts/install-deps.sh" >&2; exit 1; }

installed() {
  local config=$bindir/pg_config
  [ -x "$config" ] || config=$(command -v pg_config || true)
  # Without pg_config (no server headers yet) Debian's layout is known.
  local libdir=/usr/lib/postgresql/$major/lib share=/usr/share/postgresql/$major
  if [ -n "$config" ] && [ -x "$config" ]; then libdir=$("$config" --pkglibdir); share=$("$config" --sharedir); fi
  [ -f "$libdir/citus.so" ] && [ -f "$share/extension/citus.control" ]
}

if installed; then exit 0; fi
[ "${1:-}" = --check ] && exit 1

unavailable() {
  echo "install-citus: Citus is not installed and cannot be built: $1" >&2
  echo "install-citus: set TAPWIRE_CITUS_SOURCE to a Citus source tarball (git archive of a release tag" >&2
  echo "install-citus: that supports PostgreSQL $major, e.g. v13.2.2 of https://github.com/citusdata/citus)" >&2
  echo "install-citus: and run scripts/install-citus.sh as root (or with sudo)" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  exit 3
}

# The tarball: TAPWIRE_CITUS_SOURCE, else a citus-13.2.2.tar.gz whose sha256 is that of the
# `git archive` of tag v13.2.2, found under .build/citus/ or within three directory levels of the
# checkout's parent directory (where a machine keeps sources beside its checkouts).
# docs/deployment.md, "Setting it up".
citus_release=citus-13.2.2.tar.gz
citus_sha256=cc5fb2bc63b877065796b362d3335c94110ef22869d0590f84960bb76c2945c4
source_tarball=${TAPWIRE_CITUS_SOURCE:-}
if [ -z "$source_tarball" ]; then
  while IFS= read -r candidate; do
    if [ "$(sha256sum "$candidate" | cut -d' ' -f1)" = "$citus_sha256" ]; then source_tarball=$candidate; break; fi
  done < <(find "$root/.build/citus" "$(dirname "$root")" -maxdepth 3 -name "$citus_release" -type f 2>/dev/null)
fi
[ -n "$source_tarball" ] || unavailable "TAPWIRE_CITUS_SOURCE is not set and no $citus_release with the release's sha256 is under .build/citus or beside the checkout"
[ -f "$source_tarball" ] || unavailable "no source tarball at $source_tarball"

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null && sudo -n true 2>/dev/null || unavailable "installing into the server's directories needs root or sudo"
  sudo="sudo"
fi

server=$(dpkg-query -W -f='${Version}' "postgresql-$major" 2>/dev/null || "$bindir/postgres" --version | awk '{print $3}')
key=$(sha256sum "$source_tarball" | cut -c1-12)-pg$server
build=$root/.build/citus/$key

if [ ! -f "$build/.built" ]; then
  scripts/install-deps.sh citus
  echo "install-citus: building Citus from $source_tarball for PostgreSQL $server (a few minutes, once)" >&2
  rm -rf "$build"
  mkdir -p "$build"
  tar -xzf "$source_tarball" -C "$build"
  # The tarball may or may not hold a top directory.
  src=$build
  [ -f "$src/configure" ] || src=$(dirname "$(ls "$build"/*/configure | head -1)")
  (
    cd "$src"
    # libcurl only serves Citus's anonymous statistics collection.
    PG_CONFIG=$bindir/pg_config ./configure --without-libcurl >"$build/configure.log" 2>&1 \
      || { tail -20 "$build/configure.log" >&2; exit 1; }
    make -j"$(nproc)" >"$build/make.log" 2>&1 || { tail -30 "$build/make.log" >&2; exit 1; }
  )
  echo "$src" >"$build/.built"
fi

src=$(cat "$build/.built")
scripts/install-deps.sh citus
echo "install-citus: installing Citus into PostgreSQL $server's directories" >&2
(cd "$src" && $sudo make install >"$build/install.log" 2>&1) || { tail -20 "$build/install.log" >&2; exit 1; }
installed || { echo "install-citus: make install ran but citus.so or citus.control is still missing" >&2; exit 1; }
echo "install-citus: Citus installed" >&2
