package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
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
//     document never promises less than the server enforces;
//   - a request the document accepts may be refused (400) only for a rule
//     beyond what a schema can say (beyondTheSchema: from ≤ to, a cursor
//     bound to its filter, a restore that changes nothing), so every rule
//     of form is in the document;
//   - the answer's status, content type, headers and body must match.
func checkOpenAPI(t *testing.T, req *http.Request, r response) {
	t.Helper()
	if err := openapiMismatch(req, r); err != nil {
		t.Fatal(err)
	}
}

// documentRefuses returns why the document refuses req (nil when it
// accepts it).
func documentRefuses(req *http.Request) error {
	route, params, err := openapiRouter.FindRoute(req)
	if err != nil {
		return err
	}
	if req.GetBody != nil {
		req.Body, _ = req.GetBody()
	}
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	})
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
	// An NDJSON body is lines of events the document describes one by
	// one but a schema validator cannot read as a whole: what the server
	// refuses in it is held to the event schema by the JSON-array cases.
	ndjson := strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-ndjson")
	if reqErr == nil && r.status == 400 && !ndjson {
		if rule := statableRule(r.body); rule != "" {
			return fmt.Errorf("%s %s answered 400 for %s, a rule the OpenAPI document could state but does not: it accepts the request", req.Method, route.Path, rule)
		}
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

// beyondTheSchema are the rules the server enforces that an OpenAPI
// document cannot state: a 400 to a request the document accepts must
// name only these (by field and a part of the message). Every other rule
// is in the document, so a client generated from it sends no request the
// server refuses for its form.
var beyondTheSchema = []struct{ field, message, why string }{
	{"cursor", "", "a cursor is signed and bound to the query that made it"},
	{"page", "", "page × pageSize stays within the first 10,000 results, and page does not combine with cursor"},
	{"groupBy", "give groupBy, interval, or both", "one of two parameters"},
	{"interval", "buckets; the limit is", "the bucket count depends on the range"},
	{"to", "must be after from", "an order between two parameters"},
	{"key", "is not an object of your tenant", "the prefix is the caller's tenant's"},
	{"fields", " is a secret", "a restore depends on the stored states"},
	{"fields", " is not a field of this resource", "a restore depends on the stored states"},
	{"fields", " already has this value", "a restore depends on the stored states"},
	{"fields", "only its secrets differ", "a restore depends on the stored states"},
	{"fields", " cannot be restored", "a restore depends on the stored states"},
	{"version", "carries no", "the event may have no such state"},
	{"version", "the current state already has", "a restore depends on the stored states"},
	{"latestSeen", "is required", "required unless force: a rule across two members"},
	{"", "is not a known parameter", "OpenAPI cannot close a query string to unknown parameters"},
	{"", "is given more than once", "a member given twice is below what a schema sees (kin-openapi's decoder keeps the last)"},
	{"", "is not valid JSON here", "invalid UTF-8 in a string is below what a schema sees"},
	{"range", "only kept with the custom range", "a rule across members"},
	{"name", "saved searches; delete one first", "the count of the stored list"},
	{"query.*", "", "a saved search's query is a query string inside the body, checked as the list's parameters are"},
	{"to", "a tree size from 1 to the log's size", "the log's size is stored data"},
	{"from", "a tree size from 1 to to", "an order between two parameters"},
	{"size", "at most the log's size", "the log's size and the leaf are stored data"},
	{"filter", "", "a stream's filter is a query of the search language, a grammar"},
	{"destination.url", "loopback, private or link-local", "whether a host is private depends on the deployment's rules"},
	{"destination.*", "not used by", "which fields a destination takes depends on its kind"},
	{"destination.*", "is required", "which fields a destination takes depends on its kind"},
	{"destination.secret", "want the application's client secret", "which fields a destination needs depends on its kind"},
	{"destination.token", "want the Datadog API key", "which form of token is taken depends on the destination's kind"},
	{"destination.token", "want the HTTP Event Collector token", "which form of token is taken depends on the destination's kind"},
	{"destination.headers.*", "is written by the service", "the reserved names are compared without case"},
	{"destination.kind", "this deployment has no S3 server", "the deployment's configuration"},
	{"notify*", "want an e-mail address", "an RFC 5322 address is more than a pattern"},
	{"from", "is after what the stream delivered", "the stream's cursor is stored data"},
	{"from", "give from (a leaf index) or since", "one of two members"},
	{"since", "no event at or after it", "the log is stored data"},
	{"scope.to", "must be after scope.from", "an order between two members"},
	{"scope.q", "", "a hold's scope is a query of the search language, a grammar"},
	{"restoredFrom", "is only for the update that applies a restore request", "a rule across members (the action)"},
}

var (
	eventProblem = regexp.MustCompile(`^\[\d+\]\.?(.*)$`)
	lineOf       = regexp.MustCompile(`^line \d+: `)
)

// statableRule returns the first error of a 400 problem that is not
// beyond the schema ("" when all are, or the problem names no field: a
// refusal about stored data, like a read that is no version).
func statableRule(body []byte) string {
	var p struct {
		Errors []struct{ Field, Message string } `json:"errors"`
	}
	if json.Unmarshal(body, &p) != nil {
		return "an answer that is no problem document"
	}
next:
	for _, e := range p.Errors {
		// An ingest request none of whose events was accepted names each
		// event's problems as "[i].field" with "line n: " before the
		// message: each is held to the table as the event's own.
		if m := eventProblem.FindStringSubmatch(e.Field); m != nil {
			e.Field = m[1]
			e.Message = lineOf.ReplaceAllString(e.Message, "")
		}
		for _, b := range beyondTheSchema {
			prefix, ok := strings.CutSuffix(b.field, "*")
			if (b.field == "" || b.field == e.Field || ok && strings.HasPrefix(e.Field, prefix)) && strings.Contains(e.Message, b.message) {
				continue next
			}
		}
		return fmt.Sprintf("%s: %s", e.Field, e.Message)
	}
	return ""
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
		{"an accepted request refused for a rule beyond the schema", get("/api/audit-logs?cursor=abc"), response{status: 400, header: problemH, body: []byte(`{"type":"about:blank","title":"Bad Request","status":400,"code":"invalid","errors":[{"field":"cursor","message":"malformed cursor"}]}`)}, true},
		{"an accepted request refused for a rule the document could state", get("/api/audit-logs?pageSize=10"), response{status: 400, header: problemH, body: []byte(`{"type":"about:blank","title":"Bad Request","status":400,"code":"invalid","errors":[{"field":"pageSize","message":"must be odd"}]}`)}, false},
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
