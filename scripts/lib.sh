# Sourced by test.sh and bench.sh: find or start the real services, and
# stop on exit whatever was started.
#
# with_services finds Elasticsearch and Kafka, in this order:
#   (a) AUDITLOG_TEST_ES_URL and AUDITLOG_TEST_KAFKA_BROKERS, when both set;
#   (b) Docker, when an engine answers: testcontainers-go
#       (internal/testkit/testenv/containers);
#   (c) otherwise a local download from Maven Central (scripts/services.sh),
#       started for this run alone: its own state directory and free ports,
#       so two `make test` runs, or `make test` beside `make services-up`,
#       never share (or stop) each other's services.
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

# free_port prints a port p, from a random start, such that p and p+$1
# are both free on 127.0.0.1 (Elasticsearch also listens on p+100,
# Kafka's controller on p+1). The ports lie below Linux's ephemeral range
# (32768 and up), from which every outgoing connection of the tests takes
# its local port: a port chosen there could be taken by a client socket
# before the service binds it.
free_port() {
	local span=${1:-0} p i
	for i in $(seq 1 200); do
		p=$((20000 + RANDOM % 12000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && ! (exec 3<>"/dev/tcp/127.0.0.1/$((p + span))") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	echo "[services] no free port found" >&2
	return 1
}

# own_services gives this run a state directory and ports of its own,
# unless the caller chose them (AUDITLOG_SERVICES_DIR).
own_services() {
	[ -z "${AUDITLOG_SERVICES_DIR:-}" ] || return 0
	AUDITLOG_SERVICES_DIR=$(mktemp -d "${TMPDIR:-/tmp}/auditlog-run.XXXXXX")
	AUDITLOG_TEST_ES_PORT=$(free_port 100)
	AUDITLOG_TEST_KAFKA_PORT=$(free_port 1)
	AUDITLOG_TEST_S3_PORT=$(free_port 0)
	export AUDITLOG_SERVICES_DIR AUDITLOG_TEST_ES_PORT AUDITLOG_TEST_KAFKA_PORT AUDITLOG_TEST_S3_PORT
	own_dir=$AUDITLOG_SERVICES_DIR
	echo "[services] this run's services live in $AUDITLOG_SERVICES_DIR (Elasticsearch :$AUDITLOG_TEST_ES_PORT, Kafka :$AUDITLOG_TEST_KAFKA_PORT, S3 :$AUDITLOG_TEST_S3_PORT)"
}

with_services() {
	if [ -n "${AUDITLOG_TEST_ES_URL:-}" ] && [ -n "${AUDITLOG_TEST_KAFKA_BROKERS:-}" ]; then
		export AUDITLOG_TEST_SERVICES=${AUDITLOG_TEST_SERVICES:-given}
	elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
		local envfile pid deadline
		envfile=$(mktemp)
		go run ./internal/testkit/testenv/containers -env "$envfile" &
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
		own_dir=
		own_services
		cleanup+=("scripts/services.sh down")
		# After `down` (cleanup runs in order): the run's state goes too.
		[ -z "$own_dir" ] || cleanup+=("rm -rf '$own_dir'")
		scripts/services.sh up
		eval "$(scripts/services.sh env)"
	fi
	if [ -z "${AUDITLOG_TEST_S3_ENDPOINT:-}" ]; then
		cleanup+=("scripts/services.sh s3-down")
		scripts/services.sh s3-up
		eval "$(scripts/services.sh env | grep AUDITLOG_TEST_S3_)"
	fi
	# litewitness, the witness of the cosigning tests and benchmark: built
	# once into the cache, each test starts its own.
	if [ -z "${AUDITLOG_TEST_LITEWITNESS:-}" ]; then
		scripts/services.sh litewitness
		eval "$(scripts/services.sh env | grep AUDITLOG_TEST_LITEWITNESS)"
	fi
	# Ory Hydra, the OpenID Connect provider of the identity tests: the
	# same, built once, each test starts its own.
	if [ ! -x "${AUDITLOG_TEST_HYDRA:-}" ]; then
		scripts/services.sh hydra
		eval "$(scripts/services.sh env | grep AUDITLOG_TEST_HYDRA)"
	fi
	echo "[services] ($AUDITLOG_TEST_SERVICES): Elasticsearch $AUDITLOG_TEST_ES_URL, Kafka $AUDITLOG_TEST_KAFKA_BROKERS, S3 $AUDITLOG_TEST_S3_ENDPOINT, litewitness $AUDITLOG_TEST_LITEWITNESS, Hydra $AUDITLOG_TEST_HYDRA"
}
