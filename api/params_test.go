package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/sqlite"
)

// embeddedServer is the whole API (read, stats, export, ingest) on the
// embedded store.
func embeddedServer(t *testing.T) *httptest.Server {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	exports := export.New(export.Config{Poll: 50 * time.Millisecond, TempDir: t.TempDir()},
		export.Deps{Scanner: s, Jobs: s, Files: localfs.Dir{Root: t.TempDir()}})
	srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:   api.ReadDeps{Reader: s, Writer: s, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
		Ingest: api.IngestDeps{Writer: s, StaticToken: ingestToken, Verifier: v},
		Export: api.ExportDeps{Service: exports},
	}).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func send(t *testing.T, method, u, tok string) response {
	t.Helper()
	req, _ := http.NewRequest(method, u, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// TestBadParametersAre400OnEveryEndpoint: a control character, invalid
// UTF-8, a malformed escape or an empty value in any parameter of any
// endpoint is a 400 naming the parameter, never a 503 or a silent
// "absent".
func TestBadParametersAre400OnEveryEndpoint(t *testing.T) {
	srv := embeddedServer(t)
	tok := token(t, tenantX, audit.RoleAdmin, "")
	endpoints := []struct{ method, path string }{
		{"GET", "/api/audit-logs"}, {"GET", "/api/audit-logs/stats"}, {"GET", "/api/audit-logs/export.csv"},
		{"POST", "/api/audit-logs/exports"}, {"GET", "/api/audit-logs/exports"},
		{"GET", "/api/audit-logs/evt_audit_7c9e6679-7425-40de-944b-e07fc1f90ae7"},
		{"GET", "/api/audit-logs/exports/7c9e6679-7425-40de-944b-e07fc1f90ae7"},
	}
	cases := []struct{ query, field string }{
		{"q=a%00b", "q"},
		{"q=a%01b", "q"},
		{"actorEmail=a%0Ab@x.example", "actorEmail"},
		{"resourceType=queue%7F", "resourceType"},
		{"q=%FF%FE", "q"},
		{"to=", "to"},
		{"from=&groupBy=action", "from"},
		{"action=delete&action=", "action"},
		{"from=%zz", "query"},
		{"q%00=1", `"q\x00"`},
	}
	for _, ep := range endpoints {
		for _, tc := range cases {
			r := send(t, ep.method, srv.URL+ep.path+"?"+tc.query, tok)
			if r.status != 400 {
				t.Errorf("%s %s?%s: %d %s, want 400", ep.method, ep.path, tc.query, r.status, r.body)
				continue
			}
			p := r.problem(t)
			if len(p.Errors) == 0 || p.Errors[0].Field != tc.field {
				t.Errorf("%s %s?%s: errors %+v, want the field %s", ep.method, ep.path, tc.query, p.Errors, tc.field)
			}
		}
	}
	// An export's JSON body holds the same parameters, under the same rule.
	for _, body := range []string{`{"q":"a\u0000b"}`, `{"to":""}`, `{"actorEmail":"a\nb@x.example"}`, `{"action":["delete",""]}`} {
		req, _ := http.NewRequest("POST", srv.URL+"/api/audit-logs/exports", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 400 {
			t.Errorf("export body %s: %d %s, want 400", body, res.StatusCode, b)
		}
	}
	// Ingest takes no parameters, but the same rule holds there too.
	if r := send(t, "POST", srv.URL+"/api/audit-events?x=%00", ingestToken); r.status != 400 {
		t.Errorf("ingest with a NUL parameter: %d %s", r.status, r.body)
	}
	// Free text that is store syntax is just text: never a server error;
	// at most a 400 naming q (a prefix too short to be bounded).
	for _, q := range []string{`"`, `a"b`, `*`, `-a`, `a:b`, `(a) OR b`, `NEAR(a b)`, `a*b*`, `^a`, `{a}`, `é* ü`, `éa* ü`} {
		r := send(t, "GET", srv.URL+"/api/audit-logs?q="+strings.NewReplacer(`"`, "%22", " ", "+", "(", "%28", ")", "%29", "{", "%7B", "}", "%7D", "^", "%5E").Replace(q), tok)
		switch {
		case r.status == 200:
		case r.status == 400 && r.problem(t).Errors[0].Field == "q":
		default:
			t.Errorf("q=%s: %d %s", q, r.status, r.body)
		}
	}
}

// TestHostilePathIDsOfAnOperator: an operator's read is recorded before
// it is served, with the request's details; a path id with control
// characters or invalid UTF-8 is recorded sanitised and answered 404 (it
// answered 500 when the record failed validation; found by the fuzzer).
func TestHostilePathIDsOfAnOperator(t *testing.T) {
	srv := embeddedServer(t)
	op := token(t, tenantX, audit.RoleSuperadmin, "ticket CS-1")
	for _, id := range []string{"%0B", "%00", "%F4%8C%81%83%0E-%3AV%C2%9A", "x%1Cy", "%FF%FE"} {
		for _, path := range []string{"/api/audit-logs/exports/" + id, "/api/audit-logs/exports/" + id + "/file", "/api/audit-logs/" + id} {
			if r := send(t, "GET", srv.URL+path, op); r.status != 404 {
				t.Errorf("operator GET %s: %d %s, want 404", path, r.status, r.body)
			}
		}
	}
}

// TestUndeclaredMethodsAre405: a path that exists, asked with another
// method, is a 405 problem with the allowed methods, not a 404.
func TestUndeclaredMethodsAre405(t *testing.T) {
	srv := embeddedServer(t)
	tok := token(t, tenantX, audit.RoleAdmin, "")
	for _, tc := range []struct{ method, path, allow string }{
		{"DELETE", "/api/audit-logs", "GET"},
		{"PUT", "/api/audit-logs/stats", "GET"},
		{"PATCH", "/api/audit-logs/exports", "GET, POST"},
		{"GET", "/api/audit-events", "POST"},
		{"POST", "/healthz", "GET"},
	} {
		r := send(t, tc.method, srv.URL+tc.path, tok)
		if r.status != http.StatusMethodNotAllowed || r.problem(t).Status != 405 {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, r.status, r.body)
			continue
		}
		for _, m := range strings.Split(tc.allow, ", ") {
			if !strings.Contains(r.header.Get("Allow"), m) {
				t.Errorf("%s %s: Allow %q lacks %s", tc.method, tc.path, r.header.Get("Allow"), m)
			}
		}
	}
	if r := send(t, "GET", srv.URL+"/api/nothing-here", tok); r.status != 404 {
		t.Errorf("an unknown path: %d", r.status)
	}
}
