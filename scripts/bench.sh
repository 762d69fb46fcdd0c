#!/usr/bin/env bash
# make bench: start the real services as `make test` does, run every
# benchmark (cmd/auditbench) and the Go micro-benchmarks, and rewrite
# BENCHMARKS.md. BENCH_SCALE shrinks the data (0.02: the CI smoke run, with BENCH_SKIP).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_SCALE=${BENCH_SCALE:-1}
BENCH_RUNS=${BENCH_RUNS:-5}
OUT=${BENCH_OUT:-BENCHMARKS.md}

# BENCH_ONLY=micro rewrites only the Go micro-benchmarks' section of the
# report, the last one, without services.
micro() {
	local benchtime=1s
	awk "BEGIN{exit !($BENCH_SCALE < 0.5)}" && benchtime=100ms
	go test -run='^$' -bench=. -benchmem -benchtime=$benchtime -count=3 ./audit/ ./elasticsearch/ ./export/ | tee /tmp/auditlog-micro.txt
	{
		echo
		echo "## Go micro-benchmarks"
		echo
		echo "\`go test -bench=. -benchmem -benchtime=$benchtime -count=3\` on the hot paths; each line is one run (ns/op, B/op, allocs/op)."
		echo
		echo '```'
		grep -E '^(Benchmark|goos|goarch|cpu)' /tmp/auditlog-micro.txt
		echo '```'
	} >>"$OUT"
}
if [ "${BENCH_ONLY:-}" = micro ]; then
	echo "[bench] Go micro-benchmarks only: their section of $OUT is rewritten"
	tmp=$(mktemp)
	awk '/^## Go micro-benchmarks/{exit} {print}' "$OUT" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp"
	mv "$tmp" "$OUT"
	micro
	echo "[bench] wrote $OUT"
	exit 0
fi

# shellcheck source=scripts/lib.sh
. scripts/lib.sh
with_services
# The panel's browser benchmark needs its Node packages (and Chromium,
# which scripts/prereqs.sh installs).
scripts/panel.sh deps
export AUDITLOG_KAFKA_VERSION=${AUDITLOG_KAFKA_VERSION:-3.9.1}
# BENCH_ONLY runs some benchmarks and merges their rows into the report
# of the last full run (make bench-tenancy); the micro-benchmarks are then
# left as they are.
only=()
[ -n "${BENCH_ONLY:-}" ] && only=(-only "$BENCH_ONLY" -merge)
# BENCH_SKIP leaves some out (the CI smoke run: the cold build, which
# times `go build` and nothing of the service).
go run ./cmd/auditbench -scale "$BENCH_SCALE" -runs "$BENCH_RUNS" -out "$OUT" \
	-services-dir "${AUDITLOG_SERVICES_DIR:-/tmp/auditlog-services}" -skip "${BENCH_SKIP:-}" "${only[@]}"
[ -n "${BENCH_ONLY:-}" ] && exit 0

echo "[bench] Go micro-benchmarks (hot paths, with allocations)"
micro
echo "[bench] wrote $OUT"
