package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/sqlite"
)

type savedBackend interface {
	api.Reader
	audit.EventWriter
	savedsearch.Store
}

func TestSavedSearchesOnSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testSavedSearches(t, s)
}

func TestSavedSearchesOnElasticsearch(t *testing.T) {
	testSavedSearches(t, newHarness(t, harnessOpts{}).store)
}

// userToken is a token of one user of a tenant.
func userToken(t *testing.T, tenant, user string) string {
	t.Helper()
	tok, err := api.MintToken(secret, audit.Principal{UserID: user, Email: user[:4] + "@x.example", Role: audit.RoleAdmin, TenantID: tenant}, time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// testSavedSearches: a user saves, lists, changes and deletes their own
// searches; names are unique per user; a bad query is a 400 naming each
// parameter; nobody else sees them; parallel saves all land.
func testSavedSearches(t *testing.T, b savedBackend) {
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:   api.ReadDeps{Reader: b, Writer: b, Verifier: v, Cursors: cursor.NewCodec([]byte("k")), Saved: b},
	}).Handler())
	t.Cleanup(srv.Close)
	h := &harness{srv: srv}
	send := func(method, path, tok, body string) response {
		t.Helper()
		return h.do(t, method, path, tok, []byte(body), "Content-Type", "application/json")
	}
	const tenant, other = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
	const grace, omar = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a"
	tok := userToken(t, tenant, grace)
	list := func(tok string) []api.SavedSearchView {
		t.Helper()
		var out struct{ Data []api.SavedSearchView }
		r := h.get(t, "/api/saved-searches", tok)
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.body)
		}
		r.json(t, &out)
		return out.Data
	}
	if l := list(tok); len(l) != 0 {
		t.Fatalf("a new user's list: %+v", l)
	}
	r := send("POST", "/api/saved-searches", tok, `{"name":" Grace's deletes ","query":"?q=actor%3Agrace*+-action%3Aaccess+ip%3A10.0.0.0%2F8&resourceType=queue&sort=action","range":"30d"}`)
	var s1 api.SavedSearchView
	if r.json(t, &s1); r.status != 201 || s1.Name != "Grace's deletes" || s1.Range != "30d" || s1.From != nil || s1.Query != "q=actor%3Agrace*+-action%3Aaccess+ip%3A10.0.0.0%2F8&resourceType=queue&sort=action" ||
		r.header.Get("Location") != "/api/saved-searches/"+s1.ID {
		t.Fatalf("create: %d %s (location %q)", r.status, r.body, r.header.Get("Location"))
	}
	if r := send("POST", "/api/saved-searches", tok, `{"name":"GRACE'S DELETES","range":"7d"}`); r.status != 409 || !hasField(r.problem(t), "name") {
		t.Fatalf("the same name in another case: %d %s", r.status, r.body)
	}
	for _, tc := range []struct {
		body   string
		fields []string
	}{
		{`{"name":"x","query":"q=ip%3A999.1.1.1&bogus=1&from=2026-11-01T00%3A00%3A00Z&action=explode","range":"7d"}`, []string{"query.action", "query.bogus", "query.from", "query.q"}},
		{`{"name":"","range":"1y"}`, []string{"name", "range"}},
		{`{"name":"x","range":"custom","from":"2026-11-02T00:00:00Z","to":"2026-11-01T00:00:00Z"}`, []string{"to"}},
		{`{"name":"x","range":"7d","from":"yesterday"}`, []string{"from"}},
		{`{"name":"x","range":"7d","color":"red"}`, []string{"color"}},
	} {
		r := send("POST", "/api/saved-searches", tok, tc.body)
		if r.status != 400 {
			t.Fatalf("%s: %d %s", tc.body, r.status, r.body)
		}
		var got []string
		for _, f := range r.problem(t).Errors {
			got = append(got, f.Field)
		}
		slices.Sort(got)
		if !slices.Equal(slices.Compact(got), tc.fields) {
			t.Fatalf("%s: fields %v, want %v (%s)", tc.body, got, tc.fields, r.body)
		}
	}
	r = send("PUT", "/api/saved-searches/"+s1.ID, tok, `{"name":"Incident 4821","query":"q=reason%3ACS-4821","range":"custom","from":"2026-11-11T08:00:00Z"}`)
	var s1b api.SavedSearchView
	if r.json(t, &s1b); r.status != 200 || s1b.ID != s1.ID || s1b.Name != "Incident 4821" || s1b.From == nil || s1b.From.String() != "2026-11-11T08:00:00.000Z" || s1b.To != nil || !s1b.CreatedAt.Equal(s1.CreatedAt.Time) {
		t.Fatalf("change: %d %s", r.status, r.body)
	}
	if r := send("PUT", "/api/saved-searches/nope", tok, `{"name":"y","range":"7d"}`); r.status != 404 {
		t.Fatalf("changing a missing one: %d %s", r.status, r.body)
	}
	// Nobody else sees it: another user of the tenant, the same user id in
	// another tenant; neither can change or delete it.
	for _, o := range []string{userToken(t, tenant, omar), userToken(t, other, grace)} {
		if l := list(o); len(l) != 0 {
			t.Fatalf("another user sees %+v", l)
		}
		if r := h.do(t, "DELETE", "/api/saved-searches/"+s1.ID, o, nil); r.status != 404 {
			t.Fatalf("another user deletes: %d %s", r.status, r.body)
		}
	}
	// Parallel saves by one user (two tabs): every one lands.
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = send("POST", "/api/saved-searches", tok, fmt.Sprintf(`{"name":"tab %d","range":"24h"}`, i)).status
		}()
	}
	wg.Wait()
	if l := list(tok); len(l) != 11 || strings.Count(fmt.Sprint(codes), "201") != 10 {
		t.Fatalf("parallel saves: codes %v, %d listed", codes, len(l))
	}
	if r := h.do(t, "DELETE", "/api/saved-searches/"+s1.ID, tok, nil); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := h.do(t, "DELETE", "/api/saved-searches/"+s1.ID, tok, nil); r.status != 404 {
		t.Fatalf("delete twice: %d %s", r.status, r.body)
	}
	if l := list(tok); len(l) != 10 || slices.ContainsFunc(l, func(s api.SavedSearchView) bool { return s.ID == s1.ID }) {
		t.Fatalf("after delete: %+v", l)
	}
}

func hasField(p api.Problem, field string) bool {
	return slices.ContainsFunc(p.Errors, func(f audit.FieldError) bool { return f.Field == field })
}
