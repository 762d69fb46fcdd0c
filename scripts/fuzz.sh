#!/usr/bin/env bash
# The fuzz targets that compare a function with an independent reference
# (encoding/json, json.Valid, strings.ToLower, a strict reference decoder),
# each run for a bounded time beyond its seeds: `make test` calls this, so
# CI fuzzes every one of them on every run. FUZZ_EACH (default 10s) times
# the 13 targets below: under two minutes of fuzzing in all (issue 40).
# A failure leaves its input under the package's testdata/fuzz, where it
# becomes a seed of the ordinary test run once committed.
set -euo pipefail
cd "$(dirname "$0")/.."
EACH=${FUZZ_EACH:-10s}

# package target what-it-is-compared-with
targets=(
	"./audit FuzzStrictDecode an-independent-strict-reference-(encoding/json,-its-token-stream,-utf8.Valid)"
	"./audit FuzzFastDecode go-json-experiment/json-with-the-strict-options"
	"./audit FuzzDecodeEvent its-own-re-encoding-(accepted-events-round-trip)"
	"./audit FuzzEventJSON encoding/json"
	"./audit/vlog FuzzLeafData encoding/json-with-sorted-keys"
	"./audit FuzzToLower strings.ToLower"
	"./internal/jsonenc FuzzValid encoding/json.Valid"
	"./internal/jsonenc FuzzMarshaled encoding/json"
	"./internal/jsonenc FuzzDecodeNumbers encoding/json's-Decoder-with-UseNumber"
	"./elasticsearch FuzzCreatedItems encoding/json"
	"./elasticsearch FuzzDecodeStoredDoc go-json-experiment/json-with-unknown-members-refused"
	"./audit/search FuzzParseSearch the-parser's-own-contract"
	"./audit/vlog FuzzStoredRow the-verifier's-contract:-any-bytes-a-row,-never-a-panic"
)
# Minimising each new interesting input may take 60 s by default: with
# 10 s of fuzzing, a worker stuck minimising stalled the run (no execs for
# tens of seconds). 5 s bounds it, and leaves the time to fuzzing.
#
# A duration-bound run can also fail with a bare "context deadline
# exceeded" and no input written: a race in Go's fuzzing coordinator at
# the end of -fuzztime on a loaded machine (it stops its workers' context
# and may read the deadline as their error), not a finding. A finding is an
# input written under testdata/fuzz/<target>: that fails at once. A run
# that fails without one is run again, at most twice more, and fails only
# if every run does.
fuzz_one() {
	go test -run='^$' -fuzz="^$2\$" -fuzztime="$EACH" -fuzzminimizetime=5s "$1" 2>&1
}
for t in "${targets[@]}"; do
	read -r pkg name ref <<<"$t"
	echo "[fuzz] $name ($pkg) for $EACH, against ${ref//-/ }"
	corpus="${pkg#./}/testdata/fuzz/$name"
	before=$(ls "$corpus" 2>/dev/null | sort || true)
	for attempt in 1 2 3; do
		if out=$(fuzz_one "$pkg" "$name"); then
			echo "$out" | tail -n 3
			break
		fi
		after=$(ls "$corpus" 2>/dev/null | sort || true)
		if [ "$after" != "$before" ] || ! grep -q 'context deadline exceeded' <<<"$out" || [ $attempt = 3 ]; then
			# A finding, another failure, or the race three times: the
			# whole story (the input it found, or why it stopped).
			echo "$out" | tail -n 40
			exit 1
		fi
		echo "[fuzz] $name: stopped with \"context deadline exceeded\" and no input written (Go's coordinator race at the end of -fuzztime); running it again"
	done
done