package main

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/keyfile"
)

// TestCheckpointsAreCosignedByLitewitness (issue 41): serve submits each
// tenant's checkpoints to a real, independent witness (litewitness, C2SP
// tlog-witness) and publishes them with its cosignature; log verify
// requiring that witness says ok, and refuses when it requires a witness
// that did not cosign. The witness is down for a minute during ingest:
// nothing is lost, ingest and sealing go on, the lag shows in /healthz,
// and the checkpoints are cosigned once it is back. Then an insider who
// holds the store and the log's key rewrites an event and has the
// history re-signed: the witness refuses to cosign it, and every
// verifier requiring the witness fails, with no state of its own.
func TestCheckpointsAreCosignedByLitewitness(t *testing.T) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cosignedEndToEnd(t, vars(t))
		})
	}
}

func cosignedEndToEnd(t *testing.T, storeVars map[string]string) {
	lw, keyFile, key := witnessedLog(t, storeVars)
	vars := with(with(map[string]string{}, storeVars), map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_PERIODIC_SIGNING_KEY": keyFile,
		"AUDITLOG_LOG_WITNESSES": lw.URL + " " + lw.Key})
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	m := startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	ingestDemo(t, c, 51, 50)
	total := waitCosigned(t, c, tok, 50)
	if got := lw.Size(vlog.Origin("auditlog.local", demoTenant)); got != total {
		t.Fatalf("litewitness keeps size %d, the cosigned checkpoint is %d", got, total)
	}
	deployment := vlog.VerifierKey("auditlog.local", key.Public().(ed25519.PublicKey))
	verify := func(wantExit int, extra ...string) string {
		t.Helper()
		var out, errOut strings.Builder
		code := run(append([]string{"log", "verify", "--tenant", demoTenant, "--key", deployment, "--grace", "0"}, extra...), env(vars), &out, &errOut)
		if code != wantExit {
			t.Fatalf("log verify %v: exit %d, want %d\n%s%s", extra, code, wantExit, out.String(), errOut.String())
		}
		return out.String() + errOut.String()
	}
	verify(0, "--witness-key", lw.Key)
	verify(0, "--witness-key", lw.Key, "--api", c.base, "--token", tok)
	other := testenv.OtherWitnessKey(t)
	if out := verify(1, "--witness-key", lw.Key+","+other); !strings.Contains(out, "cosigned by 1 of the 2 witnesses") {
		t.Fatalf("a witness that did not cosign: %s", out)
	}
	verify(0, "--witness-key", lw.Key+","+other, "--witness-quorum", "1")

	// The witness down for a minute during ingest.
	lw.Stop()
	sent := 50
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(2 * time.Second) {
		ingestDemo(t, c, uint64(100+sent), 5)
		sent += 5
	}
	waitCheckpoint(t, c, tok, func(size, all int64) bool { return size == all && all >= int64(sent) })
	if cos := cosignedSize(t, c, tok); cos != total {
		t.Fatalf("cosigned at %d while the witness was down (was %d)", cos, total)
	}
	var h struct{ Cosign struct{ LagSeconds float64 } }
	if _, body := c.do("GET", "/healthz", "", nil); json.Unmarshal(body, &h) != nil || h.Cosign.LagSeconds < 30 {
		t.Fatalf("healthz after a minute without the witness: %s", body)
	}
	lw.Start()
	if n := waitCosigned(t, c, tok, int64(sent)); n < int64(sent) {
		t.Fatalf("cosigned %d of %d", n, sent)
	}
	verify(0, "--witness-key", lw.Key, "--api", c.base, "--token", tok)
	m.Close()

	// An insider with the store and the log's key rewrites history.
	if storeVars["AUDITLOG_STORE"] == "elasticsearch" {
		esRewriteHistory(t, storeVars)
	} else {
		rewrite(t, storeVars["AUDITLOG_DATA_DIR"], `UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor.email', 'nobody@x.example') AS BLOB) WHERE seq = (SELECT min(seq) FROM events WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = '`+demoTenant+`'))`)
	}
	m = startMain(t, "serve", vars)
	defer m.Close()
	c = client{t, "http://" + m.Addr()}
	// The edited row no longer carries its acceptance's tag: every other
	// row is sealed again, it never is (unaccepted).
	waitCheckpoint(t, c, tok, func(size, all int64) bool { return size == all-1 && all >= int64(sent) })
	// The rewritten history is signed by the log's own key, but the
	// witness refused to cosign it: the latest cosigned checkpoint is the
	// witness's last one (whose tree the store no longer has), or none.
	for _, args := range [][]string{{"--witness-key", lw.Key}, {"--witness-key", lw.Key, "--api", c.base, "--token", tok}} {
		if out := verify(1, args...); !strings.Contains(out, "tree") && !strings.Contains(out, "cosigned") {
			t.Fatalf("log verify %v of the rewritten history:\n%s", args, out)
		}
	}
	var out, errOut strings.Builder
	if code := run([]string{"witness", "--api", c.base, "--key", deployment, "--witness-key", lw.Key, "--token", tok, "--dir", t.TempDir(), "--once"}, env(nil), &out, &errOut); code == 0 {
		t.Fatalf("auditlog witness requiring litewitness accepted the rewritten history:\n%s%s", out.String(), errOut.String())
	}
}

// waitCosigned waits until the tenant's latest cosigned checkpoint covers
// every stored event, at least want, and returns its size.
func waitCosigned(t *testing.T, c client, tok string, want int64) int64 {
	t.Helper()
	var size int64
	testenv.Eventually(t, 3*time.Minute, func() error {
		var lr api.ListResponse
		if _, body := c.do("GET", "/api/audit-logs?pageSize=1", tok, nil); json.Unmarshal(body, &lr) != nil {
			return fmt.Errorf("list: %s", body)
		}
		size = cosignedSize(t, c, tok)
		if size < want || size < lr.Total.Value {
			return fmt.Errorf("cosigned %d of %d events", size, lr.Total.Value)
		}
		return nil
	})
	return size
}

// cosignedSize is the size of the tenant's latest cosigned checkpoint
// (0: none).
func cosignedSize(t *testing.T, c client, tok string) int64 {
	t.Helper()
	code, body := c.do("GET", "/api/log/checkpoint?cosigned=true", tok, nil)
	if code == 404 {
		return 0
	}
	if code != 200 || !strings.Contains(string(body), "\n— witness.test/w1 ") {
		t.Fatalf("cosigned checkpoint: %d %s", code, body)
	}
	n, _ := strconv.ParseInt(strings.Split(string(body), "\n")[1], 10, 64)
	return n
}

// witnessedLog starts a litewitness that witnesses demoTenant's log,
// signed by the key file of storeVars (a new one when it has none), and
// returns it with the key file and its key.
func witnessedLog(t *testing.T, storeVars map[string]string) (*testenv.Litewitness, string, ed25519.PrivateKey) {
	t.Helper()
	lw := testenv.StartLitewitness(t, "witness.test/w1")
	keyFile := storeVars["AUDITLOG_PERIODIC_SIGNING_KEY"]
	if keyFile == "" {
		keyFile = testKeyFile(t)
	}
	key, _, err := keyfile.Load(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	origin := vlog.Origin("auditlog.local", demoTenant)
	lw.AddLog(origin, vlog.VerifierKey(origin, key.Public().(ed25519.PublicKey)))
	return lw, keyFile, key
}
