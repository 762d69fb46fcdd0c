package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/auditlog/auditlog/api"
)

// openapiRouter is the served document, loaded and validated by
// kin-openapi once: every test request and answer goes through it.
var openapiRouter = func() routers.Router {
	// The document gives an NDJSON body as one string, as text/plain is.
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.RegisteredBodyDecoder("text/plain"))
	// The periodic export's objects are given as strings of bytes.
	openapi3filter.RegisterBodyDecoder("application/gzip", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/x-pem-file", openapi3filter.RegisteredBodyDecoder("text/plain"))
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		panic(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		panic("the OpenAPI document is invalid: " + err.Error())
	}
	doc.Servers = nil // tests listen on a free port, not a documented server
	r, err := legacy.NewRouter(doc)
	if err != nil {
		panic(err)
	}
	return r
}()

// checkOpenAPI holds the server and the document to each other, with
// kin-openapi's openapi3filter:
//   - the operation must be documented;
//   - a request the document refuses must be refused (4xx), so the
//     document never promises less than the server enforces the other
//     way round is not checkable: some rules (from ≤ to, a cursor bound
//     to its filter) are beyond what a schema can say;
//   - the answer's status, content type, headers and body must match.
func checkOpenAPI(t *testing.T, req *http.Request, r response) {
	t.Helper()
	if err := openapiMismatch(req, r); err != nil {
		t.Fatal(err)
	}
}

// openapiMismatch is checkOpenAPI's verdict, nil when the exchange
// agrees with the document.
func openapiMismatch(req *http.Request, r response) error {
	route, params, err := openapiRouter.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s is not in the OpenAPI document: %w", req.Method, req.URL.Path, err)
	}
	if req.GetBody != nil {
		req.Body, _ = req.GetBody() // the client consumed the first reader
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	if reqErr != nil && r.status < 400 {
		return fmt.Errorf("%s %s answered %d to a request the OpenAPI document refuses: %w", req.Method, route.Path, r.status, reqErr)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 r.status,
		Header:                 r.header,
		Body:                   io.NopCloser(bytes.NewReader(r.body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return fmt.Errorf("%s %s %d does not match the OpenAPI document: %w\n%.2000s", req.Method, route.Path, r.status, err, r.body)
	}
	return nil
}

// TestOpenAPICheckCatchesDrift: the checker every API test relies on
// does fail, for each kind of drift it claims to catch.
func TestOpenAPICheckCatchesDrift(t *testing.T) {
	jsonH := http.Header{"Content-Type": {"application/json"}}
	problemH := http.Header{"Content-Type": {api.ProblemContentType}}
	get := func(target string) *http.Request { return httptest.NewRequest(http.MethodGet, target, nil) }
	goodStatus := []byte(`{"status":"ok"}`)
	cases := []struct {
		name string
		req  *http.Request
		res  response
		ok   bool
	}{
		{"a documented answer passes", get("/healthz"), response{status: 200, header: jsonH, body: goodStatus}, true},
		{"a refused request refused passes", get("/api/audit-logs?pageSize=0"), response{status: 400, header: problemH, body: []byte(`{"type":"about:blank","title":"Bad Request","status":400,"code":"invalid","errors":[{"field":"pageSize","message":"x"}]}`)}, true},
		{"undocumented path", get("/api/nowhere"), response{status: 200, header: jsonH, body: goodStatus}, false},
		{"undocumented status", get("/healthz"), response{status: 418, header: jsonH, body: goodStatus}, false},
		{"undocumented content type", get("/healthz"), response{status: 200, header: http.Header{"Content-Type": {"text/html"}}, body: goodStatus}, false},
		{"a required field missing", get("/api/audit-logs"), response{status: 200, header: jsonH, body: []byte(`{"data":[]}`)}, false},
		{"a refused request accepted", get("/api/audit-logs?pageSize=0"), response{status: 200, header: jsonH, body: []byte(`{"data":[],"nextCursor":null,"hasMore":false,"total":{"value":0,"relation":"eq"},"pageSize":0}`)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := openapiMismatch(c.req, c.res)
			if (err == nil) != c.ok {
				t.Fatalf("want ok=%v, got %v", c.ok, err)
			}
		})
	}
}
