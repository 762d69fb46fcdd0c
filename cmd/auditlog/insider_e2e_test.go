package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/keyfile"
)

// TestAnInsiderWithoutTheKeyFileCannotSignAHistory (issues 41 and 53): an
// insider holds the store (the SQLite file, or the cluster) but not the
// key files. No value the store keeps is the signing key. The insider
// edits an event, drops the log and starts a service on the store with
// keys of their own (a signing key the store holds when there is one of
// Ed25519 size). That service seals nothing: every row's acceptance tag is
// under the deployment's acceptance key, which the insider lacks, so no
// history is signed again. Every verifier that pinned the deployment's key
// refuses the result: `log verify` on the store and through the API, and
// a witness with no earlier state.
func TestAnInsiderWithoutTheKeyFileCannotSignAHistory(t *testing.T) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) { insiderResigns(t, vars(t)) })
	}
}

func insiderResigns(t *testing.T, storeVars map[string]string) {
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	serve := func(sv map[string]string) (*Main, client) {
		vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_LOG_SEAL_EVERY": "100ms",
			"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_PERIODIC_EXPORT": "false"}
		for k, v := range sv {
			vars[k] = v
		}
		m := startMain(t, "serve", vars)
		c := client{t, "http://" + m.Addr()}
		return m, c
	}
	a, ca := serve(storeVars)
	ingestDemo(t, ca, 41, 60)
	waitCheckpoint(t, ca, tok, func(size, total int64) bool { return size == total && total >= 60 })
	var key struct{ VerifierKey string }
	if _, body := ca.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil {
		t.Fatalf("log key: %s", body)
	}
	pinned, _ := vlog.ParseKeys(key.VerifierKey)
	a.Close()

	insider := map[string]string{}
	for k, v := range storeVars {
		insider[k] = v
	}
	var found [][]byte
	if storeVars["AUDITLOG_STORE"] == "elasticsearch" {
		found = esKeyValues(t, storeVars)
		esRewriteHistory(t, storeVars)
	} else {
		// The database without the key file beside it.
		dir := t.TempDir()
		files, _ := filepath.Glob(filepath.Join(storeVars["AUDITLOG_DATA_DIR"], "audit.db*"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o600)
		}
		insider["AUDITLOG_DATA_DIR"] = dir
		found = sqliteKeyValues(t, dir)
		rewrite(t, dir, `UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor.email', 'nobody@x.example') AS BLOB) WHERE seq = (SELECT min(seq) FROM events WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = '`+demoTenant+`'))`)
	}
	insider["AUDITLOG_PERIODIC_SIGNING_KEY"] = testKeyFile(t)
	if _, ok := insider["AUDITLOG_ACCEPT_KEY"]; ok { // an acceptance key of their own: ours is a file they lack
		insider["AUDITLOG_ACCEPT_KEY"] = otherAcceptKey(t)
	}
	for _, v := range found {
		if len(v) == ed25519.SeedSize {
			k := ed25519.NewKeyFromSeed(v)
			if pinned.Len() > 0 && keyVerifies(pinned, k) {
				t.Fatal("the store holds the signing key")
			}
			file := filepath.Join(t.TempDir(), "found.pem")
			if err := keyfile.Create(file, k); err != nil {
				t.Fatal(err)
			}
			insider["AUDITLOG_PERIODIC_SIGNING_KEY"] = file // sign with what the store holds
		}
	}
	f, cf := serve(insider)
	defer f.Close()
	// Without the acceptance key, the insider's own service seals nothing
	// of the store (every tag is under a key it does not hold): no history
	// is signed again at all, and every row is named unaccepted.
	testenv.Eventually(t, time.Minute, func() error {
		var h struct{ Log struct{ Unaccepted int } }
		if _, body := cf.do("GET", "/healthz", "", nil); json.Unmarshal(body, &h) != nil || h.Log.Unaccepted < 60 {
			return fmt.Errorf("healthz: %s", body)
		}
		return nil
	})
	if code, body := cf.do("GET", "/api/log/checkpoint", tok, nil); code != 404 {
		t.Fatalf("the insider's service signed a checkpoint: %d %s", code, body)
	}
	cli := env(insider)
	for _, args := range [][]string{{}, {"--api", cf.base, "--token", tok}} {
		var out, errOut strings.Builder
		code := run(append([]string{"log", "verify", "--tenant", demoTenant, "--key", key.VerifierKey, "--grace", "0"}, args...), cli, &out, &errOut)
		if code != 1 || !strings.Contains(out.String()+errOut.String(), "no checkpoint") {
			t.Fatalf("log verify %v of the insider's store: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
	var out, errOut strings.Builder
	if code := run([]string{"witness", "--api", cf.base, "--key", key.VerifierKey, "--token", tok, "--dir", t.TempDir(), "--once"}, env(nil), &out, &errOut); code == 0 {
		t.Fatalf("a witness accepted the re-signed history:\n%s%s", out.String(), errOut.String())
	}
}

// otherAcceptKey writes an acceptance key that is not the tests' (random)
// and returns its file.
func otherAcceptKey(t *testing.T) string {
	t.Helper()
	k := make([]byte, vlog.AcceptKeySize)
	_, _ = rand.Read(k)
	file := filepath.Join(t.TempDir(), "accept-key")
	if err := os.WriteFile(file, []byte(base64.StdEncoding.EncodeToString(k)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// keyVerifies reports whether the pinned keys verify a signature by k.
func keyVerifies(pinned vlog.Keys, k ed25519.PrivateKey) bool {
	name := vlog.Origin(pinned.Name(), demoTenant)
	v, err := pinned.Verifier(name, keyHashOf(name, k))
	return err == nil && v.Verify([]byte("x"), ed25519.Sign(k, []byte("x")))
}

func keyHashOf(name string, k ed25519.PrivateKey) uint32 {
	v, err := note.NewVerifier(vlog.VerifierKey(name, k.Public().(ed25519.PublicKey)))
	if err != nil {
		return 0
	}
	return v.KeyHash()
}

// sqliteKeyValues are the values of the keys table.
func sqliteKeyValues(t *testing.T, dir string) [][]byte {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT value FROM keys`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var v []byte
		rows.Scan(&v)
		out = append(out, v)
	}
	return out
}

// esKeyValues are the values of the cluster's keys index.
func esKeyValues(t *testing.T, vars map[string]string) [][]byte {
	t.Helper()
	var found struct {
		Hits struct {
			Hits []struct {
				Source struct{ Value []byte } `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	esDo(t, "POST", vars["AUDITLOG_ES_URL"]+"/"+vars["AUDITLOG_ES_INDEX_PREFIX"]+"-keys/_search?size=100", `{"query":{"match_all":{}}}`, &found)
	var out [][]byte
	for _, h := range found.Hits.Hits {
		out = append(out, h.Source.Value)
	}
	return out
}

// esRewriteHistory edits one event of the demo tenant in the cluster and
// drops the logs, queueing every stored event again, so that the next
// serve seals the edited history from scratch: what an insider with the
// cluster does.
func esRewriteHistory(t *testing.T, vars map[string]string) {
	t.Helper()
	es, prefix := vars["AUDITLOG_ES_URL"], vars["AUDITLOG_ES_INDEX_PREFIX"]
	found := esSearchDocs(t, es, prefix, `{"size":10000,"query":{"match_all":{}}}`)
	h := found[0]
	h.Source["actor"].(map[string]any)["email"] = "nobody@x.example"
	esRewrite(t, es, h)
	esDo(t, "DELETE", es+"/"+prefix+"-tlog", "", nil)
	type ref struct {
		Tenant string `json:"t"`
		ID     string `json:"id"`
		DocID  string `json:"d"`
		Index  string `json:"ix"`
		Route  string `json:"r,omitempty"`
	}
	var refs []ref
	for _, h := range found {
		refs = append(refs, ref{Tenant: h.Source["tenantId"].(string), ID: h.Source["id"].(string), DocID: h.ID, Index: h.Index, Route: h.Route})
	}
	ticket, _ := json.Marshal(map[string]any{"kind": "ticket", "at": time.Now().UnixMilli(), "n": len(refs), "refs": refs})
	esDo(t, "POST", es+"/"+prefix+"-seal-queue/_doc?refresh=true", string(ticket), nil)
}
