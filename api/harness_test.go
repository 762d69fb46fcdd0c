package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/internal/testenv"
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
	store, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{})
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
		export.Deps{Scanner: store, Jobs: store, Files: export.LocalFiles{Dir: t.TempDir()}})
	srv := api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read: api.ReadDeps{Reader: store, Writer: store, Verifier: v, Cursors: audit.NewCursorCodec([]byte("cursor-key")),
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
		ItemsRetried: func(n int, reason string) { t.Logf("loading: %d events to retry: %s", n, reason) },
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
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, _ := http.NewRequest(method, h.srv.URL+path, rd)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, body: b}
	checkOpenAPI(t, req, r)
	return r
}

var openapiCompiler = func() *jsonschema.Compiler {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(api.OpenAPI))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("openapi.json", doc); err != nil {
		panic(err)
	}
	return c
}()

// checkOpenAPI validates a real answer against the operation's response
// schema: the status must be documented, and the body must match.
func checkOpenAPI(t *testing.T, req *http.Request, r response) {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	tmpl := pathTemplate(req.URL.Path, doc.Paths)
	op, ok := doc.Paths[tmpl][strings.ToLower(req.Method)]
	if !ok {
		t.Fatalf("%s %s is not in the OpenAPI document", req.Method, req.URL.Path)
	}
	status := http.StatusText(r.status)
	resp, ok := op.Responses[itoa(r.status)]
	if !ok {
		t.Fatalf("%s %s answered %d (%s), which the OpenAPI document does not list", req.Method, tmpl, r.status, status)
	}
	ct := strings.TrimSpace(strings.Split(r.header.Get("Content-Type"), ";")[0])
	if _, ok := resp.Content[ct]; !ok {
		t.Fatalf("%s %s %d answered %s, not documented", req.Method, tmpl, r.status, ct)
	}
	if ct != "application/json" && ct != api.ProblemContentType {
		return // a CSV file or a redirect: the content type is what is checked
	}
	ptr := "openapi.json#/paths/" + escape(tmpl) + "/" + strings.ToLower(req.Method) + "/responses/" + itoa(r.status) + "/content/" + escape(ct) + "/schema"
	sch, err := openapiCompiler.Compile(ptr)
	if err != nil {
		t.Fatalf("compiling %s: %v", ptr, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("%s %s %d: body is not JSON: %s", req.Method, tmpl, r.status, r.body)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s %s %d does not match the OpenAPI document: %v\n%s", req.Method, tmpl, r.status, err, r.body)
	}
}

// pathTemplate finds the documented path of a request path: itself, or
// the template whose {param} segments match, the fewest params first.
func pathTemplate[V any](path string, paths map[string]V) string {
	if _, ok := paths[path]; ok {
		return path
	}
	best, bestParams := path, 1<<30
	segs := strings.Split(path, "/")
	for tmpl := range paths {
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		params, ok := 0, true
		for i := range ts {
			if strings.HasPrefix(ts[i], "{") {
				params++
			} else if ts[i] != segs[i] {
				ok = false
				break
			}
		}
		if ok && params < bestParams {
			best, bestParams = tmpl, params
		}
	}
	return best
}

func escape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func qs(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}
