package main

import (
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/seal"
)

// TestTheLogVerifiesWithAnIndependentProgram: serve seals the seeded and
// the ingested events into the tenant's log; internal/tlogcheck, which
// imports only the standard library and golang.org/x/mod (none of the
// service's packages), checks the signed checkpoint with note.Open, the
// events' inclusion with tlog.CheckRecord from leaf hashes it computes
// itself, and the consistency of the latest tree with an earlier one.
// It runs on both stores.
func TestTheLogVerifiesWithAnIndependentProgram(t *testing.T) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) { testTheLogVerifies(t, vars) })
	}
}

// logStores is the configuration of serve on each store, each test with
// a store of its own.
func logStores(t *testing.T) map[string]func(t *testing.T) map[string]string {
	return map[string]func(t *testing.T) map[string]string{
		"sqlite": func(t *testing.T) map[string]string { return map[string]string{"AUDITLOG_DATA_DIR": t.TempDir()} },
		"elasticsearch": func(t *testing.T) map[string]string {
			return map[string]string{"AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_STORE": "elasticsearch",
				"AUDITLOG_ES_URL": testenv.ElasticsearchURL(t), "AUDITLOG_ES_INDEX_PREFIX": testenv.Name("auditlog-tlog"),
				"AUDITLOG_PERIODIC_SIGNING_KEY": testKeyFile(t), "AUDITLOG_ACCEPT_KEY": testAcceptKey(t)}
		},
	}
}

func testTheLogVerifies(t *testing.T, store func(t *testing.T) map[string]string) {
	vars := store(t)
	for k, v := range map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "400", "AUDITLOG_LOG_SEAL_EVERY": "100ms"} {
		vars[k] = v
	}
	m := startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	size := func() int64 {
		code, body := c.do("GET", "/api/log/checkpoint", tok, nil)
		if code != 200 {
			return 0
		}
		n, _ := strconv.ParseInt(strings.Split(string(body), "\n")[1], 10, 64)
		return n
	}
	early := waitSealed(t, c, tok, vars)
	var lr api.ListResponse
	if _, body := c.do("GET", "/api/audit-logs?pageSize=5", tok, nil); json.Unmarshal(body, &lr) != nil || len(lr.Data) != 5 {
		t.Fatalf("seeded: %s", body)
	}
	events, _ := ingestDemo(t, c, 31, 20)
	testenv.Eventually(t, 30*time.Second, func() error {
		if s := size(); s != early+20 {
			return fmt.Errorf("checkpoint of %d leaves, want %d", s, early+20)
		}
		return nil
	})
	testenv.Eventually(t, 30*time.Second, func() error { // Elasticsearch: searchable within its refresh
		for _, e := range events {
			if code, body := c.do("GET", "/api/audit-logs/"+e.ID, tok, nil); code != 200 {
				return fmt.Errorf("%s: %d %s", e.ID, code, body)
			}
		}
		return nil
	})
	cmd := exec.Command("go", "run", "./internal/tlogcheck", "-base", c.base, "-token", tok, "-from", strconv.FormatInt(early, 10),
		lr.Data[0].ID, lr.Data[4].ID, events[0].ID, events[19].ID)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("tlogcheck: %v\n%s", err, out)
	}
	// The same program fails on an event that is not in the log.
	cmd = exec.Command("go", "run", "./internal/tlogcheck", "-base", c.base, "-token", tok, audit.NewID())
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "FAIL") {
		t.Fatalf("tlogcheck on an unknown event: %v\n%s", err, out)
	}
}

// TestLogVerifyCommand: `auditlog log verify` on serve's data directory
// says ok with the published key, fails (exit 1) with another key, and is
// a usage error (exit 2) without one.
func TestLogVerifyCommand(t *testing.T) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) { testLogVerifyCommand(t, vars(t)) })
	}
}

func testLogVerifyCommand(t *testing.T, storeVars map[string]string) {
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_SEED": "300", "AUDITLOG_LOG_SEAL_EVERY": "100ms"}
	for k, v := range storeVars {
		vars[k] = v
	}
	m := startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	// Every seeded event sealed: the verifications below run with no
	// grace, where an event not sealed yet is a finding.
	waitSealed(t, c, tok, vars)
	var key struct{ VerifierKey string }
	_, body := c.do("GET", "/api/log-key", "", nil)
	if err := json.Unmarshal(body, &key); err != nil || key.VerifierKey == "" {
		t.Fatalf("log key: %s", body)
	}
	cli := env(storeVars)
	var out, errOut strings.Builder
	if code := run([]string{"log", "verify", "--tenant", demoTenant, "--key", key.VerifierKey}, cli, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "ok: ") {
		t.Fatalf("intact: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	_, priv, _ := ed25519.GenerateKey(nil)
	_, other, _ := seal.NewSigner("auditlog.local", priv)
	if code := run([]string{"log", "verify", "--tenant", demoTenant, "--key", other}, cli, &out, &errOut); code != 1 {
		t.Fatalf("another key: exit %d\n%s", code, out.String())
	}
	if code := run([]string{"log", "verify", "--tenant", demoTenant}, cli, &out, &errOut); code != 2 {
		t.Fatalf("without --key: exit %d", code)
	}
	// A row edited into something that is no event (a number where the
	// e-mail belongs) is a finding at its leaf, exit 1; the verifier goes
	// on with every other event.
	id := malformOneRow(t, storeVars)
	out.Reset()
	errOut.Reset()
	code := run([]string{"log", "verify", "--tenant", demoTenant, "--key", key.VerifierKey, "--grace", "0"}, cli, &out, &errOut)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "malformed #") || !strings.Contains(lines[0], id) {
		t.Fatalf("a malformed row: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// malformOneRow edits, behind the service, one stored event of the demo
// tenant so that its actor's e-mail is a number, and returns its id.
func malformOneRow(t *testing.T, storeVars map[string]string) string {
	t.Helper()
	if storeVars["AUDITLOG_STORE"] != "elasticsearch" {
		// serve is running and writing: wait for its lock as it does.
		db := openStoreFile(t, storeVars)
		defer db.Close()
		var id string
		if err := db.QueryRow(`SELECT auditlog_id_of(id) FROM events WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?) ORDER BY seq LIMIT 1`, demoTenant).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor.email', 5) AS BLOB) WHERE id = auditlog_id_key(?)`, id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	return esEditOneDoc(t, storeVars, func(src map[string]any) { src["actor"].(map[string]any)["email"] = 5 })
}

// esEditOneDoc edits, behind the service, one stored document of the
// demo tenant with edit (its _source), and returns the event's id.
func esEditOneDoc(t *testing.T, storeVars map[string]string, edit func(map[string]any)) string {
	t.Helper()
	es := storeVars["AUDITLOG_ES_URL"]
	q := `{"size":1,"query":{"term":{"tenantId":"` + demoTenant + `"}},"sort":[{"id":"asc"}]}`
	found := esSearchDocs(t, es, storeVars["AUDITLOG_ES_INDEX_PREFIX"], q)
	if len(found) != 1 {
		t.Fatalf("no event of %s in %s", demoTenant, es)
	}
	h := found[0]
	edit(h.Source)
	esRewrite(t, es, h)
	return strings.TrimPrefix(h.ID, demoTenant+":") // a shared stream files it as tenant:id
}

// esDoc is a stored document as the cluster holds it, with what a
// conditional write of it back needs.
type esDoc struct {
	Index  string         `json:"_index"`
	ID     string         `json:"_id"`
	Route  string         `json:"_routing"`
	SeqNo  int64          `json:"_seq_no"`
	Term   int64          `json:"_primary_term"`
	Source map[string]any `json:"_source"`
}

// esSearchDocs runs query (a search body) over the event streams of
// prefix, with each hit's sequence number.
func esSearchDocs(t *testing.T, es, prefix, query string) []esDoc {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal([]byte(query), &body); err != nil {
		t.Fatal(err)
	}
	body["seq_no_primary_term"] = true
	b, _ := json.Marshal(body)
	var found struct {
		Hits struct{ Hits []esDoc } `json:"hits"`
	}
	esDo(t, "POST", es+"/"+prefix+"-events-*/_search", string(b), &found)
	return found.Hits.Hits
}

// esRewrite writes d's source back in place, behind the service: a data
// stream takes no write of an existing document; its backing index does,
// conditional on the document's sequence number, with its routing (a
// plan's shared stream routes by tenant).
func esRewrite(t *testing.T, es string, d esDoc) {
	t.Helper()
	b, _ := json.Marshal(d.Source)
	esDo(t, "PUT", fmt.Sprintf("%s/%s/_doc/%s?refresh=true&if_seq_no=%d&if_primary_term=%d&routing=%s", es, d.Index, d.ID, d.SeqNo, d.Term, d.Route), string(b), nil)
}

// openStoreFile opens the SQLite store of serve's data directory behind
// the service, waiting for its lock as it does.
func openStoreFile(t *testing.T, storeVars map[string]string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(storeVars["AUDITLOG_DATA_DIR"], "audit.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func esDo(t *testing.T, method, url, body string, out any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
}
