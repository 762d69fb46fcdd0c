package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/sqlite"
)

const ingestToken = "svc-token"

// ingestServer is the API with ingest and read on a store.
func ingestServer(t *testing.T, w audit.EventWriter, r audit.EventReader) *httptest.Server {
	t.Helper()
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:   api.ReadDeps{Reader: r, Writer: w, Verifier: v, Cursors: audit.NewCursorCodec([]byte("k"))},
		Ingest: api.IngestDeps{Writer: w, StaticToken: ingestToken, Verifier: v},
	}).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, tok, ct string, body []byte) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/api/audit-events", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	checkOpenAPI(t, req, response{status: res.StatusCode, header: res.Header, body: b})
	return res.StatusCode, b
}

// testIngest runs the ingest cases against one store.
func testIngest(t *testing.T, w audit.EventWriter, r audit.EventReader, visible func()) {
	srv := ingestServer(t, w, r)
	g := gen.New(gen.Config{Seed: 31, Tenants: 1}, 100) // no ids: derived from the canonical event
	var lines [][]byte
	for i := 0; i < 10; i++ {
		b, _ := json.Marshal(g.Next())
		lines = append(lines, b)
	}
	lines[3] = []byte(`{"tenantId":"acme","action":"publish"}`)
	lines[7] = []byte(`not json`)
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
	if err != nil || st.Total != 8 {
		t.Fatalf("%d events stored, want 8 (%v)", st.Total, err)
	}
}

func TestIngestOnSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "a.db")})
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
