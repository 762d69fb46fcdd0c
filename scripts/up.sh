#!/usr/bin/env bash
# make up: the scale-out stack in Docker. The stack refuses to start
# without its secrets (docker-compose.yml requires them); the first time,
# this writes random ones into .env (git-ignored, mode 0600), which
# docker compose reads. The image is stamped with the git version.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f .env ]; then
	umask 077
	{
		echo "# Written by make up on $(date -u +%FT%TZ): the stack's secrets. Keep this file private."
		echo "AUDITLOG_JWT_SECRET=$(head -c 32 /dev/urandom | base64 | tr -d '/+=\n')"
		echo "AUDITLOG_INGEST_TOKEN=$(head -c 32 /dev/urandom | base64 | tr -d '/+=\n')"
		echo "AUDITLOG_MASK_KEY=$(head -c 48 /dev/urandom | base64 | tr -d '/+=\n')"
		echo "AUDITLOG_RESTORE_SECRET=$(head -c 48 /dev/urandom | base64 | tr -d '/+=\n')"
	} >.env
	echo "[up] wrote random AUDITLOG_JWT_SECRET, AUDITLOG_INGEST_TOKEN, AUDITLOG_MASK_KEY and AUDITLOG_RESTORE_SECRET into .env"
elif ! grep -q '^AUDITLOG_RESTORE_SECRET=' .env; then
	# A .env written before restore requests were signed.
	echo "AUDITLOG_RESTORE_SECRET=$(head -c 48 /dev/urandom | base64 | tr -d '/+=\n')" >>.env
	echo "[up] added a random AUDITLOG_RESTORE_SECRET to .env"
fi
# The signing key of the log's checkpoints and the periodic digests, a
# file mounted into serve (never kept in Elasticsearch, whose writers
# could otherwise sign a rewritten history). The directory is 0700, so
# only this user reaches the key; the file itself is 0644 because the
# container's nonroot user (65532) reads it through the bind mount.
if [ ! -f .secrets/signing-key.pem ]; then
	command -v openssl >/dev/null || { echo "[up] openssl is needed once, to write the signing key .secrets/signing-key.pem" >&2; exit 1; }
	mkdir -p .secrets && chmod 700 .secrets
	openssl genpkey -algorithm ed25519 -out .secrets/signing-key.pem
	chmod 644 .secrets/signing-key.pem
	echo "[up] wrote a new signing key into .secrets/signing-key.pem (back it up: verifiers pin its public key, GET /api/log-key)"
fi
# The acceptance key, which serve and index tag every event they accept
# with (the sealer seals nothing else), mounted into both.
if [ ! -f .secrets/accept-key ]; then
	mkdir -p .secrets && chmod 700 .secrets
	head -c 32 /dev/urandom | base64 >.secrets/accept-key
	chmod 644 .secrets/accept-key
	echo "[up] wrote a new acceptance key into .secrets/accept-key (back it up with the signing key)"
fi
# The key the streams' hashes of masked fields are keyed from, mounted
# into stream (the process that delivers them with Elasticsearch).
if [ ! -f .secrets/stream-mask-key ]; then
	mkdir -p .secrets && chmod 700 .secrets
	head -c 32 /dev/urandom | base64 >.secrets/stream-mask-key
	chmod 644 .secrets/stream-mask-key
	echo "[up] wrote a new streams' masking key into .secrets/stream-mask-key"
fi
AUDITLOG_VERSION=${AUDITLOG_VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}
export AUDITLOG_VERSION
docker compose up -d --build "$@"
cat <<'MSG'
[up] API http://localhost:8080 · indexer http://localhost:8081/readyz · mail http://localhost:8025 · Kafka localhost:9094
[up] a token:      docker compose exec serve auditlog token --tenant 7c9e6679-7425-40de-944b-e07fc1f90ae7 --role admin
[up] demo events:  docker compose exec index auditlog gen --count 5000 --first-tenant 7c9e6679-7425-40de-944b-e07fc1f90ae7 --kafka-brokers kafka:9092
MSG
