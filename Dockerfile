# The Tapwire collector image. Build: `docker compose build` (or `docker build -t tapwire .`).
#
# Both stages install their Debian packages with scripts/install-deps.sh, the same script
# `make run` and `make test` use, so the image and a developer machine cannot drift apart.
# SWIFT_IMAGE is an official Swift 6 image on Debian 12 (bookworm), matching the runtime stage's
# Debian; use the toolchain version the project is developed with.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
WORKDIR /src
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN scripts/install-deps.sh build && rm -rf /var/lib/apt/lists/*
COPY . .
# The Swift runtime and Foundation are linked statically, so the runtime stage needs only the
# C libraries; the SQL under sql/ is embedded in the binary at build time.
RUN swift build -c release --product tapwire --static-swift-stdlib \
 && install -D -m 755 "$(swift build -c release --show-bin-path)/tapwire" /out/tapwire

FROM ${RUNTIME_IMAGE}
COPY scripts/install-deps.sh /usr/local/lib/tapwire/install-deps.sh
RUN /usr/local/lib/tapwire/install-deps.sh runtime && rm -rf /var/lib/apt/lists/* \
 && useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin tapwire
COPY --from=build /out/tapwire /usr/local/bin/tapwire
COPY deploy/docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
USER tapwire
# Listen on every interface inside the container; the port is the collector's default.
ENV TAPWIRE_HOST=0.0.0.0 \
    TAPWIRE_PORT=8080 \
    TAPWIRE_DATA_DIR=/tmp/tapwire
EXPOSE 8080
# /healthz: the process is up. Readiness (database reachable) is /readyz, which the load
# balancer checks; a collector whose database is down must stay up to answer 503 + Retry-After.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${TAPWIRE_PORT}/healthz" >/dev/null || exit 1
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["serve"]
