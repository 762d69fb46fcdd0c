#!/usr/bin/env bash
# What `make test` needs beyond Go: Java 17 and Maven (Elasticsearch and
# Kafka run from Maven Central artifacts), unzip, curl, runuser (to run
# Elasticsearch as an unprivileged user when the caller is root), and
# python3 with venv (the API fuzzer), Node.js, npm and Chromium (the
# admin panel). Missing packages are installed with
# apt-get when this runs as root on a Debian-like machine (CI); otherwise
# it stops with the exact command to run. With Docker, or with
# AUDITLOG_TEST_ES_URL and AUDITLOG_TEST_KAFKA_BROKERS set, Java and Maven
# are not needed.
set -euo pipefail

need=()
local_services=1
if [ -n "${AUDITLOG_TEST_ES_URL:-}" ] && [ -n "${AUDITLOG_TEST_KAFKA_BROKERS:-}" ]; then
	local_services=0
elif docker info >/dev/null 2>&1; then
	local_services=0
fi
if [ $local_services = 1 ]; then
	command -v java >/dev/null || need+=(openjdk-17-jre-headless)
	command -v mvn >/dev/null || need+=(maven)
	command -v unzip >/dev/null || need+=(unzip)
	command -v runuser >/dev/null || need+=(util-linux)
fi
command -v curl >/dev/null || need+=(curl)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3 python3-venv)
# The admin panel: Node.js and npm build and test it; Debian's chromium
# runs its browser tests (Playwright's own browser download does not work
# here).
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
command -v chromium >/dev/null || need+=(chromium)
command -v go >/dev/null || { echo "[prereqs] Go is required: install the version go.mod names (https://go.dev/dl/)" >&2; exit 1; }

if [ ${#need[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "[prereqs] installing ${need[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
	exit 0
fi
echo "[prereqs] make test needs packages this machine lacks. Install them, then run make test again:" >&2
if command -v apt-get >/dev/null; then
	echo "  sudo apt-get install -y ${need[*]}" >&2
else
	echo "  (Debian package names) ${need[*]}" >&2
fi
echo "  (or run Docker, or set AUDITLOG_TEST_ES_URL and AUDITLOG_TEST_KAFKA_BROKERS to existing services)" >&2
exit 1
