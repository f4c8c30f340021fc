#!/bin/sh
# The collector container's entrypoint: `serve` (the default) first applies the schema
# migrations, waiting for the database to accept connections, then becomes the collector.
# Several collectors starting at once take turns on the migration advisory lock. Any other
# command runs as `tapwire COMMAND…` (`docker compose run --rm tapwire apps create myapp`).
set -eu
: "${TAPWIRE_DATABASE_URL:?set TAPWIRE_DATABASE_URL (see .env.example)}"

if [ "${1:-serve}" = serve ]; then
  tries=${TAPWIRE_MIGRATE_TRIES:-30}
  n=1
  until tapwire migrate; do
    if [ "$n" -ge "$tries" ]; then
      echo "docker-entrypoint: tapwire migrate failed $tries times; giving up" >&2
      exit 1
    fi
    echo "docker-entrypoint: database not ready (attempt $n of $tries); retrying in 2 s" >&2
    n=$((n + 1))
    sleep 2
  done
fi
exec tapwire "$@"
