#!/usr/bin/env bash
# Schema-driven fuzzing of the API (schemathesis) against a real
# `auditlog serve` on the embedded store, seeded with demo events: every
# operation of the served OpenAPI document, with an admin, a superadmin
# (with a declared reason), the ingest credential and the tenant's holder
# of legal holds (legal_hold), for a bounded number
# of examples. Checks: no server error, every answer's status, content type
# and body as the document says. Part of `make test`.
#
#   FUZZ_API_EXAMPLES   examples per operation and phase (default 30)
#   FUZZ_API_SEED       schemathesis seed (default fixed, so CI is
#                       reproducible; set another to explore)
#
# schemathesis is installed from PyPI into a virtualenv in the cache
# ($AUDITLOG_CACHE_DIR, default ~/.cache/auditlog) on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

ST_VERSION=${AUDITLOG_SCHEMATHESIS_VERSION:-4.32.5}
CACHE=${AUDITLOG_CACHE_DIR:-$HOME/.cache/auditlog}
EXAMPLES=${FUZZ_API_EXAMPLES:-30}
SEED=${FUZZ_API_SEED:-20261122}
TENANT=7c9e6679-7425-40de-944b-e07fc1f90ae7
venv="$CACHE/schemathesis-$ST_VERSION"

log() { printf '[fuzz-api] %s\n' "$*" >&2; }

# A virtualenv cannot be moved (its scripts name its path): it is built in
# place, and a marker says the install finished.
if [ ! -f "$venv/.complete" ]; then
	command -v python3 >/dev/null || { log "python3 is required: apt-get install -y python3 python3-venv"; exit 1; }
	log "installing schemathesis $ST_VERSION into $venv"
	rm -rf "$venv"
	python3 -m venv "$venv" || { log "python3 -m venv failed: apt-get install -y python3-venv"; exit 1; }
	"$venv/bin/pip" install -q "schemathesis==$ST_VERSION"
	touch "$venv/.complete"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/auditlog-fuzz.XXXXXX")
pid=
cleanup() {
	[ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/auditlog" ./cmd/auditlog
port=
for _ in $(seq 1 100); do
	p=$((20000 + RANDOM % 30000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { log "no free port"; exit 1; }
export AUDITLOG_JWT_SECRET=fuzz-secret AUDITLOG_INGEST_TOKEN=fuzz-ingest
AUDITLOG_HTTP_ADDR=127.0.0.1:$port AUDITLOG_DATA_DIR=$work/data AUDITLOG_SEED=2000 AUDITLOG_RATE_LIMIT=0 \
	AUDITLOG_LOG_LEVEL=warn "$work/auditlog" serve >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; log "serve exited"; exit 1; }
	sleep 0.2
done

admin=$("$work/auditlog" token --tenant $TENANT --role admin --user 0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e --email ana@acme.example)
ops=$("$work/auditlog" token --tenant $TENANT --role superadmin --user 5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d --email ops@platform.example --reason "fuzzing CS-1")
# The tenant's holder places, changes and releases legal holds: the only
# role whose bodies reach those operations.
holder=$("$work/auditlog" token --tenant $TENANT --role legal_hold --user 6b5a4c3d-2e1f-4b0a-9c8d-7e6f5a4b3c2d --email counsel@acme.example)
failed=0
passed=0
for who in admin superadmin ingest legal_hold; do
	case $who in
	admin) cred=$admin ;;
	superadmin) cred=$ops ;;
	legal_hold) cred=$holder ;;
	ingest) cred=$AUDITLOG_INGEST_TOKEN ;;
	esac
	log "fuzzing every operation as $who ($EXAMPLES examples, seed $SEED)"
	set +e
	(cd "$work" && "$venv/bin/st" run "http://127.0.0.1:$port/api/openapi.json" -H "Authorization: Bearer $cred" \
		--checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
		--max-examples "$EXAMPLES" --seed "$SEED" --no-color) >"$work/st-$who.log" 2>&1
	rc=$?
	set -e
	grep -E '^\s+[0-9]+ generated' "$work/st-$who.log" >&2 || true
	if [ $rc -ne 0 ]; then
		failed=$((failed + 1))
		log "FAIL as $who: schemathesis found problems"
		sed -n '/FAILURES/,$p' "$work/st-$who.log" | head -n 150 >&2
		tail -n 30 "$work/st-$who.log" >&2
		grep -E '"level":"ERROR"' "$work/serve.log" | tail -n 20 >&2 || true
	else
		passed=$((passed + 1))
	fi
done
echo "fuzz-api: $passed passed, $failed failed"
[ $failed -eq 0 ]
