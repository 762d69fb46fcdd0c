package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// TestUpgradeFromAnEarlierVersion (issue 57): each directory under
// testdata/upgrade holds what an earlier version left behind
// (scripts/upgrade-fixture.sh builds that version from its revision, runs
// it, and records its data directory and its answers). The current serve,
// started on a copy of that data directory, migrates it at start and
// then: lists the same events, each with every field the earlier version
// showed and the same value; answers the earlier searches with the same
// events; publishes the same log key; its log extends the checkpoint the
// earlier version's own verifier kept (log verify with that state, from
// the store and through the API); and it takes and seals new events.
func TestUpgradeFromAnEarlierVersion(t *testing.T) {
	dirs, err := filepath.Glob("testdata/upgrade/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no earlier version under testdata/upgrade (%v)", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { upgradeFrom(t, dir) })
	}
}

func upgradeFrom(t *testing.T, fixture string) {
	data, state := t.TempDir(), t.TempDir()
	copyFiles(t, filepath.Join(fixture, "data"), data, "*")
	copyFiles(t, filepath.Join(fixture, "verifier-state"), state, "*")
	in := &insider{t: t, store: "sqlite", vars: map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": data,
		"AUDITLOG_JWT_SECRET": "upgrade-fixture", "AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_LOG_SEAL_EVERY": "100ms",
		"AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_LOG_LEVEL": "warn"}}
	in.tok, _ = api.MintToken([]byte("upgrade-fixture"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	in.key = strings.TrimSpace(string(readFile(t, filepath.Join(fixture, "log-key.txt"))))
	in.start()

	sameAnswer(t, in, "/api/audit-logs?pageSize=1000&order=asc", readFile(t, filepath.Join(fixture, "list.json")), true)
	queries, _ := filepath.Glob(filepath.Join(fixture, "query-*.json"))
	if len(queries) == 0 {
		t.Fatal("the fixture has no query")
	}
	for _, f := range queries {
		q, answer, _ := bytes.Cut(readFile(t, f), []byte("\n"))
		sameAnswer(t, in, "/api/audit-logs?pageSize=1000&order=asc&"+strings.ReplaceAll(string(q), " ", "%20"), answer, false)
	}
	var key struct{ VerifierKey string }
	if _, body := in.c.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil || key.VerifierKey != in.key {
		t.Fatalf("log key after the upgrade: %s, want the earlier version's %s", body, in.key)
	}
	if code, out := in.logVerify("--state", state); code != 0 {
		t.Fatalf("log verify from the store with the earlier verifier's state: exit %d\n%s", code, out)
	}
	if code, out := in.logVerify("--state", state, "--api", in.c.base, "--token", in.tok); code != 0 {
		t.Fatalf("log verify through the API with the earlier verifier's state: exit %d\n%s", code, out)
	}
	in.ingest(57, 10)
	if code, out := in.logVerify("--state", state); code != 0 {
		t.Fatalf("log verify after new events: exit %d\n%s", code, out)
	}
}

// sameAnswer checks that GET path answers the events of the earlier
// answer, in its order; with fields, each event also holds every field
// of the earlier one with the same value (later versions may add fields).
func sameAnswer(t *testing.T, in *insider, path string, earlier []byte, fields bool) {
	t.Helper()
	var was, is struct{ Data []map[string]any }
	if err := json.Unmarshal(earlier, &was); err != nil || len(was.Data) == 0 {
		t.Fatalf("the earlier answer to %s: %v (%d events)", path, err, len(was.Data))
	}
	code, body := in.c.do("GET", path, in.tok, nil)
	if code != 200 || json.Unmarshal(body, &is) != nil {
		t.Fatalf("GET %s after the upgrade: %d %s", path, code, body)
	}
	if len(is.Data) != len(was.Data) {
		t.Fatalf("GET %s: %d events after the upgrade, %d before", path, len(is.Data), len(was.Data))
	}
	for i, w := range was.Data {
		if is.Data[i]["id"] != w["id"] {
			t.Fatalf("GET %s: event %d is %v after the upgrade, %v before", path, i, is.Data[i]["id"], w["id"])
		}
		if !fields {
			continue
		}
		for k, v := range w {
			if !reflect.DeepEqual(is.Data[i][k], v) {
				t.Errorf("event %v: %s is %v after the upgrade, %v before", w["id"], k, is.Data[i][k], v)
			}
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
