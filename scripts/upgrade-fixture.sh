#!/usr/bin/env bash
# scripts/upgrade-fixture.sh <git revision>: writes what an earlier version
# of auditlog leaves behind, for the upgrade test
# (TestUpgradeFromAnEarlierVersion in cmd/auditlog), into
# cmd/auditlog/testdata/upgrade/<short revision>/:
#
#   data/             the embedded store's data directory after a clean stop
#                     (audit.db and the keys serve wrote: test keys only)
#   list.json         what that version's API listed for the demo tenant
#   query-<n>.json    what it answered to a few searches (the first line is
#                     the query string)
#   log-key.txt       the log's verifier key it published
#   verifier-state/   what its own `log verify --state` kept: the largest
#                     checkpoint it verified
#   version.txt       the revision and when the fixture was made
#
# The test starts the current serve on a copy of data/ and checks it shows
# the same events, answers the same searches, publishes the same key, and
# that its log extends the checkpoint the earlier version's verifier kept.
# It needs the earlier revision's source (git), Go and curl; the fixture is
# committed, so that the test needs neither the revision nor its build.
set -euo pipefail
cd "$(dirname "$0")/.."

rev=${1:?usage: scripts/upgrade-fixture.sh <git revision>}
short=$(git rev-parse --short=7 "$rev^{commit}")
out=cmd/auditlog/testdata/upgrade/$short
tenant=7c9e6679-7425-40de-944b-e07fc1f90ae7 # the demo tenant
port=${AUDITLOG_FIXTURE_PORT:-18491}
url=http://127.0.0.1:$port
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	git worktree remove --force "$tmp/src" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "[fixture] building auditlog at $short"
git worktree add --quiet --detach "$tmp/src" "$rev"
(cd "$tmp/src" && go build -o "$tmp/auditlog" ./cmd/auditlog)
bin=$tmp/auditlog

export AUDITLOG_DATA_DIR=$tmp/data AUDITLOG_HTTP_ADDR=127.0.0.1:$port AUDITLOG_JWT_SECRET=upgrade-fixture \
	AUDITLOG_SEED=150 AUDITLOG_LOG_SEAL_EVERY=100ms AUDITLOG_PERIODIC_EXPORT=false
"$bin" serve >"$tmp/serve.log" 2>&1 &
pid=$!
token=$("$bin" token --tenant "$tenant" --role admin --ttl 1h)
get() { curl -sS --fail-with-body -H "Authorization: Bearer $token" "$url$1"; }

# Ready, seeded, and every event of the tenant sealed.
for _ in $(seq 1 120); do
	total=$(get '/api/audit-logs?pageSize=1' 2>/dev/null | grep -o '"total":{"value":[0-9]*' | grep -o '[0-9]*$' || true)
	size=$(get /api/log/checkpoint 2>/dev/null | sed -n 2p || true)
	if [ -n "$total" ] && [ "$total" -gt 0 ] && [ "$size" = "$total" ]; then break; fi
	sleep 0.5
done
[ -n "$total" ] && [ "$size" = "$total" ] || {
	cat "$tmp/serve.log" >&2
	echo "[fixture] the log never held every event (size ${size:-?}, events ${total:-?})" >&2
	exit 1
}

rm -rf "$out" && mkdir -p "$out"
get '/api/audit-logs?pageSize=1000&order=asc' >"$out/list.json"
# Searches, each answered into query-<n>.json; the test reads the query
# back from the file's first line.
n=0
for q in 'q=omar' 'q=contactcenter*' 'action=delete' 'q=windows -action:access'; do
	n=$((n + 1))
	{ echo "$q"; get "/api/audit-logs?pageSize=1000&order=asc&$(printf '%s' "$q" | sed 's/ /%20/g')"; } >"$out/query-$n.json"
done
get /api/log-key | grep -o '"verifierKey":"[^"]*"' | cut -d'"' -f4 >"$out/log-key.txt"
"$bin" log verify --tenant "$tenant" --key "$(cat "$out/log-key.txt")" --api "$url" --token "$token" --state "$out/verifier-state"

kill -TERM "$pid"
wait "$pid" || true
pid=
[ ! -e "$tmp/data/audit.db-wal" ] || { echo "[fixture] serve left a WAL: not a clean stop" >&2; exit 1; }
mkdir -p "$out/data"
for f in "$tmp"/data/*; do [ -f "$f" ] && cp -p "$f" "$out/data/"; done
printf '%s\nmade %s with scripts/upgrade-fixture.sh\n' "$(git rev-parse "$rev^{commit}")" "$(date -u +%Y-%m-%d)" >"$out/version.txt"
echo "[fixture] $out: $total events of tenant $tenant, log size $size"
