package main

import (
	"archive/tar"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
)

// TestLegalHoldsOverTheAPI (issue 55) runs the hold API on the real serve
// wiring: only the tenant's hold role places, changes and releases a
// hold (its admin reads, the operator team and another tenant's holder
// are refused), a bad hold is a 400 naming each member, a release waits
// the configured grace and can be undone once, the report answers as
// JSON and CSV, and every step is a record in the tenant's log.
func TestLegalHoldsOverTheAPI(t *testing.T) {
	m := startMain(t, "serve", map[string]string{
		"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_SEED": "400", "AUDITLOG_HOLD_RELEASE_GRACE": "48h",
	})
	c := client{t, "http://" + m.Addr()}
	mint := func(role, tenant, reason string) string {
		tok, err := api.MintToken([]byte("s3cret"), audit.Principal{UserID: "5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d0e", Email: role + "@x.example",
			Role: role, TenantID: tenant, Reason: reason}, time.Hour, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	counsel, admin := mint(hold.Role, demoTenant, ""), mint(audit.RoleAdmin, demoTenant, "")
	operator := mint(audit.RoleSuperadmin, demoTenant, "ticket OPS-1")
	stranger := mint(hold.Role, "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", "")
	body := []byte(`{"matter":"Dispute 2026-114","reason":"litigation hold asked by counsel","reference":"LIT-114","scope":{"q":"action:delete"}}`)

	for name, tok := range map[string]string{"an admin": admin, "the operator team": operator} {
		if code, out := c.do("POST", "/api/legal-holds", tok, body); code != 403 {
			t.Fatalf("%s placed a hold: %d %s", name, code, out)
		}
	}
	code, out := c.do("POST", "/api/legal-holds", counsel, []byte(`{"matter":"","reason":"r","scope":{"q":"action:nope","from":"2026-11-02T00:00:00Z","to":"2026-11-01T00:00:00Z"},"extra":1}`))
	if code != 400 || !bytes.Contains(out, []byte("extra")) {
		t.Fatalf("a hold with an unknown member: %d %s", code, out)
	}
	code, out = c.do("POST", "/api/legal-holds", counsel, []byte(`{"matter":"","reason":"r","scope":{"q":"action:nope","from":"2026-11-02T00:00:00Z","to":"2026-11-01T00:00:00Z"}}`))
	for _, field := range []string{`"matter"`, `"scope.to"`, `"scope.q`} {
		if code != 400 || !bytes.Contains(out, []byte(field)) {
			t.Fatalf("a bad hold: %d %s, want a 400 naming %s", code, out, field)
		}
	}
	var placed hold.Report
	code, out = c.do("POST", "/api/legal-holds", counsel, body)
	if code != 201 || json.Unmarshal(out, &placed) != nil || placed.State != hold.Active || placed.Events == 0 || placed.PlacedBy != "legal_hold@x.example" {
		t.Fatalf("placing a hold: %d %s", code, out)
	}
	if code, out := c.do("GET", "/api/legal-holds/"+placed.ID, stranger, nil); code != 404 {
		t.Fatalf("another tenant's holder read the hold: %d %s", code, out)
	}
	var list struct{ Data []hold.Report }
	if code, out := c.do("GET", "/api/legal-holds", admin, nil); code != 200 || json.Unmarshal(out, &list) != nil || len(list.Data) != 1 || list.Data[0].ID != placed.ID {
		t.Fatalf("the admin's list: %d %s", code, out)
	}
	if code, out := c.do("POST", "/api/legal-holds/"+placed.ID+"/release", admin, nil); code != 403 {
		t.Fatalf("an admin released a hold: %d %s", code, out)
	}
	var step hold.Report
	before := time.Now()
	code, out = c.do("POST", "/api/legal-holds/"+placed.ID+"/release", counsel, nil)
	if code != 200 || json.Unmarshal(out, &step) != nil || step.State != hold.Releasing || step.Release == nil ||
		step.Release.EffectiveAt.Sub(before) < 47*time.Hour || step.Release.EffectiveAt.Sub(before) > 49*time.Hour {
		t.Fatalf("asking the release: %d %s", code, out)
	}
	if code, out = c.do("DELETE", "/api/legal-holds/"+placed.ID+"/release", counsel, nil); code != 200 || json.Unmarshal(out, &step) != nil || step.State != hold.Active {
		t.Fatalf("undoing the release: %d %s", code, out)
	}
	if code, out := c.do("DELETE", "/api/legal-holds/"+placed.ID+"/release", counsel, nil); code != 409 {
		t.Fatalf("undoing a release not asked: %d %s", code, out)
	}
	changed := []byte(`{"matter":"Dispute 2026-114","reason":"scope widened","scope":{"q":"action:delete OR action:update"}}`)
	if code, out = c.do("PUT", "/api/legal-holds/"+placed.ID, counsel, changed); code != 200 || json.Unmarshal(out, &step) != nil || step.Events <= placed.Events {
		t.Fatalf("widening the scope: %d %s (held %d before)", code, out, placed.Events)
	}
	res, body := request(t, "GET", c.base+"/api/legal-holds/report.csv", admin, nil)
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil || res.StatusCode != 200 || len(rows) != 2 || rows[0][1] != "matter" || rows[1][0] != placed.ID || rows[1][4] != "active" {
		t.Fatalf("the CSV report: %d %q %v", res.StatusCode, rows, err)
	}
	exportHold(t, m, counsel, step)
	var records api.ListResponse
	code, out = c.do("GET", "/api/audit-logs?resourceType="+hold.ResourceType+"&pageSize=10", admin, nil)
	if code != 200 || json.Unmarshal(out, &records) != nil || len(records.Data) != 4 {
		t.Fatalf("the hold's records in the log (place, release, undo, change): %d %s", code, out)
	}
	for _, r := range records.Data {
		if r.Resource.ID != placed.ID || !strings.HasPrefix(r.Reason, "legal hold") {
			t.Fatalf("a hold record: %+v", r)
		}
	}
}

// exportHold downloads the hold's export, unpacks it as counsel would,
// and verifies it with auditlog verify and the service's published keys:
// every event the hold holds, all valid; one byte changed is named.
func exportHold(t *testing.T, m *Main, tok string, h hold.Report) {
	t.Helper()
	res, body := request(t, "GET", "http://"+m.Addr()+"/api/legal-holds/"+h.ID+"/export", tok, nil)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/x-tar" {
		t.Fatalf("the hold's export: %d %s", res.StatusCode, body)
	}
	dir := t.TempDir()
	var data string
	tr := tar.NewReader(bytes.NewReader(body))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(hdr.Name, ".ndjson.gz") {
			data = path
		}
	}
	verify := func() (int, string) {
		var out strings.Builder
		code := run([]string{"verify", "--dir", dir, "--prefix", "legal-hold-" + h.ID, "--tenant", demoTenant, "--api", "http://" + m.Addr()}, envOf(nil), &out, io.Discard)
		return code, out.String()
	}
	if code, out := verify(); code != 0 || !strings.Contains(out, fmt.Sprintf("verified 1 digests, 1 files, %d events", h.Events)) || !strings.Contains(out, "all valid") {
		t.Fatalf("verify of the hold's export exited %d:\n%s", code, out)
	}
	b, _ := os.ReadFile(data)
	b[len(b)/2] ^= 0x01
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := verify(); code != 1 || !strings.Contains(out, "ALTERED") {
		t.Fatalf("verify of an altered export exited %d:\n%s", code, out)
	}
}
