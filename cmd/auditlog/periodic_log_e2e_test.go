package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/sqlite"
)

// TestTheLogCatchesACutOffExport: with the verifiable log on, each digest
// of the periodic export carries the tenant's log checkpoint, and each
// delivery is recorded in the tenant's log. `auditlog verify` with the
// pinned log key checks the digests' checkpoints and proves every logged
// delivery's inclusion; then an exporter that cuts the chain's newest
// window off and also deletes it from its own delivered-windows records
// (which the API lists) is still caught: the log holds the delivery.
func TestTheLogCatchesACutOffExport(t *testing.T) {
	dir := t.TempDir()
	end := time.Now().UTC().Truncate(24 * time.Hour)
	g := gen.New(gen.Config{Seed: 17, Tenants: 1, WithIDs: true, FirstTenantID: demoTenant, Start: end.Add(-3 * 24 * time.Hour), End: end}, 3000)
	accepttest.File(t, dir, AcceptKeyFile) // the key serve reads in this data directory
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(dir, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	events := make([]audit.Event, 3000)
	for i := range events {
		events[i] = g.Next()
	}
	storetest.Write(t, s, events)
	if err := s.SetPlan(context.Background(), demoTenant, audit.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	s.Close()
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_PERIODIC_SETTLE": "0s", "AUDITLOG_PERIODIC_EVERY": "1s", "AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_LOG_LEVEL": "warn",
		"AUDITLOG_PERIODIC_EXPORT": "false"}
	tok := token(t, "s3cret", audit.Principal{UserID: "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e", Email: "ana@acme.example", Role: audit.RoleAdmin, TenantID: demoTenant})
	// The events are sealed first (windows settle long after their events
	// are sealed, as in production), then the export runs.
	m := startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	testenv.Eventually(t, time.Minute, func() error {
		if code, body := c.do("GET", "/api/log/checkpoint", tok, nil); code != 200 || !strings.Contains(string(body), "\n3000\n") {
			return fmt.Errorf("checkpoint: %d %s", code, body)
		}
		return nil
	})
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	vars["AUDITLOG_PERIODIC_EXPORT"] = "true"
	m = startMain(t, "serve", vars)
	c = client{t, "http://" + m.Addr()}
	// Three days delivered (four past midnight), each delivery recorded and
	// sealed: the checkpoint covers every stored event.
	testenv.Eventually(t, 2*time.Minute, func() error {
		var recs, all api.ListResponse
		_, body := c.do("GET", "/api/audit-logs?pageSize=1&resourceType="+audit.ResourcePeriodicExport, tok, nil)
		_ = json.Unmarshal(body, &recs)
		_, body = c.do("GET", "/api/audit-logs?pageSize=1", tok, nil)
		_ = json.Unmarshal(body, &all)
		_, cp := c.do("GET", "/api/log/checkpoint", tok, nil)
		lines := strings.Split(string(cp), "\n")
		size := int64(-1)
		if len(lines) > 1 {
			size, _ = strconv.ParseInt(lines[1], 10, 64)
		}
		if recs.Total.Value < 3 || size != all.Total.Value {
			return fmt.Errorf("%d deliveries recorded, checkpoint of %d leaves for %d events", recs.Total.Value, size, all.Total.Value)
		}
		return nil
	})
	var key struct{ VerifierKey string }
	if _, body := c.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil {
		t.Fatal("no log key")
	}
	args := []string{"verify", "--dir", filepath.Join(dir, "periodic-exports"), "--tenant", demoTenant, "--api", c.base, "--token", tok, "--log-key", key.VerifierKey}
	var out strings.Builder
	if code := run(args, envOf(nil), &out, os.Stderr); code != 0 || !strings.Contains(out.String(), ": all valid\n") ||
		!strings.Contains(out.String(), "log checkpoint: the chain's last digest is covered by auditlog.local/tenants/"+demoTenant) {
		t.Fatalf("verify exited %d:\n%s", code, out.String())
	}
	// The exporter cuts the newest window off, and deletes it from the
	// records its API lists as delivered.
	day := end.Add(-24 * time.Hour)
	if err := os.RemoveAll(filepath.Join(dir, "periodic-exports", "auditlog", demoTenant, "digest", day.Format("2006/01/02"))); err != nil {
		t.Fatal(err)
	}
	// serve is running and writing: wait for its lock as it does.
	db := openStoreFile(t, map[string]string{"AUDITLOG_DATA_DIR": dir})
	defer db.Close()
	if res, err := db.Exec(`DELETE FROM periodic_records WHERE tenant_id = ? AND window_start >= ?`, demoTenant, day.UnixMilli()); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("no delivered-window record deleted")
	}
	out.Reset()
	code := run(args, envOf(nil), &out, io.Discard)
	want := "TRUNCATED auditlog/" + demoTenant + "/digest/" + day.Format("2006/01/02")
	if code != 1 || !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "the verifiable log of") {
		t.Fatalf("verify of a cut-off copy with the records gone exited %d (want 1, %s, from the verifiable log):\n%s", code, want, out.String())
	}
}
