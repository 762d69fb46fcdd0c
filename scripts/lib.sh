# Sourced by test.sh and bench.sh: find or start the real services, and
# stop on exit whatever was started.
#
# with_services finds Elasticsearch and Kafka, in this order:
#   (a) AUDITLOG_TEST_ES_URL and AUDITLOG_TEST_KAFKA_BROKERS, when both set;
#   (b) Docker, when an engine answers: testcontainers-go
#       (internal/testenv/containers);
#   (c) otherwise a local download from Maven Central (scripts/services.sh).
# It exports AUDITLOG_TEST_ES_URL, AUDITLOG_TEST_KAFKA_BROKERS and
# AUDITLOG_TEST_SERVICES (given, docker or local). The S3 server of the
# export tests (versitygw) comes with (c); in (a) and (b) it is started
# alone unless AUDITLOG_TEST_S3_ENDPOINT is given.

cleanup=()
on_exit() {
	local rc=$?
	local c
	for c in "${cleanup[@]}"; do eval "$c" || true; done
	exit $rc
}
trap on_exit EXIT

with_services() {
	if [ -n "${AUDITLOG_TEST_ES_URL:-}" ] && [ -n "${AUDITLOG_TEST_KAFKA_BROKERS:-}" ]; then
		export AUDITLOG_TEST_SERVICES=${AUDITLOG_TEST_SERVICES:-given}
	elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
		local envfile pid deadline
		envfile=$(mktemp)
		go run ./internal/testenv/containers -env "$envfile" &
		pid=$!
		cleanup+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f $envfile")
		deadline=$((SECONDS + 600))
		until [ -s "$envfile" ]; do
			kill -0 $pid 2>/dev/null || { echo "[services] testcontainers failed to start the services" >&2; exit 1; }
			[ $SECONDS -lt $deadline ] || { echo "[services] not ready after 600s" >&2; exit 1; }
			sleep 1
		done
		# shellcheck disable=SC1090
		. "$envfile"
	else
		cleanup+=("scripts/services.sh down")
		scripts/services.sh up
		eval "$(scripts/services.sh env)"
	fi
	if [ -z "${AUDITLOG_TEST_S3_ENDPOINT:-}" ]; then
		cleanup+=("scripts/services.sh s3-down")
		scripts/services.sh s3-up
		eval "$(scripts/services.sh env | grep AUDITLOG_TEST_S3_)"
	fi
	echo "[services] ($AUDITLOG_TEST_SERVICES): Elasticsearch $AUDITLOG_TEST_ES_URL, Kafka $AUDITLOG_TEST_KAFKA_BROKERS, S3 $AUDITLOG_TEST_S3_ENDPOINT"
}
