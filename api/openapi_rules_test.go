package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/cursor"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/sqlite"
)

// TestTheDocumentStatesTheRulesOfForm: values the server refuses for
// their form (a latestSeen that is no event id, a date that does not
// exist, a bucket with a control character…) are refused by the OpenAPI
// document too, so a client built from it never sends them. Each case is
// sent to a real server on the embedded store, which must answer 400
// naming the field, and checked against the document, which must refuse
// it.
func TestTheDocumentStatesTheRulesOfForm(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	dir := localfs.Dir{Root: t.TempDir()}
	srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:    api.ReadDeps{Reader: s, Writer: s, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
		Restore: api.RestoreDeps{Store: s, Tenants: s, DefaultPlan: audit.PlanEnterprise},
		Export:  api.ExportDeps{Service: export.New(export.Config{TempDir: t.TempDir()}, export.Deps{Scanner: s, Jobs: s, Files: localfs.Dir{Root: t.TempDir()}})},
		Periodic: api.PeriodicDeps{Store: s, Tenants: s, DefaultPlan: audit.PlanEnterprise,
			Bucket: func(*periodic.State) (blob.Store, string, error) { return dir, "auditlog", nil }},
	}).Handler())
	defer srv.Close()
	const tenant = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
	admin, op := token(t, tenant, audit.RoleAdmin, ""), token(t, tenant, audit.RoleSuperadmin, "ticket 7")
	restore := "/api/audit-logs/evt_audit_8f9a0b1c-2d3e-4f4a-8b5c-6d7e8f9a0b01/restore"
	json := []string{"Content-Type", "application/json"}
	for _, c := range []struct {
		name, method, path, tok, body, field string
		headers                              []string
	}{
		{"latestSeen 0", "POST", restore, admin, `{"latestSeen":"0"}`, "latestSeen", json},
		{"latestSeen garbage", "POST", restore, admin, `{"latestSeen":"garbage"}`, "latestSeen", json},
		{"a malformed path", "POST", restore, admin, `{"force":true,"fields":["rules["]}`, "fields", json},
		{"a control character in a path", "POST", restore, admin, `{"force":true,"fields":["a\u0001b"]}`, "fields", json},
		{"a control character in the reason", "POST", restore, admin, `{"force":true,"reason":"a\u0007b"}`, "reason", json},
		{"an idempotency key of 256 characters", "POST", restore, admin, `{"force":true}`, api.IdempotencyKeyHeader, append([]string{api.IdempotencyKeyHeader, strings.Repeat("k", 256)}, json...)},
		{"an export from a day that does not exist", "POST", "/api/audit-logs/exports?from=5664-02-30T00:00:00Z", admin, "", "from", nil},
		{"an export from month 13", "GET", "/api/audit-logs/export.csv?from=2026-13-01T00:00:00Z", admin, "", "from", nil},
		{"a list to hour 24", "GET", "/api/audit-logs?to=2026-11-01T24:00:00Z", admin, "", "to", nil},
		{"a list from February 29 of a common year", "GET", "/api/audit-logs?from=2025-02-29T00:00:00Z", admin, "", "from", nil},
		{"a bucket with a control character", "PUT", "/api/audit-logs/periodic-exports/settings", op, `{"bucket":"audit\u0001logs"}`, "bucket", json},
		{"a bucket ending in a dot", "PUT", "/api/audit-logs/periodic-exports/settings", op, `{"bucket":"audit."}`, "bucket", json},
		{"a bucket with two dots", "PUT", "/api/audit-logs/periodic-exports/settings", op, `{"bucket":"audit..logs"}`, "bucket", json},
		{"a prefix with //", "PUT", "/api/audit-logs/periodic-exports/settings", op, `{"prefix":"a//b"}`, "prefix", json},
		{"a prefix with ..", "PUT", "/api/audit-logs/periodic-exports/settings", op, `{"prefix":"a/../b"}`, "prefix", json},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			req := testenv.Request(t, c.method, srv.URL+c.path, c.tok, body, c.headers...)
			if err := documentRefuses(req); err == nil {
				t.Errorf("the document accepts it")
			}
			req = testenv.Request(t, c.method, srv.URL+c.path, c.tok, body, c.headers...)
			res, out := testenv.Send(t, req)
			r := response{status: res.StatusCode, header: res.Header, body: out}
			if p := r.problem(t); r.status != 400 || len(p.Errors) == 0 || p.Errors[0].Field != c.field {
				t.Errorf("the server answered %d %s, want 400 naming %s", r.status, out, c.field)
			}
		})
	}
	// And the same forms, valid, pass both.
	for _, path := range []string{"/api/audit-logs?from=2024-02-29T23:59:59.999Z&to=2026-11-01T23:00:00%2B01:00"} {
		req := testenv.Request(t, "GET", srv.URL+path, admin, nil)
		if err := documentRefuses(req); err != nil {
			t.Errorf("%s: the document refuses a valid request: %v", path, err)
		}
	}
}
