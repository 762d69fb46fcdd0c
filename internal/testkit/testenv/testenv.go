// Package testenv tells tests where the real services are. `make test`
// starts Elasticsearch and Kafka (scripts/test.sh: given URLs, Docker
// through testcontainers-go, or a local download from Maven Central) and
// exports their addresses:
//
//	AUDITLOG_TEST_ES_URL         e.g. http://127.0.0.1:19200
//	AUDITLOG_TEST_KAFKA_BROKERS  e.g. 127.0.0.1:19092
//	AUDITLOG_TEST_S3_ENDPOINT    e.g. http://127.0.0.1:19500 (versitygw),
//	                             with AUDITLOG_TEST_S3_ACCESS_KEY/SECRET_KEY
//
// A test that needs a service which is not configured fails when CI=true
// and skips, saying why, otherwise (a plain `go test ./...` on a laptop).
// This is test support only: it is the one place that reads those
// variables.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// CI reports whether the tests run in CI, where a missing service fails.
func CI() bool { return os.Getenv("CI") == "true" }

func require(t testing.TB, name, value string) string {
	t.Helper()
	if value != "" {
		return value
	}
	msg := name + " is not set: run `make test`, which starts Elasticsearch and Kafka"
	if CI() {
		t.Fatal(msg + " (CI=true: a missing service is a failure)")
	}
	t.Skip(msg)
	return ""
}

// ElasticsearchURL returns the URL of the test cluster.
func ElasticsearchURL(t testing.TB) string {
	t.Helper()
	return require(t, "AUDITLOG_TEST_ES_URL", os.Getenv("AUDITLOG_TEST_ES_URL"))
}

// KafkaBrokers returns the test brokers.
func KafkaBrokers(t testing.TB) []string {
	t.Helper()
	return strings.Split(require(t, "AUDITLOG_TEST_KAFKA_BROKERS", os.Getenv("AUDITLOG_TEST_KAFKA_BROKERS")), ",")
}

// S3Env is the test S3-compatible server (versitygw, started by
// scripts/services.sh) and its root credentials.
type S3Env struct{ Endpoint, AccessKey, SecretKey string }

// S3 returns the test S3 server.
func S3(t testing.TB) S3Env {
	t.Helper()
	return S3Env{
		Endpoint:  require(t, "AUDITLOG_TEST_S3_ENDPOINT", os.Getenv("AUDITLOG_TEST_S3_ENDPOINT")),
		AccessKey: require(t, "AUDITLOG_TEST_S3_ACCESS_KEY", os.Getenv("AUDITLOG_TEST_S3_ACCESS_KEY")),
		SecretKey: require(t, "AUDITLOG_TEST_S3_SECRET_KEY", os.Getenv("AUDITLOG_TEST_S3_SECRET_KEY")),
	}
}

// RequireFeature skips a test whose cluster lacks a feature, with the
// reason, in every mode: such a test runs wherever the feature exists
// (Docker, a full cluster) and reports itself skipped here.
func RequireFeature(t testing.TB, have bool, feature string) {
	t.Helper()
	if !have {
		t.Skipf("SKIP-FEATURE: the test Elasticsearch lacks %s; this test runs against a full distribution (Docker or AUDITLOG_TEST_ES_URL)", feature)
	}
}

// Name returns a unique lowercase name with the given prefix, for topics,
// index prefixes and consumer groups that must not collide between tests
// or runs (the test build cannot delete data streams).
func Name(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// ElasticsearchControl can stop and restart the test Elasticsearch, for
// outage tests. It exists only where the services were started locally by
// scripts/services.sh.
type ElasticsearchControl struct{ script string }

// Control returns the outage controller, or skips (fails under CI) when
// the services were not started by scripts/services.sh.
func Control(t testing.TB) ElasticsearchControl {
	t.Helper()
	s := os.Getenv("AUDITLOG_TEST_SERVICES_SCRIPT")
	if s == "" {
		if CI() {
			t.Fatal("outage tests need services started by scripts/services.sh (AUDITLOG_TEST_SERVICES_SCRIPT)")
		}
		t.Skip("outage tests need services started by scripts/services.sh")
	}
	return ElasticsearchControl{script: s}
}

// Stop stops Elasticsearch and returns once it is down.
func (c ElasticsearchControl) Stop(ctx context.Context) error {
	return exec.CommandContext(ctx, c.script, "es-stop").Run()
}

// Start starts Elasticsearch again and returns once it is healthy.
func (c ElasticsearchControl) Start(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, c.script, "es-start")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// Eventually polls cond every interval until it returns nil or the
// deadline passes, then fails with cond's last error. Elasticsearch is
// only eventually consistent: poll with a deadline, never sleep a fixed
// time.
func Eventually(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	interval := 50 * time.Millisecond
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s: %v", timeout, err)
		}
		time.Sleep(interval)
		if interval < time.Second {
			interval *= 2
		}
	}
}
