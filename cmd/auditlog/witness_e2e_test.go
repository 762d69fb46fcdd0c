package main

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/witness"
	"github.com/prometheus/client_golang/prometheus"
)

// TestWitnessCatchesAForkAndARollback: an operator who holds the signing
// key rewrites a tenant's history and signs the rebuilt tree. The
// signature verifies, so `auditlog log verify` against the rebuilt store
// alone cannot tell; a witness that kept an earlier checkpoint can. The
// witness keeps serve's checkpoint and accepts a later one that extends
// it (exit 0); then, against the same deployment (same key, same origin)
// restarted on a rewritten store, it raises a fork: one event edited and
// the tree rebuilt and re-signed, plus new events, so the tree grew but
// does not extend the kept one; and a rollback: the store as it was
// before the later events. Each alarm exits 1, logs the kind, writes an
// evidence file with both signed checkpoints, and leaves the kept
// checkpoint as it was.
func TestWitnessCatchesAForkAndARollback(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "signing.pem")
	_, priv, _ := ed25519.GenerateKey(nil)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	serve := func(dir string) (*Main, client) {
		m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret",
			"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "200", "AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_PERIODIC_SIGNING_KEY": keyFile,
			// Recent events: the demo's fixed dates age past the plan's
			// retention, whose purge would shrink the rewritten history.
			"AUDITLOG_SEED_END": "now"})
		return m, client{t, "http://" + m.Addr()}
	}
	sealedAt := func(c client, want int64) {
		waitCheckpoint(t, c, tok, func(size, total int64) bool { return size == total && (want == 0 || size == want) })
	}
	// The rewritten history's edited row no longer carries the tag of its
	// acceptance: it is never sealed (unaccepted), every other row is.
	sealedBut := func(c client, unaccepted int64) {
		waitCheckpoint(t, c, tok, func(size, total int64) bool { return size == total-unaccepted })
	}
	state := t.TempDir()
	dirA := t.TempDir()
	a, ca := serve(dirA)
	sealedAt(ca, 0)
	var key struct{ VerifierKey string }
	if _, body := ca.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil {
		t.Fatalf("log key: %s", body)
	}
	check := func(c client, wantExit int, wantLog string) string {
		t.Helper()
		var out, errOut strings.Builder
		code := run([]string{"witness", "--api", c.base, "--key", key.VerifierKey, "--token", tok, "--dir", state, "--once"}, env(nil), &out, &errOut)
		if code != wantExit || !strings.Contains(out.String(), wantLog) {
			t.Fatalf("witness: exit %d, want %d with %q\n%s%s", code, wantExit, wantLog, out.String(), errOut.String())
		}
		return out.String()
	}
	check(ca, 0, `"msg":"checkpoint extends the kept one"`)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	before := copyDir(t, dirA) // the store before the later events, for the rollback
	a, ca = serve(dirA)
	_, payload := ingestDemo(t, ca, 77, 10)
	sealedAt(ca, 0)
	check(ca, 0, `"kept":`)
	kept := readKept(t, state)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	// The fork: the store of A with one event edited and the log rebuilt,
	// re-signed with the same key, and grown by the later events.
	forked := copyDir(t, before)
	rewrite(t, forked, `UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor.email', 'nobody@x.example') AS BLOB) WHERE seq = (SELECT min(seq) FROM events WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = '`+demoTenant+`'))`)
	f, cf := serve(forked)
	if code, body := cf.do("POST", "/api/audit-events", "svc", payload); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	sealedBut(cf, 1)
	// A fork is a tree that grew but does not extend the kept one: grow
	// the fork past the kept size whatever A wrote on its own meanwhile
	// (its periodic export's records), else it reads as a rollback.
	keptSize, _ := strconv.ParseInt(strings.Split(kept, "\n")[1], 10, 64)
	if size := checkpointSize(t, cf, tok); size <= keptSize {
		ingestDemo(t, cf, 78, int(keptSize-size)+1)
		sealedBut(cf, 1)
	}
	out := check(cf, 1, `"kind":"fork"`)
	if readKept(t, state) != kept {
		t.Fatal("the kept checkpoint changed after a fork")
	}
	evidence, _ := filepath.Glob(filepath.Join(state, "*.fork-*.evidence"))
	if len(evidence) != 1 {
		t.Fatalf("fork evidence files: %v\n%s", evidence, out)
	}
	if b, _ := os.ReadFile(evidence[0]); strings.Count(string(b), "\n— auditlog.local") != 2 {
		t.Fatalf("the evidence does not hold two signed checkpoints:\n%s", b)
	}
	_ = f.Close()

	// The rollback: the store as it was before the later events.
	_, cr := serve(before)
	sealedAt(cr, 0)
	check(cr, 1, `"kind":"rollback"`)
	if readKept(t, state) != kept {
		t.Fatal("the kept checkpoint changed after a rollback")
	}
	// The alarm is counted, for a witness that runs on (without --once).
	reg := prometheus.NewRegistry()
	keys, _ := logKeys("--key", key.VerifierKey)
	w := &witness.Witness{API: cr.base, Keys: keys, Dir: state}
	if err := witnessRound(context.Background(), w, []string{demoTenant}, []string{tok}, newWitnessMetrics(reg), slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("a rollback raised no error")
	}
	if n := testenv.Metric(t, reg, "auditlog_witness_alarms_total"); n != 1 {
		t.Fatalf("auditlog_witness_alarms_total %v, want 1", n)
	}
	// Usage: no token.
	if code := run([]string{"witness", "--api", cr.base, "--key", key.VerifierKey, "--once"}, env(nil), &strings.Builder{}, &strings.Builder{}); code != 2 {
		t.Fatalf("without a token: exit %d, want 2", code)
	}
}

// readKept is the one checkpoint the witness keeps in dir.
func readKept(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.checkpoint"))
	if len(files) != 1 {
		t.Fatalf("kept checkpoints: %v", files)
	}
	b, _ := os.ReadFile(files[0])
	return string(b)
}

// copyDir copies a stopped serve's data directory.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	if out, err := exec.Command("cp", "-a", dir+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

// rewrite runs stmt on the SQLite store of dir, and drops its verifiable
// log so that the next serve seals every event again: history rewritten.
func rewrite(t *testing.T, dir, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{stmt, `DELETE FROM tlog_leaves`, `DELETE FROM tlog_hash_blocks`, `DELETE FROM tlog_state`, `DELETE FROM tlog_position`} {
		if res, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		} else if n, _ := res.RowsAffected(); n == 0 {
			t.Fatalf("%s changed nothing", s)
		}
	}
}

// checkpointSize is the size of the tenant's latest checkpoint at c.
func checkpointSize(t *testing.T, c client, tok string) int64 {
	t.Helper()
	code, body := c.do("GET", "/api/log/checkpoint", tok, nil)
	if code != 200 {
		t.Fatalf("checkpoint: %d %s", code, body)
	}
	n, err := strconv.ParseInt(strings.Split(string(body), "\n")[1], 10, 64)
	if err != nil {
		t.Fatalf("checkpoint: %s", body)
	}
	return n
}
