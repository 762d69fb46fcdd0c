package api_test

import (
	"context"
	"crypto/ed25519"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/periodicexport"
	"github.com/auditlog/auditlog/sqlite"
)

type holdBackend interface {
	api.Reader
	hold.Log
	audit.TenantDirectory
}

func TestLegalHoldsOnSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testLegalHolds(t, s, func() {})
}

func TestLegalHoldsOnElasticsearch(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	testLegalHolds(t, h.store, func() { h.refresh(t) })
}

// testLegalHolds: only the tenant's hold role places, changes and
// releases a hold; its admin reads; the operator team and another
// tenant's holder are refused (403, or 404 for a hold they cannot see);
// a bad hold names each member; the report counts what the scope holds
// and what a release would let retention delete; a deployment whose
// retention cannot honour holds refuses them (501) rather than ignore
// them. Every answer is checked against the OpenAPI document.
func testLegalHolds(t *testing.T, b holdBackend, visible func()) {
	const tenant, other = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
	now := time.Now()
	g := gen.New(gen.Config{Seed: 551, Tenants: 1, FirstTenantID: tenant, WithIDs: true}, 60)
	tn := &g.Tenants()[0]
	var events []audit.Event
	for i := range 60 {
		events = append(events, g.NextFor(tn, now.Add(-time.Duration(60-i)*24*time.Hour)))
	}
	storetest.Write(t, b, events)
	if err := retention.ChangePlan(context.Background(), b, b, tenant, audit.PlanStarter, audit.PlanEnterprise, now); err != nil {
		t.Fatal(err)
	}
	visible()
	_, key, _ := ed25519.GenerateKey(nil)
	sch := &periodicexport.Scheduler{Key: key, Now: time.Now, TempDir: t.TempDir()}
	serve := func(unhonoured error) *harness {
		v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
		srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Read:   api.ReadDeps{Reader: b, Writer: b, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
			Hold: api.HoldDeps{Service: &hold.Service{Log: b, Grace: 72 * time.Hour, DefaultPlan: audit.PlanStarter}, Plans: b, Unhonoured: unhonoured,
				Export: func(ctx context.Context, out io.Writer, h hold.Hold) error { return sch.ExportHold(ctx, out, h, b, b) }},
		}).Handler())
		t.Cleanup(srv.Close)
		return &harness{srv: srv}
	}
	h := serve(nil)
	mint := func(role, tenant, reason string) string {
		tok, err := api.MintToken(secret, audit.Principal{UserID: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", Email: "c@x.example", Role: role, TenantID: tenant, Reason: reason}, time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	counsel, admin := mint(hold.Role, tenant, ""), mint(audit.RoleAdmin, tenant, "")
	operator, stranger := mint(audit.RoleSuperadmin, tenant, "ticket OPS-7"), mint(hold.Role, other, "")
	send := func(h *harness, method, path, tok, body string) response {
		t.Helper()
		return h.do(t, method, path, tok, []byte(body), "Content-Type", "application/json")
	}
	from, to := now.Add(-50*24*time.Hour).UTC().Format(time.RFC3339), now.Add(-20*24*time.Hour).UTC().Format(time.RFC3339)
	body := `{"matter":"Dispute 7","reason":"counsel's request","scope":{"from":"` + from + `","to":"` + to + `"}}`
	for name, tok := range map[string]string{"an admin": admin, "the operator team": operator} {
		if r := send(h, "POST", "/api/legal-holds", tok, body); r.status != 403 {
			t.Fatalf("%s placed a hold: %d %s", name, r.status, r.body)
		}
	}
	if r := send(h, "POST", "/api/legal-holds", counsel, `{"matter":"m","reason":"r","scope":{"q":"actio:delete","from":"`+to+`","to":"`+from+`"}}`); r.status != 400 ||
		!strings.Contains(string(r.body), `"scope.q"`) || !strings.Contains(string(r.body), `"scope.to"`) {
		t.Fatalf("a bad hold: %d %s", r.status, r.body)
	}
	var placed hold.Report
	r := send(h, "POST", "/api/legal-holds", counsel, body)
	r.json(t, &placed)
	visible()
	// The scope's 30 days (50 to 20 days ago) hold 30 events; under
	// Starter (30 days), a release taking effect 3 days on lets retention
	// delete those older than 27 days then: the 24 from 50 to 27 days ago.
	if r.status != 201 || r.header.Get("Location") != "/api/legal-holds/"+placed.ID || placed.Events != 30 || placed.PastRetentionAt != 24 || placed.ReleaseAt == nil {
		t.Fatalf("placing: %d %s", r.status, r.body)
	}
	for _, step := range []struct{ method, path string }{{"GET", ""}, {"POST", "/release"}, {"PUT", ""}} {
		if r := send(h, step.method, "/api/legal-holds/"+placed.ID+step.path, stranger, body); r.status != 404 {
			t.Fatalf("another tenant's holder: %s %s: %d %s", step.method, step.path, r.status, r.body)
		}
	}
	for name, tok := range map[string]string{"an admin": admin, "the operator team": operator} {
		if r := send(h, "POST", "/api/legal-holds/"+placed.ID+"/release", tok, ""); r.status != 403 {
			t.Fatalf("%s released a hold: %d %s", name, r.status, r.body)
		}
	}
	var list struct{ Data []hold.Report }
	if r := send(h, "GET", "/api/legal-holds", admin, ""); r.status != 200 {
		t.Fatalf("the admin's list: %d %s", r.status, r.body)
	} else if r.json(t, &list); len(list.Data) != 1 || list.Data[0].First == nil || list.Data[0].First.Before(now.Add(-50*24*time.Hour).Truncate(time.Second)) {
		t.Fatalf("the admin's list: %s", r.body)
	}
	var released hold.Report
	r = send(h, "POST", "/api/legal-holds/"+placed.ID+"/release", counsel, "")
	if r.json(t, &released); r.status != 200 || released.State != hold.Releasing || released.ReleaseAt == nil || !released.ReleaseAt.Equal(released.Release.EffectiveAt.Time) {
		t.Fatalf("the release: %d %s", r.status, r.body)
	}
	visible()
	if r := send(h, "POST", "/api/legal-holds/"+placed.ID+"/release", counsel, ""); r.status != 409 {
		t.Fatalf("a second release: %d %s", r.status, r.body)
	}
	if r := send(h, "GET", "/api/legal-holds/"+placed.ID+"/export", admin, ""); r.status != 200 || r.header.Get("Content-Type") != "application/x-tar" ||
		!strings.Contains(string(r.body), "legal-hold-"+placed.ID+"/"+tenant+"/digest/") {
		t.Fatalf("the hold's export: %d %.300s", r.status, r.body)
	}
	if r := send(h, "GET", "/api/legal-holds/"+placed.ID+"/export", stranger, ""); r.status != 404 {
		t.Fatalf("another tenant's holder exported the hold: %d %s", r.status, r.body)
	}
	if r := send(h, "GET", "/api/legal-holds/report.csv", counsel, ""); r.status != 200 || !strings.Contains(string(r.body), ",releasing,") {
		t.Fatalf("the CSV report: %d %s", r.status, r.body)
	}
	// A second hold over part of the range: the releasing hold's report
	// names it as one that may keep some of what the release frees.
	var second hold.Report
	r = send(h, "POST", "/api/legal-holds", counsel, `{"matter":"Audit 3","reason":"r","scope":{"from":"`+now.Add(-30*24*time.Hour).UTC().Format(time.RFC3339)+`"}}`)
	if r.json(t, &second); r.status != 201 {
		t.Fatalf("a second hold: %d %s", r.status, r.body)
	}
	visible()
	var first hold.Report
	r = send(h, "GET", "/api/legal-holds/"+placed.ID, counsel, "")
	if r.json(t, &first); len(first.Overlapping) != 1 || first.Overlapping[0] != second.ID {
		t.Fatalf("the releasing hold's overlaps: %s", r.body)
	}
	// The first one's release takes effect before the second's would:
	// then it keeps nothing.
	r = send(h, "GET", "/api/legal-holds/"+second.ID, counsel, "")
	if r.json(t, &second); len(second.Overlapping) != 0 {
		t.Fatalf("the second hold's overlaps: %s", r.body)
	}
	refusing := serve(&audit.Error{Code: audit.ENOTSUPPORTED, Message: "no holds here"})
	if r := send(refusing, "POST", "/api/legal-holds", counsel, body); r.status != 501 {
		t.Fatalf("a deployment that cannot honour holds: %d %s", r.status, r.body)
	}
}
