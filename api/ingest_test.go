package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/mask"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/retention"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/sqlite"
)

const ingestToken = "svc-token"

// ingestServer is the API with ingest and read on a store.
func ingestServer(t *testing.T, w audit.EventWriter, r api.Reader, reg *prometheus.Registry) *httptest.Server {
	t.Helper()
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: reg,
		Read:   api.ReadDeps{Reader: r, Writer: w, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
		Ingest: api.IngestDeps{Writer: w, StaticToken: ingestToken, Verifier: v, Retention: gateOf(w)},
	}).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, tok, ct string, body []byte) (int, []byte) {
	t.Helper()
	req := testenv.Request(t, http.MethodPost, url+"/api/audit-events", tok, body, "Content-Type", ct)
	res, b := testenv.Send(t, req)
	checkOpenAPI(t, req, response{status: res.StatusCode, header: res.Header, body: b})
	return res.StatusCode, b
}

// testIngest runs the ingest cases against one store.
func testIngest(t *testing.T, w audit.EventWriter, r api.Reader, visible func()) {
	reg := prometheus.NewRegistry()
	srv := ingestServer(t, w, r, reg)
	g := gen.New(gen.Config{Seed: 31, Tenants: 1}, 100) // no ids: derived from the canonical event
	var lines [][]byte
	for i := 0; i < 10; i++ {
		b, _ := json.Marshal(g.Next())
		lines = append(lines, b)
	}
	lines[3] = []byte(`{"tenantId":"acme","action":"publish"}`)
	lines[7] = []byte(`not json`)
	// What the strict decode refuses, each named: a duplicate key, a key
	// matching a field only up to case, invalid UTF-8.
	refused := []struct{ line, field, msg string }{
		{strings.Replace(string(lines[1]), `"action":`, `"action":"delete","action":`, 1), "action", "more than once"},
		{strings.Replace(string(lines[1]), `"tenantId"`, `"TenantId"`, 1), "TenantId", "not a known field"},
		{strings.Replace(string(lines[1]), `"email":"`, "\"email\":\"\xfe", 1), "actor.email", "UTF-8"},
		// The service's own records (a plan change would steer retention).
		{withResourceType(t, lines[1], audit.ResourceTenantPlan), "resource.type", "the service writes"},
	}
	for _, r := range refused {
		// Alone in its request, a refused event is a 400 whose details
		// hold the per-event answer (noneAccepted).
		code, body := post(t, srv.URL, ingestToken, "application/x-ndjson", []byte(r.line))
		var problem struct{ Details api.IngestResponse }
		if err := json.Unmarshal(body, &problem); err != nil || code != 400 || problem.Details.Rejected != 1 || problem.Details.Accepted != 0 {
			t.Fatalf("%s: %d %s", r.line, code, body)
		}
		res := problem.Details
		named := false
		for _, fe := range res.Items[0].Errors {
			named = named || fe.Field == r.field && strings.Contains(fe.Message, r.msg)
		}
		if !named {
			t.Fatalf("%q %q not among %+v", r.field, r.msg, res.Items[0].Errors)
		}
	}
	ndjson := bytes.Join(lines, []byte("\n"))

	code, body := post(t, srv.URL, ingestToken, "application/x-ndjson", ndjson)
	var res api.IngestResponse
	if err := json.Unmarshal(body, &res); err != nil || code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if res.Accepted != 8 || res.Rejected != 2 || res.Duplicates != 0 || len(res.Items) != 10 {
		t.Fatalf("mixed batch: %+v", res)
	}
	if it := res.Items[3]; it.Status != "rejected" || len(it.Errors) < 2 {
		t.Fatalf("item 3: %+v", it)
	}
	if it := res.Items[0]; it.Status != "accepted" || !audit.ValidID(it.ID) {
		t.Fatalf("item 0: %+v", it)
	}
	// The same batch again, as a JSON array: nothing new.
	arr := append(append([]byte("["), bytes.Join(lines, []byte(","))...), ']')
	arr = bytes.Replace(arr, []byte("not json"), []byte(`"not an event"`), 1)
	if code, body := post(t, srv.URL, "", "application/json", arr); code != 401 {
		t.Fatalf("no token: %d %s", code, body)
	}
	code, body = post(t, srv.URL, token(t, tenantX, audit.RoleAdmin, ""), "application/json", arr)
	if code != 403 {
		t.Fatalf("a tenant admin may not write events: %d %s", code, body)
	}
	ingestJWT, _ := api.MintToken(secret, audit.Principal{Role: audit.RoleIngest}, time.Hour, time.Now())
	code, body = post(t, srv.URL, ingestJWT, "application/json", arr)
	if err := json.Unmarshal(body, &res); err != nil || code != 200 || res.Duplicates != 8 || res.Accepted != 0 || res.Rejected != 2 {
		t.Fatalf("retried batch: %d %s", code, body)
	}
	if code, _ := post(t, srv.URL, "wrong", "application/json", arr); code != 401 {
		t.Fatalf("bad token: %d", code)
	}
	// Too many events, too many bytes: 413, nothing stored.
	many := "[" + strings.TrimSuffix(strings.Repeat(string(lines[0])+",", api.MaxIngestEvents+1), ",") + "]"
	if code, _ := post(t, srv.URL, ingestToken, "application/json", []byte(many)); code != 413 {
		t.Fatalf("%d events: %d", api.MaxIngestEvents+1, code)
	}
	huge := bytes.Repeat([]byte(" "), api.MaxIngestBytes+1)
	if code, _ := post(t, srv.URL, ingestToken, "application/json", huge); code != 413 {
		t.Fatalf("%d bytes: %d", len(huge), code)
	}
	visible()
	var ev audit.Event
	_ = json.Unmarshal(lines[0], &ev)
	st, err := r.SearchEvents(context.Background(), audit.Query{Filter: audit.Filter{TenantID: ev.TenantID}, Sort: audit.DefaultSort, PageSize: 100, Page: 1})
	if err != nil || st.Total.Value != 8 {
		t.Fatalf("%d events stored, want 8 (%v)", st.Total.Value, err)
	}
	testIngestIDsPerTenant(t, srv.URL, r, reg, visible)
	testIngestSensitive(t, srv.URL, r, visible)
	testIngestRetention(t, srv.URL, w.(audit.TenantDirectory), r, visible)
}

// gateOf is the retention gate of a store that keeps the tenant
// directory (both stores do), as serve wires it.
func gateOf(w audit.EventWriter) *retention.Gate {
	dir, ok := w.(audit.TenantDirectory)
	if !ok {
		return nil
	}
	return &retention.Gate{Directory: dir, Default: audit.PlanEnterprise}
}

// testIngestSensitive: an update of a sensitive type without its state is
// rejected per item with the reason; a client secret three levels deep is
// stored masked, its change still visible; a diff that disagrees with
// before/after is rejected.
func testIngestSensitive(t *testing.T, url string, r api.Reader, visible func()) {
	const tenant = "0d1e2f3a-4b5c-4d6e-8f7a-8b9c0d1e2f3a"
	ev := func(id, typ, rest string) string {
		return `{"id":"evt_audit_` + id + `","timestamp":"2026-11-20T10:00:00.000Z","tenantId":"` + tenant + `",` +
			`"actor":{"id":"2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","email":"a@x.example","role":"admin"},` +
			`"action":"update","resource":{"type":"` + typ + `","id":"9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"}` + rest + `}`
	}
	nested := func(v string) string {
		return `{"name":"main","integration":{"crm":{"auth":{"clientSecret":"` + v + `"}}}}`
	}
	body := strings.Join([]string{
		ev("0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a01", "user_role", `,"diff":{"role":{"from":"agent","to":"admin"}}`),
		ev("0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a02", "ivr", `,"before":`+nested("http-secret-old")+`,"after":`+nested("http-secret-new")),
		ev("0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a03", "recording_policy", `,"before":{"d":30},"after":{"d":90},"diff":{"d":{"from":30,"to":31}}`),
	}, "\n\n") // a blank line between events: each item names its line (issue 57)
	code, out := post(t, url, ingestToken, "application/x-ndjson", []byte("\n"+body))
	var res api.IngestResponse
	if err := json.Unmarshal(out, &res); err != nil || code != 200 || len(res.Items) != 3 {
		t.Fatalf("%d %s", code, out)
	}
	for i, line := range []int{2, 4, 6} {
		if res.Items[i].Index != i || res.Items[i].Line != line {
			t.Fatalf("item %d: index %d line %d, want line %d", i, res.Items[i].Index, res.Items[i].Line, line)
		}
	}
	if it := res.Items[0]; it.Status != "rejected" || len(it.Errors) != 2 || it.Errors[0].Field != "before" || !strings.Contains(it.Errors[0].Message, "user_role must carry the complete state") {
		t.Fatalf("user_role update without its state: %+v", it)
	}
	if it := res.Items[1]; it.Status != "accepted" {
		t.Fatalf("IVR update with a secret: %+v", it)
	}
	if it := res.Items[2]; it.Status != "rejected" || it.Errors[0].Field != "diff" {
		t.Fatalf("disagreeing diff: %+v", it)
	}
	visible()
	st, err := r.SearchEvents(context.Background(), audit.Query{Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, PageSize: 10, Page: 1})
	if err != nil || len(st.Events) != 1 {
		t.Fatalf("stored %d events (%v), want 1", len(st.Events), err)
	}
	whole, _ := json.Marshal(st.Events[0])
	if strings.Contains(string(whole), "http-secret") {
		t.Fatalf("a secret is stored in clear: %s", whole)
	}
	c, ok := st.Events[0].Diff["integration.crm.auth.clientSecret"]
	if !ok || len(st.Events[0].Diff) != 1 || !mask.Masked(c.From) || !mask.Masked(c.To) || bytes.Equal(c.From, c.To) {
		t.Fatalf("the diff must show the secret as changed, masked, and nothing else: %s", whole)
	}
}

// testIngestIDsPerTenant: one id in two tenants stores both events and
// the second answer says accepted (revealing nothing of the first
// tenant); the same id with other content in the same tenant is answered
// conflict (not duplicate), counted in /metrics, and the stored event is
// the first one.
func testIngestIDsPerTenant(t *testing.T, url string, r api.Reader, reg *prometheus.Registry, visible func()) {
	const tenantP, tenantQ = "11111111-2222-4333-8444-555555555555", "66666666-7777-4888-8999-aaaaaaaaaaaa"
	id := "evt_audit_7c9e6679-7425-40de-944b-e07fc1f90ae7" // a producer's UUIDv4
	ev := func(tenant, ip string) []byte {
		return []byte(`{"id":"` + id + `","timestamp":"2026-11-20T10:00:00.000Z","tenantId":"` + tenant + `",` +
			`"actor":{"id":"2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","email":"a@x.example","role":"admin","ip":"` + ip + `"},` +
			`"action":"delete","resource":{"type":"queue","id":"9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"}}`)
	}
	answer := func(body []byte) api.IngestResponse {
		t.Helper()
		code, out := post(t, url, ingestToken, "application/x-ndjson", body)
		var res api.IngestResponse
		if err := json.Unmarshal(out, &res); err != nil || code != 200 {
			t.Fatalf("%d %s", code, out)
		}
		return res
	}
	if res := answer(ev(tenantP, "203.0.113.1")); res.Accepted != 1 {
		t.Fatalf("tenant P: %+v", res)
	}
	if res := answer(ev(tenantQ, "203.0.113.2")); res.Accepted != 1 || res.Items[0].Status != "accepted" {
		t.Fatalf("tenant Q with P's id must be accepted: %+v", res)
	}
	res := answer(bytes.Join([][]byte{ev(tenantP, "203.0.113.1"), ev(tenantP, "198.51.100.66")}, []byte("\n")))
	if res.Duplicates != 1 || res.Conflicts != 1 || res.Items[0].Status != "duplicate" || res.Items[1].Status != "conflict" ||
		len(res.Items[1].Errors) != 1 || res.Items[1].Errors[0].Field != "id" {
		t.Fatalf("a duplicate then a conflict: %+v", res)
	}
	if n := testenv.Metric(t, reg, "auditlog_ingest_events_conflict_total"); n != 1 {
		t.Fatalf("conflict counter %v, want 1", n)
	}
	visible()
	for tenant, ip := range map[string]string{tenantP: "203.0.113.1", tenantQ: "203.0.113.2"} {
		got, err := r.GetEvent(context.Background(), tenant, id)
		if err != nil || got.Actor.IP != ip || got.TenantID != tenant {
			t.Fatalf("tenant %s: %+v %v, want its own first event", tenant, got, err)
		}
	}
}

func TestIngestOnSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testIngest(t, s, s, func() {})
}

func TestIngestOnElasticsearch(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	testIngest(t, h.store, h.store, func() { h.refresh(t) })
}

// withResourceType is line with its resource.type set to typ.
func withResourceType(t *testing.T, line []byte, typ string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	m["resource"].(map[string]any)["type"] = typ
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
