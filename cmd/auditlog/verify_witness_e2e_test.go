package main

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestVerifyRequiresTheWitnesses (issue 41): with witnesses, each
// periodic digest carries the tenant's latest cosigned checkpoint, and
// `auditlog verify --witness-key` requires their cosignatures: on every
// digest's log checkpoint, and, with --api, on the proof of every
// delivery the log records. It refuses a policy the witness did not meet
// (a second witness), and the newest digest re-signed by an insider who
// holds the key, with a checkpoint no witness cosigned; --witness-from
// exempts the digests of windows from before the witnesses began.
func TestVerifyRequiresTheWitnesses(t *testing.T) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			verifyWithWitnesses(t, vars(t))
		})
	}
}

func verifyWithWitnesses(t *testing.T, storeVars map[string]string) {
	lw, keyFile, key := witnessedLog(t, storeVars)
	dir := storeVars["AUDITLOG_DATA_DIR"]
	vars := with(with(map[string]string{}, storeVars), map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_PERIODIC_SIGNING_KEY": keyFile,
		"AUDITLOG_PERIODIC_SETTLE": "0s", "AUDITLOG_PERIODIC_EVERY": "1s", "AUDITLOG_LOG_LEVEL": "warn", "AUDITLOG_LOG_WITNESSES": lw.URL + " " + lw.Key})
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())

	// Three past days of events, sealed and cosigned before any window is
	// exported (windows settle long after their events are sealed).
	end := time.Now().UTC().Truncate(24 * time.Hour)
	g := gen.New(gen.Config{Seed: 43, Tenants: 1, WithIDs: true, FirstTenantID: demoTenant, Start: end.Add(-3 * 24 * time.Hour), End: end}, 90)
	events := make([]audit.Event, 90)
	for i := range events {
		events[i] = g.Next()
	}
	m := startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	payload, _ := json.Marshal(events)
	if code, body := c.do("POST", "/api/audit-events", "svc", payload); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	waitCosigned(t, c, tok, 90)
	m.Close()
	vars["AUDITLOG_PERIODIC_EXPORT"] = "true"
	m = startMain(t, "serve", vars)
	defer m.Close()
	c = client{t, "http://" + m.Addr()}
	testenv.Eventually(t, 2*time.Minute, func() error {
		var recs api.ListResponse
		_, body := c.do("GET", "/api/audit-logs?pageSize=1&resourceType="+audit.ResourcePeriodicExport, tok, nil)
		if json.Unmarshal(body, &recs) != nil || recs.Total.Value < 3 {
			return fmt.Errorf("%d deliveries recorded: %s", recs.Total.Value, body)
		}
		if n := cosignedSize(t, c, tok); n < 90+recs.Total.Value {
			return fmt.Errorf("cosigned %d of %d", n, 90+recs.Total.Value)
		}
		return nil
	})
	exports := filepath.Join(dir, "periodic-exports")
	deployment := vlog.VerifierKey("auditlog.local", key.Public().(ed25519.PublicKey))
	verify := func(wantExit int, extra ...string) string {
		t.Helper()
		var out, errOut strings.Builder
		args := append([]string{"verify", "--dir", exports, "--tenant", demoTenant, "--api", c.base}, extra...)
		if code := run(args, env(nil), &out, &errOut); code != wantExit {
			t.Fatalf("verify %v: exit %d, want %d\n%s%s", extra, code, wantExit, out.String(), errOut.String())
		}
		return out.String() + errOut.String()
	}
	if out := verify(0, "--log-key", deployment, "--witness-key", lw.Key); !strings.Contains(out, "requiring the log key of auditlog.local and 1 of 1 witnesses (witness.test/w1)") {
		t.Fatalf("verify with the witness:\n%s", out)
	}
	if out := verify(0, "--token", tok, "--witness-key", lw.Key); !strings.Contains(out, "trusting log key auditlog.local from") {
		t.Fatalf("verify with the service's log key and the witness:\n%s", out)
	}
	other := testenv.OtherWitnessKey(t)
	if out := verify(1, "--log-key", deployment, "--witness-key", lw.Key+","+other); !strings.Contains(out, "LOGCHECKPOINT") || !strings.Contains(out, "cosigned by 1 of the 2 witnesses") {
		t.Fatalf("a witness that did not cosign:\n%s", out)
	}

	// An insider with the key re-signs the newest digest with a checkpoint
	// the log key alone signed: one made while the witness is away. The
	// exporter is stopped first, so no later digest (a late file for the
	// new event) is chained to the digest before it was re-signed, and the
	// new event is of today, a window not yet due.
	lw.Stop()
	before := cosignedSize(t, c, tok)
	m.Close()
	vars["AUDITLOG_PERIODIC_EXPORT"] = "false"
	m = startMain(t, "serve", vars)
	c = client{t, "http://" + m.Addr()}
	now := events[0]
	now.ID, now.Timestamp = audit.NewID(), audit.NewTimestamp(time.Now())
	more, _ := json.Marshal([]audit.Event{now})
	if code, body := c.do("POST", "/api/audit-events", "svc", more); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	var latest []byte
	testenv.Eventually(t, time.Minute, func() error {
		_, latest = c.do("GET", "/api/log/checkpoint", tok, nil)
		if !strings.Contains(string(latest), fmt.Sprintf("\n%d\n", before+1)) {
			return fmt.Errorf("checkpoint %s, want %d leaves", latest, before+1)
		}
		return nil
	})
	newest := newestDigest(t, exports)
	var d periodic.Digest
	body, _ := os.ReadFile(newest)
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	d.LogCheckpoint = string(latest)
	d.Sign(key)
	body, _ = json.MarshalIndent(&d, "", "  ")
	if err := os.WriteFile(newest, body, 0o644); err != nil {
		t.Fatal(err)
	}
	verify(0, "--log-key", deployment) // the log key alone accepts it: the policy is what catches it
	if out := verify(1, "--log-key", deployment, "--witness-key", lw.Key); !strings.Contains(out, "LOGCHECKPOINT") || !strings.Contains(out, "cosigned by 0 of the 1 witnesses") {
		t.Fatalf("a digest re-signed with an uncosigned checkpoint:\n%s", out)
	}
	verify(0, "--log-key", deployment, "--witness-key", lw.Key, "--witness-from", end.Add(24*time.Hour).Format(time.DateOnly))
}

// newestDigest is the path of the digest of the latest window under dir.
func newestDigest(t *testing.T, dir string) string {
	t.Helper()
	var all []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.Contains(p, "/digest/") {
			all = append(all, p)
		}
		return nil
	})
	if len(all) == 0 {
		t.Fatalf("no digest under %s", dir)
	}
	sort.Strings(all)
	return all[len(all)-1]
}
