package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// TestVerifiersSlowDownAtTheRateLimit (issue 54): a verifier reading the
// API (log verify --api, and with the same client stream check --api,
// verify --api and witness) meets the tenant's rate limit after a few
// requests; it waits the Retry-After the service gives and goes on,
// instead of stopping "unavailable". Before, the first 429 ended it.
func TestVerifiersSlowDownAtTheRateLimit(t *testing.T) {
	m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": filepath.Join(t.TempDir(), "data"),
		"AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "600", "AUDITLOG_LOG_SEAL_EVERY": "100ms",
		"AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_RATE_LIMIT": "2", "AUDITLOG_RATE_BURST": "1", "AUDITLOG_LOG_LEVEL": "warn"})
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	// Sealed, asked no faster than the limit allows.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(1100 * time.Millisecond) {
		var lr api.ListResponse
		_, list := c.do("GET", "/api/audit-logs?pageSize=1", tok, nil)
		time.Sleep(600 * time.Millisecond)
		code, cp := c.do("GET", "/api/log/checkpoint", tok, nil)
		if json.Unmarshal(list, &lr) == nil && code == 200 && lr.Total.Value > 0 && strings.Split(string(cp), "\n")[1] == strconv.FormatInt(lr.Total.Value, 10) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not sealed within a minute: %d %s", code, cp)
		}
	}
	var key struct{ VerifierKey string }
	if _, body := c.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil {
		t.Fatalf("log key: %s", body)
	}
	// The limit is met: a burst of reads gets 429s.
	limited := 0
	for range 5 {
		if code, _ := c.do("GET", "/api/log/checkpoint", tok, nil); code == 429 {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("five reads in a row were not limited: the test would prove nothing")
	}
	var out, errOut strings.Builder
	if code := run([]string{"log", "verify", "--tenant", demoTenant, "--key", key.VerifierKey, "--api", c.base, "--token", tok}, env(nil), &out, &errOut); code != 0 ||
		!strings.HasPrefix(out.String(), "ok: ") {
		t.Fatalf("log verify --api at the rate limit: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
