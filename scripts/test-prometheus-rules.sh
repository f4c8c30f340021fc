#!/usr/bin/env bash
# Checks and unit-tests the Prometheus alert rules with promtool (Debian package `prometheus`,
# installed here when missing). Also what the Swift tests need: `promtool check metrics`, and the
# Prometheus server that Tests/EndToEndTests/PrometheusAlertTests.swift starts.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v promtool >/dev/null 2>&1 || ! command -v prometheus >/dev/null 2>&1; then
    echo "promtool not found: installing Debian's prometheus package" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
promtool check rules dashboards/prometheus/alerts.yml
(cd dashboards/prometheus && promtool test rules alerts_test.yml)
