package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/cursor"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/sqlite"
)

type periodicBackend interface {
	api.Reader
	audit.EventWriter
	periodic.Store
	audit.TenantDirectory
}

func TestPeriodicExportsOnSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testPeriodicExports(t, s, func() {})
}

func TestPeriodicExportsOnElasticsearch(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	testPeriodicExports(t, h.store, func() { h.refresh(t) })
}

// testPeriodicExports: the keys are public; a tenant lists its own
// delivered windows, page by page, and downloads its own objects only,
// each download recorded in its log.
func testPeriodicExports(t *testing.T, b periodicBackend, visible func()) {
	ctx := context.Background()
	const a, other = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
	dir := localfs.Dir{Root: t.TempDir()}
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	keys := []api.ExportKey{{KeyID: "0123456789abcdef", PublicKey: "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n", Current: true}}
	srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:     api.ReadDeps{Reader: b, Writer: b, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
		Periodic: api.PeriodicDeps{Store: b, Tenants: b, DefaultPlan: audit.PlanEnterprise, Keys: keys, Bucket: func(*periodic.State) (blob.Store, string, error) { return dir, "auditlog", nil }},
	}).Handler())
	t.Cleanup(srv.Close)
	h := &harness{srv: srv}
	day := func(d int) audit.Timestamp { return audit.NewTimestamp(time.Date(2026, 10, d, 0, 0, 0, 0, time.UTC)) }
	for _, tenant := range []string{a, other} {
		for d := 1; d <= 5; d++ {
			r := periodic.Record{TenantID: tenant, WindowStart: day(d), WindowEnd: day(d + 1), Count: int64(d), SHA256: "ab",
				DataKey: periodic.DataKey("auditlog", tenant, day(d).Time, day(d+1).Time, 0), DigestKey: periodic.DigestKey("auditlog", tenant, day(d).Time, day(d+1).Time, 0),
				KeyID: "0123456789abcdef", DeliveredAt: day(d + 1)}
			if err := b.PutPeriodicRecord(ctx, r); err != nil {
				t.Fatal(err)
			}
			body := []byte(fmt.Sprintf("file of %s day %d", tenant, d))
			if err := dir.Put(ctx, r.DataKey, bytes.NewReader(body), int64(len(body))); err != nil {
				t.Fatal(err)
			}
		}
	}
	var ks struct{ Keys []api.ExportKey }
	if r := h.get(t, "/api/export-keys", ""); r.status != 200 {
		t.Fatalf("export keys without a token: %d %s", r.status, r.body)
	} else if r.json(t, &ks); len(ks.Keys) != 1 || ks.Keys[0].KeyID != "0123456789abcdef" {
		t.Fatalf("keys %+v", ks)
	}
	admin := token(t, a, audit.RoleAdmin, "")
	var seen []string
	next := ""
	for page := 0; page < 5; page++ {
		path := "/api/audit-logs/periodic-exports?pageSize=2"
		if next != "" {
			path += "&cursor=" + next
		}
		r := h.get(t, path, admin)
		var l api.PeriodicExportList
		r.json(t, &l)
		for _, e := range l.Data {
			if e.TenantID != a {
				t.Fatalf("another tenant's record: %+v", e)
			}
			seen = append(seen, e.WindowStart.Format("02"))
		}
		if l.NextCursor == nil {
			break
		}
		next = *l.NextCursor
	}
	if fmt.Sprint(seen) != "[05 04 03 02 01]" {
		t.Fatalf("windows %v, want newest first, once each", seen)
	}
	for _, bad := range []string{"pageSize=0", "cursor=x", "pageSize=2&color=red"} {
		if r := h.get(t, "/api/audit-logs/periodic-exports?"+bad, admin); r.status != 400 {
			t.Fatalf("%s: %d %s", bad, r.status, r.body)
		}
	}
	mine := periodic.DataKey("auditlog", a, day(3).Time, day(4).Time, 0)
	r := h.get(t, "/api/audit-logs/periodic-exports/file?"+qs("key", mine), admin)
	if r.status != 200 || string(r.body) != "file of "+a+" day 3" {
		t.Fatalf("download: %d %q", r.status, r.body)
	}
	visible()
	res, err := b.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: a, ResourceTypes: []string{audit.ResourceAuditExport}}, Sort: audit.DefaultSort, PageSize: 10, Page: 1})
	if err != nil || len(res.Events) != 1 || res.Events[0].Category != audit.CategorySensitiveAccess || res.Events[0].Actor.Email != "admin@x.example" {
		t.Fatalf("the download's record: %+v %v", res.Events, err)
	}
	theirs := periodic.DataKey("auditlog", other, day(3).Time, day(4).Time, 0)
	for _, key := range []string{theirs, "auditlog/" + a + "/../" + other + "/x", ""} {
		if r := h.get(t, "/api/audit-logs/periodic-exports/file?"+qs("key", key), admin); r.status != 400 {
			t.Fatalf("key %q: %d %s", key, r.status, r.body)
		}
	}
	if r := h.get(t, "/api/audit-logs/periodic-exports/file?"+qs("key", "auditlog/"+a+"/2026/10/09/none.ndjson.gz"), admin); r.status != 404 {
		t.Fatalf("a missing object: %d %s", r.status, r.body)
	}
	testPeriodicSettings(t, h, b, other, visible)
}

// testPeriodicSettings: a tenant admin sees the settings and may not
// change them; the operator team does, recorded with before and after;
// a bad change names its fields.
func testPeriodicSettings(t *testing.T, h *harness, b periodicBackend, tenant string, visible func()) {
	admin := token(t, tenant, audit.RoleAdmin, "")
	op := token(t, tenant, audit.RoleSuperadmin, "Ticket CS-16: hourly exports")
	var v api.PeriodicSettingsView
	h.get(t, "/api/audit-logs/periodic-exports/settings", admin).json(t, &v)
	if v.Enabled != "plan" || v.Interval != "daily" {
		t.Fatalf("initial settings %+v", v)
	}
	body := []byte(`{"enabled":"on","interval":"hourly","prefix":"acme/audit"}`)
	if r := h.do(t, "PUT", "/api/audit-logs/periodic-exports/settings", admin, body, "Content-Type", "application/json"); r.status != 403 {
		t.Fatalf("an admin changed the settings: %d %s", r.status, r.body)
	}
	r := h.do(t, "PUT", "/api/audit-logs/periodic-exports/settings", op, body, "Content-Type", "application/json")
	if r.json(t, &v); r.status != 200 || v.Enabled != "on" || !v.Active || v.Interval != "hourly" || v.Prefix != "acme/audit" {
		t.Fatalf("operator change: %d %s", r.status, r.body)
	}
	if r := h.do(t, "PUT", "/api/audit-logs/periodic-exports/settings", op, []byte(`{"interval":"weekly","bucket":"Bad_Name"}`), "Content-Type", "application/json"); r.status != 400 ||
		!strings.Contains(string(r.body), `"interval"`) || !strings.Contains(string(r.body), `"bucket"`) {
		t.Fatalf("a bad change: %d %s", r.status, r.body)
	}
	visible()
	res, err := b.SearchEvents(context.Background(), audit.Query{Filter: audit.Filter{TenantID: tenant, Actions: []audit.Action{audit.ActionUpdate},
		ResourceTypes: []string{audit.ResourceAuditExport}}, Sort: audit.DefaultSort, PageSize: 10, Page: 1})
	if err != nil || len(res.Events) != 1 || !res.Events[0].CrossTenant || !strings.Contains(string(res.Events[0].Before), `"interval":"daily"`) ||
		!strings.Contains(string(res.Events[0].After), `"interval":"hourly"`) {
		t.Fatalf("the change's record: %+v %v", res.Events, err)
	}
	testParallelSettings(t, h, b, tenant, op, visible)
}

// testParallelSettings: ten operators send the same change at once; all
// are answered, the change is made once and recorded once (each attempt
// wrote its own record before).
func testParallelSettings(t *testing.T, h *harness, b periodicBackend, tenant, op string, visible func()) {
	body := []byte(`{"interval":"daily"}`)
	var wg sync.WaitGroup
	statuses := make([]int, 10)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = h.do(t, "PUT", "/api/audit-logs/periodic-exports/settings", op, body, "Content-Type", "application/json").status
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 200 {
			t.Fatalf("change %d: %d", i, s)
		}
	}
	visible()
	res, err := b.SearchEvents(context.Background(), audit.Query{Filter: audit.Filter{TenantID: tenant, Actions: []audit.Action{audit.ActionUpdate},
		ResourceTypes: []string{audit.ResourceAuditExport}}, Sort: audit.DefaultSort, PageSize: 100, Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	changes := 0
	for _, e := range res.Events {
		if strings.Contains(string(e.Before), `"interval":"hourly"`) && strings.Contains(string(e.After), `"interval":"daily"`) {
			changes++
		}
	}
	if changes != 1 {
		t.Fatalf("the change from hourly to daily is recorded %d times, want once", changes)
	}
}
