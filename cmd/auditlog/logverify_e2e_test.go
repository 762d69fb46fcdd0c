package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/periodicexport"
)

// TestLogVerifyThroughTheAPIAndOffline: `auditlog log verify --api`
// checks a tenant's log through the service's public API with a tenant
// token, on both stores, and --save keeps what it read; `--dir` verifies
// that copy offline. Events ingested just before a verification are
// waited for (--grace), not named. Edits of the saved copy are each
// named: an altered event, a missing one, an inserted one, and leaves
// reordered (the tree no longer has the signed root).
func TestLogVerifyThroughTheAPIAndOffline(t *testing.T) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) { testLogVerifyThroughTheAPI(t, vars(t)) })
	}
}

func testLogVerifyThroughTheAPI(t *testing.T, vars map[string]string) {
	for k, v := range map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "300", "AUDITLOG_LOG_SEAL_EVERY": "100ms"} {
		vars[k] = v
	}
	m := startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	waitSealed(t, c, tok, vars)
	var key struct{ VerifierKey string }
	if _, body := c.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil {
		t.Fatalf("log key: %s", body)
	}
	verify := func(wantExit int, args ...string) string {
		t.Helper()
		var out, errOut strings.Builder
		code := run(append([]string{"log", "verify", "--tenant", demoTenant, "--key", key.VerifierKey}, args...), env(nil), &out, &errOut)
		if code != wantExit {
			t.Fatalf("log verify %v: exit %d, want %d\n%s%s", args, code, wantExit, out.String(), errOut.String())
		}
		return out.String() + errOut.String()
	}
	saved := filepath.Join(t.TempDir(), "copy")
	// Events ingested right before: the verification waits for them.
	fresh, _ := ingestDemo(t, c, 5, 30)
	if out := verify(0, "--api", c.base, "--token", tok, "--save", saved); !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("through the API: %s", out)
	}
	if out := verify(0, "--dir", saved); !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("offline: %s", out)
	}
	events := readLines(t, filepath.Join(saved, "events.jsonl"))
	leaves := readLines(t, filepath.Join(saved, "leaves.jsonl"))
	if len(events) < 100 || len(leaves) < len(events) {
		t.Fatalf("saved %d events and %d leaves, want the tenant's seeded ones", len(events), len(leaves))
	}
	idOf := func(line string) string {
		var e struct{ ID string }
		_ = json.Unmarshal([]byte(line), &e)
		return e.ID
	}
	edited := strings.Replace(events[3], `"action":"`, `"action":"x`, 1)
	inserted := fresh[0]
	inserted.ID = audit.NewID()
	extra, _ := json.Marshal(inserted)
	for name, tc := range map[string]struct {
		events, leaves []string
		want           []string
	}{
		"altered":   {replaceAt(events, 3, edited), leaves, []string{"altered", idOf(events[3])}},
		"missing":   {append(append([]string{}, events[:5]...), events[6:]...), leaves, []string{"missing", idOf(events[5])}},
		"inserted":  {append(append([]string{}, events...), string(extra)), leaves, []string{"unsealed", inserted.ID}},
		"reordered": {events, swapLeaves(t, leaves, 10, 11), []string{"tree "}},
	} {
		dir := filepath.Join(t.TempDir(), name)
		writeCopy(t, dir, saved, tc.events, tc.leaves)
		out := verify(1, "--dir", dir)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the verification does not say %q:\n%.2000s", name, w, out)
			}
		}
	}
	verify(2, "--dir", saved, "--api", c.base)
	verify(2, "--api", c.base)
	verify(1, "--api", c.base, "--token", "not-a-token")
}

// waitSealed waits until the tenant's checkpoint covers every event it
// has stored, and returns its size. serve's seeding has returned when
// startMain does; on Elasticsearch (vars) the events are refreshed first,
// so that the list's count is of every event written: a count within the
// refresh once matched a checkpoint of the first of them on a loaded CI
// machine, and the events sealed after it broke the test's arithmetic.
func waitSealed(t *testing.T, c client, tok string, vars map[string]string) int64 {
	t.Helper()
	if vars["AUDITLOG_STORE"] == "elasticsearch" {
		refreshES(t, vars)
	}
	var sealed int64
	waitCheckpoint(t, c, tok, func(size, total int64) bool { sealed = size; return size == total && total > 0 })
	return sealed
}

func replaceAt(lines []string, i int, s string) []string {
	out := append([]string{}, lines...)
	out[i] = s
	return out
}

// swapLeaves swaps the events and hashes of two leaves, keeping their
// indexes in order: a log whose order was changed.
func swapLeaves(t *testing.T, lines []string, i, j int) []string {
	t.Helper()
	out := append([]string{}, lines...)
	var a, b map[string]any
	if json.Unmarshal([]byte(lines[i]), &a) != nil || json.Unmarshal([]byte(lines[j]), &b) != nil {
		t.Fatalf("leaves: %s %s", lines[i], lines[j])
	}
	a["index"], b["index"] = b["index"], a["index"]
	x, _ := json.Marshal(b)
	y, _ := json.Marshal(a)
	out[i], out[j] = string(x), string(y)
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// writeCopy writes a saved copy with the checkpoint of from.
func writeCopy(t *testing.T, dir, from string, events, leaves []string) {
	t.Helper()
	cp, err := os.ReadFile(filepath.Join(from, "checkpoint"))
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	for name, b := range map[string][]byte{"checkpoint": cp, "events.jsonl": []byte(strings.Join(events, "\n") + "\n"),
		"leaves.jsonl": []byte(strings.Join(leaves, "\n") + "\n")} {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestTheLogKeyRotates: serve signs checkpoints with key A; restarted
// with key B (A's public key kept in AUDITLOG_PERIODIC_PUBLIC_KEYS), it
// signs with B and publishes A among the earlier keys. A witness pinned
// to A alone cannot check the new checkpoint (exit 3, not an alarm, the
// kept one unchanged); pinned to A and B, it accepts it as extending the
// one A signed. log verify with both keys says ok.
func TestTheLogKeyRotates(t *testing.T) {
	keys := t.TempDir()
	privA := writeKey(t, filepath.Join(keys, "a.pem"))
	writeKey(t, filepath.Join(keys, "b.pem"))
	earlier := t.TempDir()
	if err := os.WriteFile(filepath.Join(earlier, "a.pem"), periodicexport.PublicPEM(privA.Public().(ed25519.PublicKey)), 0o644); err != nil {
		t.Fatal(err)
	}
	data, state := t.TempDir(), t.TempDir()
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	serve := func(extra map[string]string) (*Main, client) {
		vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": data, "AUDITLOG_JWT_SECRET": "s3cret",
			"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "100", "AUDITLOG_LOG_SEAL_EVERY": "100ms"}
		for k, v := range extra {
			vars[k] = v
		}
		m := startMain(t, "serve", vars)
		return m, client{t, "http://" + m.Addr()}
	}
	logKey := func(c client) (cur string, old []string) {
		var k struct {
			VerifierKey string
			EarlierKeys []string
		}
		if _, body := c.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &k) != nil {
			t.Fatalf("log key: %s", body)
		}
		return k.VerifierKey, k.EarlierKeys
	}
	witness := func(c client, key string, wantExit int) {
		t.Helper()
		var out strings.Builder
		if code := run([]string{"witness", "--api", c.base, "--key", key, "--token", tok, "--dir", state, "--once"}, env(nil), &out, &out); code != wantExit {
			t.Fatalf("witness --key %s: exit %d, want %d\n%s", key, code, wantExit, out.String())
		}
	}
	a, ca := serve(map[string]string{"AUDITLOG_PERIODIC_SIGNING_KEY": filepath.Join(keys, "a.pem")})
	var first int64
	waitCheckpoint(t, ca, tok, func(size, total int64) bool { first = size; return size == total && total > 0 })
	keyA, _ := logKey(ca)
	witness(ca, keyA, 0)
	kept := readKept(t, state)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, cb := serve(map[string]string{"AUDITLOG_PERIODIC_SIGNING_KEY": filepath.Join(keys, "b.pem"), "AUDITLOG_PERIODIC_PUBLIC_KEYS": earlier})
	defer b.Close()
	keyB, old := logKey(cb)
	if keyB == keyA || len(old) != 1 || old[0] != keyA {
		t.Fatalf("after the rotation: key %s, earlier %v; want a new key and %s", keyB, old, keyA)
	}
	ingestDemo(t, cb, 9, 5)
	waitCheckpoint(t, cb, tok, func(size, total int64) bool { return size == total && size > first })
	witness(cb, keyA, 3)
	if readKept(t, state) != kept {
		t.Fatal("a checkpoint the pinned key does not verify replaced the kept one")
	}
	witness(cb, keyA+","+keyB, 0)
	if readKept(t, state) == kept {
		t.Fatal("the witness pinned to both keys did not keep the new checkpoint")
	}
	var out strings.Builder
	if code := run([]string{"log", "verify", "--tenant", demoTenant, "--key", keyA + "," + keyB, "--api", cb.base, "--token", tok}, env(nil), &out, &out); code != 0 {
		t.Fatalf("log verify with both keys: exit %d\n%s", code, out.String())
	}
}

// writeKey writes a new Ed25519 key as PKCS #8 PEM.
func writeKey(t *testing.T, path string) ed25519.PrivateKey {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(nil)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return priv
}

// waitCheckpoint waits until done holds for the size of the tenant's
// latest checkpoint and the number of events the list API shows.
func waitCheckpoint(t *testing.T, c client, tok string, done func(size, total int64) bool) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, func() error {
		var lr api.ListResponse
		if _, body := c.do("GET", "/api/audit-logs?pageSize=1", tok, nil); json.Unmarshal(body, &lr) != nil {
			return fmt.Errorf("list: %s", body)
		}
		code, body := c.do("GET", "/api/log/checkpoint", tok, nil)
		if code != 200 {
			return fmt.Errorf("checkpoint: %d %s", code, body)
		}
		n, _ := strconv.ParseInt(strings.Split(string(body), "\n")[1], 10, 64)
		if !done(n, lr.Total.Value) {
			return fmt.Errorf("checkpoint of %d leaves, %d events", n, lr.Total.Value)
		}
		return nil
	})
}

// ingestDemo posts n generated events of the demo tenant (seed seed) to
// serve at c with the ingest token svc, and returns them and the body.
func ingestDemo(t *testing.T, c client, seed uint64, n int) ([]audit.Event, []byte) {
	t.Helper()
	g := gen.New(gen.Config{Seed: seed, Tenants: 1, FirstTenantID: demoTenant, WithIDs: true}, n)
	events := make([]audit.Event, n)
	for i := range events {
		events[i] = g.Next()
	}
	payload, _ := json.Marshal(events)
	if code, body := c.do("POST", "/api/audit-events", "svc", payload); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	return events, payload
}
