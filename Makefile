# auditlog — see README.md. `make run` and `make test` are the two commands.
GO      ?= go
BIN     := bin/auditlog
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# Development defaults for `make run`: the embedded SQLite store in ./data.
# No secret is set here: serve writes a development JWT secret into the
# data directory on first start and `bin/auditlog token` reads it, so
# tokens minted in any shell work. Override any AUDITLOG_* variable.
export AUDITLOG_LOG_FORMAT   ?= text
DEMO_TENANT ?= 7c9e6679-7425-40de-944b-e07fc1f90ae7

.PHONY: build banner run demo test lint fmt bench bench-tenancy up down services-up services-down clean panel

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/auditlog

## run: start `auditlog serve` on the embedded default (SQLite, no Elasticsearch or Kafka)
# The banner comes first, and again once serve is ready (healthcheck): a
# seeded demo's start-up lines would scroll the first one away. serve logs
# warnings and errors only unless AUDITLOG_LOG_LEVEL says otherwise: its
# start-up lines sat between the two banners. Ctrl-C stops serve gracefully.
run: build banner
	@AUDITLOG_LOG_LEVEL=$${AUDITLOG_LOG_LEVEL:-warn} $(BIN) serve & pid=$$!; trap 'kill -TERM $$pid 2>/dev/null; wait $$pid; exit 0' INT TERM; \
	for i in $$(seq 1 1200); do kill -0 $$pid 2>/dev/null || break; $(BIN) healthcheck >/dev/null 2>&1 && break; sleep 0.5; done; \
	if kill -0 $$pid 2>/dev/null; then echo; echo "auditlog is ready."; $(MAKE) -s --no-print-directory banner; fi; \
	wait $$pid

# banner prints the URL and a working token before serve starts: token
# --init-dev-secret writes the data directory's development secret first
# when there is none yet (what serve would do a moment later), so the first
# screen of a fresh checkout is a token, not an error.
banner: build
	@addr=$${AUDITLOG_HTTP_ADDR:-127.0.0.1:8080}; \
	tok=$$($(BIN) token --init-dev-secret --tenant $(DEMO_TENANT) --role admin --email admin@demo.example) || exit 1; \
	echo "auditlog: http://$$addr  (data in $${AUDITLOG_DATA_DIR:-./data})"; \
	echo "the admin panel, signed in as the demo tenant's admin:"; \
	echo "  http://$$addr/settings/audit/#token=$$tok"; \
	echo "the API, with a dev token for the demo tenant $(DEMO_TENANT):"; \
	echo "  export TOKEN=$$tok"; \
	echo "  curl -sS --fail-with-body -H \"Authorization: Bearer \$$TOKEN\" http://$$addr/api/audit-logs"

## demo: make run with 40000 generated contact-center events in the demo tenant (SEED=N for more)
SEED ?= 40000
demo:
	$(MAKE) run AUDITLOG_SEED=$(SEED)

## test: the whole suite against real Elasticsearch and Kafka (started for you)
test:
	scripts/test.sh

## bench: every benchmark side by side with its ceiling; rewrites BENCHMARKS.md (BENCH_SCALE=0.05 for a smoke run)
bench:
	scripts/bench.sh

## bench-tenancy: only the tenancy simulation (1,000, 5,000 and 10,000 tenants over 13 simulated months); merges its rows into BENCHMARKS.md and rewrites docs/tenancy-capacity.md
bench-tenancy:
	BENCH_ONLY=tenancy scripts/bench.sh

## panel: rebuild the admin panel into panel/dist (Node.js and npm; commit the result)
panel:
	scripts/panel.sh build

## lint: go vet, staticcheck and gofmt (also over the exclusive-tag tests); go mod tidy changes nothing; the panel's tsc and ESLint
lint:
	scripts/panel.sh lint
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) vet -tags exclusive ./...
	$(GO) tool staticcheck ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

fmt:
	gofmt -w .

## up/down: the full stack in Docker (Elasticsearch 8.19 with ILM, Kafka KRaft, serve and index); up writes random secrets into .env the first time
up:
	scripts/up.sh
down:
	docker compose down

## services-up/services-down: real Elasticsearch and Kafka on loopback without Docker
services-up:
	scripts/services.sh up
	@scripts/services.sh env
services-down:
	scripts/services.sh down

clean:
	rm -rf bin
