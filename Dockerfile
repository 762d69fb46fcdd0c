# Build and run auditlog. Used by docker-compose.yml for `serve` and `index`.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/auditlog ./cmd/auditlog

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/auditlog /usr/local/bin/auditlog
USER nonroot
ENTRYPOINT ["/usr/local/bin/auditlog"]
