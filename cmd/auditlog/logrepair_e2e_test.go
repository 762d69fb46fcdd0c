package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// TestLogVerifyRepairsIndexData: index data edited behind the service
// (SQLite: a filter column, the text index row, a rollup; Elasticsearch:
// a document's words, text) is named misindexed; `log verify --repair`
// rewrites it from the sealed events and verifies again (ok, exit 0), and
// a later verification says ok. An event whose body was edited is not
// "repaired": it stays altered, exit 1.
func TestLogVerifyRepairsIndexData(t *testing.T) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) { repairIndexData(t, vars(t)) })
	}
}

func repairIndexData(t *testing.T, storeVars map[string]string) {
	vars := with(with(map[string]string{}, storeVars), map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_SEED": "200", "AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_PERIODIC_EXPORT": "false"})
	m := startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	waitCheckpoint(t, c, tok, func(size, total int64) bool { return size == total && total > 0 })
	var key struct{ VerifierKey string }
	if _, body := c.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil {
		t.Fatalf("log key: %s", body)
	}
	m.Close()
	verify := func(wantExit int, extra ...string) string {
		t.Helper()
		var out, errOut strings.Builder
		code := run(append([]string{"log", "verify", "--tenant", demoTenant, "--key", key.VerifierKey, "--grace", "0"}, extra...), env(vars), &out, &errOut)
		if code != wantExit {
			t.Fatalf("log verify %v: exit %d, want %d\n%s%s", extra, code, wantExit, out.String(), errOut.String())
		}
		return out.String()
	}
	if storeVars["AUDITLOG_STORE"] == "elasticsearch" {
		esEditOneDoc(t, storeVars, func(src map[string]any) { src["text"] = []string{"planted"} })
	} else {
		db := openStoreFile(t, storeVars)
		var id string
		var seq int64
		db.QueryRow(`SELECT auditlog_id_of(id), seq FROM events WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?) ORDER BY seq LIMIT 1 OFFSET 7`, demoTenant).Scan(&id, &seq)
		for _, q := range []string{
			`UPDATE events SET action = 'access' WHERE id = auditlog_id_key('` + id + `')`,
			fmt.Sprintf(`DELETE FROM events_fts WHERE rowid = %d`, seq),
			`UPDATE event_rollup SET n = n + 3 WHERE tenant_id = '` + demoTenant + `' AND hour = (SELECT min(hour) FROM event_rollup WHERE tenant_id = '` + demoTenant + `')`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		db.Close()
	}
	if out := verify(1); !strings.Contains(out, "misindexed") {
		t.Fatalf("the edits are not named:\n%s", out)
	}
	if out := verify(0, "--repair"); !strings.Contains(out, "repaired the index data of") || !strings.Contains(out, "\nok: ") {
		t.Fatalf("--repair:\n%s", out)
	}
	verify(0)
	// An edited body is evidence, not an index to repair.
	if storeVars["AUDITLOG_STORE"] == "elasticsearch" {
		esEditOneDoc(t, storeVars, func(src map[string]any) { src["reason"] = "edited" })
	} else {
		db := openStoreFile(t, storeVars)
		if _, err := db.Exec(`UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.reason', 'edited') AS BLOB) WHERE seq = (SELECT min(seq) FROM events WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?))`, demoTenant); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	if out := verify(1, "--repair"); !strings.HasPrefix(out, "altered ") {
		t.Fatalf("an edited body under --repair:\n%s", out)
	}
	var out, errOut strings.Builder
	if code := run([]string{"log", "verify", "--tenant", demoTenant, "--key", key.VerifierKey, "--repair", "--dir", t.TempDir()}, env(vars), &out, &errOut); code != 2 {
		t.Fatalf("--repair with --dir: exit %d", code)
	}
}
