#!/usr/bin/env bash
# Checks docker-compose.yml, the Dockerfile and the files they mount, without a Docker engine
# (scripts/check_deploy.py says what). Tools it needs are installed when missing:
# docker-compose 1.29.2 from PyPI into .build/deploy-tools (a venv), and Debian's haproxy and
# prometheus (promtool) through scripts/install-deps.sh.
#   scripts/check-deploy.sh [--tapwire .build/debug/tapwire] [--root DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${TAPWIRE_DEPLOY_TOOLS:-$here/../.build/deploy-tools}"
if ! "$venv/bin/docker-compose" version >/dev/null 2>&1; then
  echo "check-deploy: installing docker-compose 1.29.2 into $venv" >&2
  # --clear: a venv that was moved or copied (a worktree's copied .build) keeps scripts whose
  # first line names its old path; recreating it over them would leave them broken.
  python3 -m venv --clear "$venv"
  # docker-compose 1.29.2 pins PyYAML 5.x, whose source build needs Cython < 3.
  echo 'cython<3' > "$venv/constraints.txt"
  PIP_CONSTRAINT="$venv/constraints.txt" "$venv/bin/pip" install -q --disable-pip-version-check docker-compose==1.29.2 >&2
fi
if ! command -v haproxy >/dev/null || ! command -v promtool >/dev/null; then
  "$here/install-deps.sh" check
fi
exec "$venv/bin/python" "$here/check_deploy.py" --compose "$venv/bin/docker-compose" "$@"
