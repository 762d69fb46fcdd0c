#!/usr/bin/env bash
# The admin panel's toolchain (panel/, Node.js and npm):
#   scripts/panel.sh deps    install panel/node_modules from the lockfile when missing or stale
#   scripts/panel.sh build   regenerate the API types and rebuild panel/dist (make panel)
#   scripts/panel.sh lint    tsc --noEmit and ESLint (make lint)
#   scripts/panel.sh test    Vitest unit tests (make test)
#   scripts/panel.sh check   a clean `npm ci`, a rebuild, and a failure if the committed
#                            panel/dist or API types differ from what the sources build (CI)
set -euo pipefail
cd "$(dirname "$0")/../panel"

need_node() {
	command -v node >/dev/null && command -v npm >/dev/null && return
	echo "[panel] Node.js and npm are needed (Debian: apt-get install -y nodejs npm)" >&2
	exit 1
}

deps() {
	need_node
	if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
		echo "[panel] npm ci"
		npm ci --no-audit --no-fund --loglevel=error
	fi
}

case "${1:-}" in
deps) deps ;;
build)
	deps
	npm run --silent build
	;;
lint)
	deps
	npm run --silent gen:api >/dev/null
	npm run --silent typecheck
	npm run --silent lint
	;;
test)
	deps
	npm run --silent test
	;;
check)
	need_node
	npm ci --no-audit --no-fund --loglevel=error
	npm run --silent build
	cd ..
	if ! git diff --quiet -- panel/dist panel/src/api/schema.d.ts || [ -n "$(git ls-files --others --exclude-standard -- panel/dist)" ]; then
		echo "[panel] the committed panel/dist (or API types) differ from what the sources build: run make panel and commit" >&2
		git status --short -- panel/dist panel/src/api/schema.d.ts >&2
		exit 1
	fi
	echo "[panel] panel/dist is what the sources build"
	;;
*)
	echo "usage: scripts/panel.sh deps|build|lint|test|check" >&2
	exit 2
	;;
esac
