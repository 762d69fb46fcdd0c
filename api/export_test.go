package api_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestExportEndpoints walks every answer of the export endpoints, each
// checked against the OpenAPI document.
func TestExportEndpoints(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	const tenant = "8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d"
	g := gen.New(gen.Config{Seed: 3, Tenants: 1, FirstTenantID: tenant, WithIDs: true,
		Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, 300)
	var events []audit.Event
	for i := 0; i < 300; i++ {
		events = append(events, g.Next())
	}
	h.load(t, events)
	tok := token(t, tenant, audit.RoleAdmin, "")
	const to = "to=2026-11-01T00:00:00.000Z"

	r := h.do(t, "POST", "/api/audit-logs/exports?"+to, tok, nil)
	if r.status != 200 || r.header.Get("X-Export-Rows") != "300" {
		t.Fatalf("sync: %d %v", r.status, r.header)
	}
	rows, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
	if err != nil || len(rows) != 301 {
		t.Fatalf("sync CSV: %d rows, %v", len(rows), err)
	}
	if r := h.do(t, "POST", "/api/audit-logs/exports?action=nope&page=2", tok, nil); r.status != 400 || len(r.problem(t).Errors) != 2 {
		t.Fatalf("bad parameters: %d %s", r.status, r.body)
	}
	if r := h.do(t, "POST", "/api/audit-logs/exports?action=delete", tok, []byte(`{"action":"update"}`)); r.status != 400 {
		t.Fatalf("query and body: %d %s", r.status, r.body)
	}
	if r := h.do(t, "POST", "/api/audit-logs/exports", tok, []byte(`{"action":{"x":1}}`)); r.status != 400 || r.problem(t).Errors[0].Field != "action" {
		t.Fatalf("bad body: %d %s", r.status, r.body)
	}
	if r := h.do(t, "GET", "/api/audit-logs/export.csv", "", nil); r.status != 401 {
		t.Fatalf("no token: %d", r.status)
	}
	if r := h.do(t, "GET", "/api/audit-logs/export.csv", token(t, tenant, audit.RoleSuperadmin, ""), nil); r.status != 403 {
		t.Fatalf("operator without reason: %d", r.status)
	}

	// Jobs: two queued (no worker runs yet), the third is over the limit.
	var jobs []api.ExportJobView
	for i := 0; i < 2; i++ {
		r := h.do(t, "GET", "/api/audit-logs/export.csv?async=true&"+to, tok, nil)
		var j api.ExportJobView
		r.json(t, &j)
		if r.status != 202 || j.State != exportjob.Queued || j.RowsExpected != 300 || r.header.Get("Location") != j.StatusURL {
			t.Fatalf("async: %d %s", r.status, r.body)
		}
		jobs = append(jobs, j)
	}
	if r := h.do(t, "POST", "/api/audit-logs/exports?async=true", tok, nil); r.status != 429 {
		t.Fatalf("over the tenant's limit: %d %s", r.status, r.body)
	}
	if r := h.get(t, "/api/audit-logs/exports?limit=10", tok); r.status != 200 {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	// Cancel the second while queued.
	if r := h.do(t, "DELETE", jobs[1].StatusURL, tok, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.exports.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	var v api.ExportJobView
	testenv.Eventually(t, time.Minute, func() error {
		r := h.get(t, jobs[0].StatusURL, tok)
		r.json(t, &v)
		if v.State != exportjob.Done {
			return fmt.Errorf("state %s", v.State)
		}
		return nil
	})
	r = h.get(t, v.FileURL, tok, "Accept-Encoding", "identity")
	if r.status != 200 || !bytes.Equal(r.body, h.do(t, "POST", "/api/audit-logs/exports?"+to, tok, nil).body) {
		t.Fatalf("the job's file differs from the synchronous export: %d", r.status)
	}
	if r := h.get(t, jobs[1].StatusURL+"/file", tok); r.status != 409 {
		t.Fatalf("file of a cancelled job: %d %s", r.status, r.body)
	}
	if r := h.get(t, "/api/audit-logs/exports/"+jobs[0].ID[:8], tok); r.status != 404 {
		t.Fatalf("a malformed id: %d", r.status)
	}
	if r := h.get(t, jobs[0].StatusURL, token(t, "0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b", audit.RoleAdmin, "")); r.status != 404 {
		t.Fatalf("another tenant: %d", r.status)
	}
}

// TestExportStoreDown: with the store unreachable, an export is a 503
// problem, not a broken file.
func TestExportStoreDown(t *testing.T) {
	h := newHarness(t, harnessOpts{esURL: "http://127.0.0.1:1"})
	r := h.do(t, http.MethodPost, "/api/audit-logs/exports", token(t, "8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d", audit.RoleAdmin, ""), nil)
	if r.status != 503 || r.problem(t).Code != audit.EUNAVAILABLE {
		t.Fatalf("store down: %d %s", r.status, r.body)
	}
}
