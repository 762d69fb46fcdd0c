# Build and run auditlog. Used by docker-compose.yml for `serve` and `index`.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The version is stamped in (`auditlog version`); make up passes git describe.
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/auditlog ./cmd/auditlog \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
LABEL org.opencontainers.image.title="auditlog" org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/auditlog /usr/local/bin/auditlog
# The data directory (export files, the outbox) belongs to the image's
# nonroot user (65532): a named volume mounted here starts as a copy of
# it, owner included, so the service can write to it.
COPY --from=build --chown=65532:65532 /out/data /data
ENV AUDITLOG_DATA_DIR=/data
VOLUME ["/data"]
USER nonroot
HEALTHCHECK --interval=10s --timeout=6s --retries=6 CMD ["/usr/local/bin/auditlog", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/auditlog"]
