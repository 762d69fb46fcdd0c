#!/usr/bin/env bash
# Starts and stops a real Elasticsearch 8.19 and a real Apache Kafka broker
# (KRaft) on 127.0.0.1, from Maven Central, for tests and benchmarks on a
# machine that has only Go, Java 17 and Maven. No Docker needed.
#
#   scripts/services.sh up      download (cached), start both, wait for health
#   scripts/services.sh down    stop what `up` started
#   scripts/services.sh env     print the AUDITLOG_TEST_* exports
#   scripts/services.sh es-stop / es-start   stop or restart Elasticsearch
#                               alone (outage tests)
#   scripts/services.sh es-fresh   restart Elasticsearch on an empty data
#                               directory (before the outage tests)
#   scripts/services.sh s3-up / s3-down   start or stop only the S3 server
#   scripts/services.sh litewitness   build litewitness (the tests start it)
#   scripts/services.sh hydra   build Ory Hydra (the identity tests start it)
#
# The S3-compatible server of the export tests is versitygw (a Go program
# serving a directory as buckets), built once from the Go module proxy
# into the cache. So is litewitness (filippo.io/torchwood), the
# independent C2SP tlog-witness that cosigns the log's checkpoints in the
# tests; each test starts its own (internal/testkit/testenv). Its
# witnessctl is not built: it needs sigsum.org/sigsum-go, which the
# module proxy here refuses; the tests register logs with the two SQL
# statements witnessctl add-log and add-key run.
#
# Downloads are cached in $AUDITLOG_CACHE_DIR (default ~/.cache/auditlog);
# run state (unpacked server, data, logs, pids) lives in
# $AUDITLOG_SERVICES_DIR (default /tmp/auditlog-services). Data directories
# are fresh on every `up`.
#
# Elasticsearch is the JDK-less integ-test-zip build: it has the server and
# x-pack core only (no ILM, no data-stream REST API, no GET /). See the
# docs/testing.md for exactly what it supports.
set -euo pipefail

ES_VERSION=${AUDITLOG_ES_VERSION:-8.19.7}
KAFKA_VERSION=${AUDITLOG_KAFKA_VERSION:-3.9.1}
CACHE=${AUDITLOG_CACHE_DIR:-$HOME/.cache/auditlog}
RUN=${AUDITLOG_SERVICES_DIR:-/tmp/auditlog-services}
ES_PORT=${AUDITLOG_TEST_ES_PORT:-19200}
KAFKA_PORT=${AUDITLOG_TEST_KAFKA_PORT:-19092}
S3_PORT=${AUDITLOG_TEST_S3_PORT:-19500}
VERSITYGW_VERSION=${AUDITLOG_VERSITYGW_VERSION:-v1.8.0}
TORCHWOOD_VERSION=${AUDITLOG_TORCHWOOD_VERSION:-v0.6.1}
HYDRA_VERSION=${AUDITLOG_HYDRA_VERSION:-v2.3.0}
# The fork of pop that Hydra v2.3.0's go.mod puts in place of gobuffalo's.
HYDRA_POP_VERSION=v6.2.1-0.20241121111754-e5dfc0f3344b
S3_ACCESS=auditlog-test
S3_SECRET=auditlog-test-secret
ES_HEAP=${AUDITLOG_TEST_ES_HEAP:-1g}
KAFKA_HEAP=${AUDITLOG_TEST_KAFKA_HEAP:-512m}
ES_USER=auditlog-es
ES_HOME="$RUN/elasticsearch-$ES_VERSION"
KAFKA_LIBS="$CACHE/kafka-$KAFKA_VERSION/libs"

log() { printf '[services] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

java_home() {
	local j
	j=$(command -v java) || die "java not found: install a JDK 17 (docs/testing.md lists what make test needs)"
	dirname "$(dirname "$(readlink -f "$j")")"
}

fetch_es() {
	local zip="$CACHE/elasticsearch-$ES_VERSION.zip"
	if [ ! -s "$zip" ]; then
		log "downloading Elasticsearch $ES_VERSION integ-test-zip from Maven Central"
		mkdir -p "$CACHE"
		mvn -q -B dependency:copy \
			-Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip" \
			-DoutputDirectory="$CACHE" >&2 || die "maven could not fetch Elasticsearch $ES_VERSION"
	fi
	if [ ! -x "$ES_HOME/bin/elasticsearch" ]; then
		log "unpacking Elasticsearch into $ES_HOME"
		mkdir -p "$RUN"
		rm -rf "$ES_HOME.tmp" && mkdir -p "$ES_HOME.tmp"
		if command -v unzip >/dev/null; then
			unzip -q "$zip" -d "$ES_HOME.tmp"
		else
			(cd "$ES_HOME.tmp" && jar xf "$zip") && chmod +x "$ES_HOME.tmp"/elasticsearch-*/bin/*
		fi
		mv "$ES_HOME.tmp/elasticsearch-$ES_VERSION" "$ES_HOME" && rm -rf "$ES_HOME.tmp"
	fi
}

fetch_kafka() {
	if [ ! -f "$KAFKA_LIBS/.complete" ]; then
		log "resolving Apache Kafka $KAFKA_VERSION broker jars from Maven Central"
		local pom="$CACHE/kafka-$KAFKA_VERSION/pom.xml"
		mkdir -p "$(dirname "$pom")"
		cat >"$pom" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>auditlog.test</groupId><artifactId>kafka-broker</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
EOF
		rm -rf "$KAFKA_LIBS"
		mvn -q -B -f "$pom" dependency:copy-dependencies -DincludeScope=runtime \
			-DoutputDirectory="$KAFKA_LIBS" >&2 || die "maven could not resolve Kafka $KAFKA_VERSION"
		touch "$KAFKA_LIBS/.complete"
	fi
}

fetch_s3() {
	local bin="$CACHE/versitygw-$VERSITYGW_VERSION/versitygw"
	if [ ! -x "$bin" ]; then
		log "building versitygw $VERSITYGW_VERSION from the Go module proxy"
		mkdir -p "$(dirname "$bin")"
		GOBIN="$(dirname "$bin")" GOFLAGS=-mod=mod go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >&2 ||
			die "could not build versitygw $VERSITYGW_VERSION"
	fi
}

fetch_litewitness() {
	local dir="$CACHE/torchwood-$TORCHWOOD_VERSION"
	if [ ! -x "$dir/litewitness" ]; then
		log "building litewitness $TORCHWOOD_VERSION from the Go module proxy"
		mkdir -p "$dir"
		GOBIN="$dir" GOFLAGS=-mod=mod go install "filippo.io/torchwood/cmd/litewitness@$TORCHWOOD_VERSION" >&2 ||
			die "could not build litewitness $TORCHWOOD_VERSION"
	fi
}

# Ory Hydra, the OpenID Connect provider of the identity tests: built
# once into the cache from the Go module proxy. `go install` refuses it
# (its go.mod replaces gobuffalo/pop with Ory's fork), so it is built in a
# module of its own that repeats that replace, with SQLite (the tests run
# it in memory: cgo, as the race detector needs anyway).
fetch_hydra() {
	local dir="$CACHE/hydra-$HYDRA_VERSION"
	if [ ! -x "$dir/hydra" ]; then
		log "building Ory Hydra $HYDRA_VERSION from the Go module proxy (a few minutes, once)"
		rm -rf "$dir/src" && mkdir -p "$dir/src"
		(
			cd "$dir/src" &&
				go mod init hydra-build >/dev/null 2>&1 &&
				go mod edit -replace "github.com/gobuffalo/pop/v6=github.com/ory/pop/v6@$HYDRA_POP_VERSION" &&
				GOFLAGS=-mod=mod go get -tool "github.com/ory/hydra/v2@$HYDRA_VERSION" >/dev/null 2>&1 &&
				GOFLAGS=-mod=mod go build -tags sqlite,sqlite_omit_load_extension -o "$dir/hydra" github.com/ory/hydra/v2
		) >&2 || die "could not build Ory Hydra $HYDRA_VERSION"
	fi
}

start_s3() {
	local dir="$RUN/s3"
	rm -rf "$dir" && mkdir -p "$dir/data" "$dir/meta"
	port_open "$S3_PORT" && die "port $S3_PORT is busy: another S3 server? run scripts/services.sh down"
	log "starting versitygw $VERSITYGW_VERSION (S3) on 127.0.0.1:$S3_PORT"
	ROOT_ACCESS_KEY="$S3_ACCESS" ROOT_SECRET_KEY="$S3_SECRET" setsid nohup \
		"$CACHE/versitygw-$VERSITYGW_VERSION/versitygw" --port "127.0.0.1:$S3_PORT" \
		posix --sidecar "$dir/meta" "$dir/data" >"$dir/stdout.log" 2>&1 </dev/null &
	echo $! >"$RUN/s3.pid"
}

wait_s3() {
	local deadline=$((SECONDS + 60))
	until port_open "$S3_PORT"; do
		alive "$RUN/s3.pid" || { tail -n 40 "$RUN/s3/stdout.log" >&2 || true; die "versitygw exited during start"; }
		[ $SECONDS -lt $deadline ] || die "versitygw not listening after 60s"
		sleep 0.2
	done
	log "S3 (versitygw) is ready"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pid() { # pidfile name
	local pf=$1 name=$2 pid i
	[ -f "$pf" ] || return 0
	pid=$(cat "$pf")
	if kill -0 "$pid" 2>/dev/null; then
		log "stopping $name (pid $pid)"
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		kill -0 "$pid" 2>/dev/null && { log "$name did not stop; killing"; kill -KILL "$pid" 2>/dev/null || true; }
	fi
	rm -f "$pf"
}

as_es_user() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$ES_USER" -- "$@"
	else
		"$@"
	fi
}

start_es() {
	local data="$RUN/es-data" logs="$RUN/es-logs" piddir="$RUN/es-run" snapshots="$RUN/es-snapshots"
	if [ "${1:-}" = fresh ]; then rm -rf "$data" "$logs" "$snapshots"; fi
	mkdir -p "$data" "$logs" "$piddir" "$snapshots"
	if [ "$(id -u)" = 0 ]; then
		# Elasticsearch refuses to run as root: give it a user of its own.
		id "$ES_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$ES_USER"
		chown -R "$ES_USER:" "$ES_HOME" "$data" "$logs" "$piddir" "$snapshots"
		chmod 755 "$RUN"
	fi
	port_open "$ES_PORT" && die "port $ES_PORT is busy: another Elasticsearch? run scripts/services.sh down"
	log "starting Elasticsearch $ES_VERSION on 127.0.0.1:$ES_PORT (heap $ES_HEAP)"
	as_es_user env ES_JAVA_HOME="$(java_home)" ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP" \
		"$ES_HOME/bin/elasticsearch" -d -p "$piddir/es.pid" \
		-E cluster.name=auditlog-test -E node.name=auditlog-test \
		-E discovery.type=single-node -E network.host=127.0.0.1 \
		-E http.port="$ES_PORT" -E transport.port=$((ES_PORT + 100)) \
		-E path.data="$data" -E path.logs="$logs" -E path.repo="$RUN/es-snapshots" \
		-E xpack.security.enabled=false \
		-E cluster.routing.allocation.disk.threshold_enabled=false \
		-E action.destructive_requires_name=false \
		-E cluster.max_shards_per_node=20000 \
		>"$logs/stdout.log" 2>&1 || { tail -n 40 "$logs/stdout.log" >&2; die "Elasticsearch did not start"; }
	cp "$piddir/es.pid" "$RUN/es.pid"
}

wait_es() {
	local deadline=$((SECONDS + ${AUDITLOG_SERVICES_TIMEOUT:-180}))
	until curl -sf "http://127.0.0.1:$ES_PORT/_cluster/health?wait_for_status=yellow&timeout=2s" >/dev/null 2>&1; do
		alive "$RUN/es.pid" || { tail -n 40 "$RUN/es-logs/auditlog-test.log" >&2 || true; die "Elasticsearch exited during start"; }
		[ $SECONDS -lt $deadline ] || die "Elasticsearch not healthy after ${AUDITLOG_SERVICES_TIMEOUT:-180}s"
		sleep 1
	done
	log "Elasticsearch is healthy"
}

start_kafka() {
	local dir="$RUN/kafka" cp="$KAFKA_LIBS/*"
	rm -rf "$dir" && mkdir -p "$dir/data"
	port_open "$KAFKA_PORT" && die "port $KAFKA_PORT is busy: another Kafka? run scripts/services.sh down"
	cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$((KAFKA_PORT + 1))
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$((KAFKA_PORT + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=4
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
message.max.bytes=4194304
EOF
	cat >"$dir/log4j.properties" <<EOF
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$dir/server.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
	local jopts=(-Xms256m "-Xmx$KAFKA_HEAP" -Dlog4j.configuration="file:$dir/log4j.properties" -cp "$cp")
	java "${jopts[@]}" kafka.tools.StorageTool format -t "$(java -cp "$cp" kafka.tools.StorageTool random-uuid)" \
		-c "$dir/server.properties" >"$dir/format.log" 2>&1 || { cat "$dir/format.log" >&2; die "Kafka storage format failed"; }
	log "starting Kafka $KAFKA_VERSION (KRaft) on 127.0.0.1:$KAFKA_PORT (heap $KAFKA_HEAP)"
	setsid nohup java "${jopts[@]}" kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 </dev/null &
	echo $! >"$RUN/kafka.pid"
}

wait_kafka() {
	local deadline=$((SECONDS + ${AUDITLOG_SERVICES_TIMEOUT:-180}))
	until port_open "$KAFKA_PORT" && grep -q "Kafka Server started" "$RUN/kafka/server.log" 2>/dev/null; do
		alive "$RUN/kafka.pid" || { tail -n 40 "$RUN/kafka/server.log" "$RUN/kafka/stdout.log" >&2 || true; die "Kafka exited during start"; }
		[ $SECONDS -lt $deadline ] || die "Kafka not ready after ${AUDITLOG_SERVICES_TIMEOUT:-180}s"
		sleep 0.5
	done
	log "Kafka is ready"
}

print_env() {
	echo "export AUDITLOG_TEST_ES_URL=http://127.0.0.1:$ES_PORT"
	echo "export AUDITLOG_TEST_KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
	echo "export AUDITLOG_TEST_S3_ENDPOINT=http://127.0.0.1:$S3_PORT"
	echo "export AUDITLOG_TEST_S3_ACCESS_KEY=$S3_ACCESS"
	echo "export AUDITLOG_TEST_S3_SECRET_KEY=$S3_SECRET"
	echo "export AUDITLOG_TEST_LITEWITNESS=$CACHE/torchwood-$TORCHWOOD_VERSION"
	echo "export AUDITLOG_TEST_HYDRA=$CACHE/hydra-$HYDRA_VERSION/hydra"
	echo "export AUDITLOG_TEST_SERVICES=local"
	echo "export AUDITLOG_TEST_SERVICES_SCRIPT=$(readlink -f "$0")"
}

case "${1:-}" in
up)
	command -v mvn >/dev/null || die "mvn not found: install Maven (docs/testing.md lists what make test needs)"
	"$0" down || true
	fetch_es
	fetch_kafka
	fetch_s3
	fetch_litewitness
	start_es fresh
	start_kafka
	start_s3
	wait_es
	wait_kafka
	wait_s3
	print_env >"$RUN/env"
	;;
s3-up)
	stop_pid "$RUN/s3.pid" versitygw
	fetch_s3
	start_s3
	wait_s3
	;;
s3-down) stop_pid "$RUN/s3.pid" versitygw ;;
litewitness) fetch_litewitness ;;
hydra) fetch_hydra ;;
down)
	stop_pid "$RUN/s3.pid" versitygw
	stop_pid "$RUN/kafka.pid" Kafka
	stop_pid "$RUN/es.pid" Elasticsearch
	;;
es-stop) stop_pid "$RUN/es.pid" Elasticsearch ;;
es-fresh)
	# Restarts Elasticsearch on an empty data directory. The main run
	# leaves thousands of shards, which a restart recovers one by one, and
	# the outage tests restart the node; this test build has no API that
	# deletes a data stream, so they start on a fresh node instead.
	stop_pid "$RUN/es.pid" Elasticsearch
	start_es fresh
	wait_es
	;;
es-start)
	start_es
	wait_es
	;;
env) print_env ;;
*)
	sed -n '2,20p' "$0" >&2
	exit 2
	;;
esac
