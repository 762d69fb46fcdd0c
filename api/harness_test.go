package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/localfs"
)

var secret = []byte("test-secret")

// harness is the real read API on a real Elasticsearch store under a
// unique prefix.
type harness struct {
	store   *elasticsearch.Store
	srv     *httptest.Server
	exports *export.Service
}

type harnessOpts struct {
	rate  float64
	burst int
	esURL string // default: the test cluster
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	url := o.esURL
	if url == "" {
		url = testenv.ElasticsearchURL(t)
	}
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{url}, IndexPrefix: testenv.Name("auditlog-api"), RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	caps := elasticsearch.Capabilities{}
	if o.esURL == "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if caps, err = c.Detect(ctx); err != nil {
			t.Fatal(err)
		}
	}
	store, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor})
	if err != nil {
		t.Fatal(err)
	}
	if o.esURL == "" {
		if err := store.Bootstrap(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	v, err := api.NewVerifier(api.AuthConfig{Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	exports := export.New(export.Config{Poll: 50 * time.Millisecond, MaxActivePerTenant: 2, TempDir: t.TempDir()},
		export.Deps{Scanner: store, Jobs: store, Files: localfs.Dir{Root: t.TempDir()}})
	srv := api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read: api.ReadDeps{Reader: store, Writer: store, Verifier: v, Cursors: cursor.NewCodec([]byte("cursor-key")),
			Limiter: api.NewRateLimiter(o.rate, o.burst, nil)},
		Export: api.ExportDeps{Service: exports},
	})
	h := &harness{store: store, srv: httptest.NewServer(srv.Handler()), exports: exports}
	t.Cleanup(h.srv.Close)
	return h
}

// load writes events and makes them visible.
func (h *harness) load(t *testing.T, events []audit.Event) {
	t.Helper()
	// Loading is not what these tests test: a store slowed down by the
	// rest of the suite is retried, as the indexer would, for a while.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	retry := audit.Retrier{
		Wait: func(ctx context.Context) bool {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(time.Second):
				return true
			}
		},
		BatchFailed: func(err error, _ int) bool {
			t.Logf("loading: %v; retrying", err)
			return audit.ErrorCode(err) == audit.EUNAVAILABLE
		},
		ItemsRetried: func(n int, last audit.WriteResult) { t.Logf("loading: %d events to retry: %s", n, last.Reason) },
	}
	for i := 0; i < len(events); i += 5000 {
		res, err := audit.WriteSettled(ctx, h.store, events[i:min(i+5000, len(events))], retry)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
				t.Fatalf("load: %+v", r)
			}
		}
	}
	h.refresh(t)
}

func (h *harness) refresh(t *testing.T) {
	t.Helper()
	if err := h.store.Client().DoJSON(context.Background(), http.MethodPost, "/"+h.store.AllStreamsPattern()+"/_refresh?allow_no_indices=true", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func token(t *testing.T, tenant, role, reason string) string {
	t.Helper()
	tok, err := api.MintToken(secret, audit.Principal{UserID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: role + "@x.example", Role: role, TenantID: tenant, Reason: reason}, time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
}

func (r response) problem(t *testing.T) api.Problem {
	t.Helper()
	var p api.Problem
	r.json(t, &p)
	if ct := r.header.Get("Content-Type"); ct != api.ProblemContentType {
		t.Fatalf("error content type %q", ct)
	}
	return p
}

// get calls the API and checks the answer against the OpenAPI document.
func (h *harness) get(t *testing.T, path, tok string, headers ...string) response {
	t.Helper()
	return h.do(t, http.MethodGet, path, tok, nil, headers...)
}

// do sends any request and checks the answer against the OpenAPI
// document. Redirects are not followed.
func (h *harness) do(t *testing.T, method, path, tok string, body []byte, headers ...string) response {
	t.Helper()
	req := testenv.Request(t, method, h.srv.URL+path, tok, body, headers...)
	res, b := testenv.Send(t, req)
	r := response{status: res.StatusCode, header: res.Header, body: b}
	checkOpenAPI(t, req, r)
	return r
}

func qs(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}

// newLoggedStore is a bootstrapped Elasticsearch store under a unique
// prefix whose writes are queued for sealing.
func newLoggedStore(t *testing.T) *elasticsearch.Store {
	t.Helper()
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{testenv.ElasticsearchURL(t)}, IndexPrefix: testenv.Name("auditlog-api-log")})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}
