package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/sqlite"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/s3stream"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// streamServer is the API on the embedded store with streams for the
// Enterprise plan (tenants are Starter by default), its destinations
// reached by a client that trusts the test receiver's certificate.
func streamServer(t *testing.T, rules stream.Rules, trust *http.Transport) (*harness, *sqlite.Store) {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	client := webhook.NewClient(true, 5*time.Second)
	if trust != nil {
		client.HTTP.Transport.(*http.Transport).TLSClientConfig = trust.TLSClientConfig.Clone()
	}
	streamer := &streaming.Streamer{Streams: s, Log: s, Events: s, BatchSize: 100, Now: time.Now, MaskKey: accepttest.MaskKey,
		Dest: func(string) streaming.Destination { return client }}
	srv := api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:   api.ReadDeps{Reader: s, Writer: s, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
		Log:    api.LogDeps{Store: s, Origin: "auditlog.test"},
		Stream: api.StreamDeps{Store: s, Tenants: s, DefaultPlan: audit.PlanStarter, Plans: []audit.Plan{audit.PlanEnterprise}, Rules: rules,
			Secret: func() string { return strings.Repeat("z", 43) }, Test: streamer.Test},
	})
	h := &harness{srv: httptest.NewServer(srv.Handler())}
	t.Cleanup(h.srv.Close)
	return h, s
}

// hookReceiver keeps what the test webhook received.
type hookReceiver struct {
	mu      sync.Mutex
	batches []streaming.Batch
	bodies  [][]byte
}

func (r *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var b streaming.Batch
	body, _ := io.ReadAll(req.Body)
	_ = json.Unmarshal(body, &b)
	r.mu.Lock()
	r.batches = append(r.batches, b)
	r.bodies = append(r.bodies, body)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// noLogPosition fails unless body is a batch of one entry with an event
// and no leafIndex.
func noLogPosition(t *testing.T, body []byte) {
	t.Helper()
	var wire struct{ Events []map[string]json.RawMessage }
	if err := json.Unmarshal(body, &wire); err != nil || len(wire.Events) != 1 || wire.Events[0]["event"] == nil {
		t.Fatalf("test delivery body: %v %s", err, body)
	}
	if _, has := wire.Events[0]["leafIndex"]; has {
		t.Fatalf("the test delivery's event has a leaf index: %s", body)
	}
}

// TestStreamsAPI: the plan gate; a create that shows the made secret
// once; every change recorded in the tenant's log without a secret;
// masked secrets sent back kept; pause, resume, replay and their
// refusals; a test delivery; another tenant sees nothing; delete.
func TestStreamsAPI(t *testing.T) {
	rc := &hookReceiver{}
	hook := httptest.NewTLSServer(rc)
	defer hook.Close()
	h, store := streamServer(t, stream.Rules{AllowPrivate: true}, hook.Client().Transport.(*http.Transport))
	const tenant, other = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f70"
	admin := token(t, tenant, audit.RoleAdmin, "")
	cfg := `{"name":"SIEM relay","destination":{"kind":"webhook","url":"` + hook.URL + `/in","headers":{"X-Key":"header-secret"}},"filter":"-action:access"}`
	json := []string{"Content-Type", "application/json"}
	if r := h.do(t, "POST", "/api/streams", admin, []byte(cfg), json...); r.status != 403 || !strings.Contains(r.problem(t).Detail, "enterprise") {
		t.Fatalf("a Starter tenant creates a stream: %d %s", r.status, r.body)
	}
	if err := store.SetPlan(context.Background(), tenant, audit.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	r := h.do(t, "POST", "/api/streams", admin, []byte(cfg), json...)
	var st api.StreamView
	if r.json(t, &st); r.status != 201 || hookOf(st.Destination).Secret != strings.Repeat("z", 43) || st.State != stream.Active || st.Notify[0] != "admin@x.example" ||
		r.header.Get("Location") != "/api/streams/"+st.ID {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	path := "/api/streams/" + st.ID
	r = h.get(t, path, admin)
	if r.json(t, &st); hookOf(st.Destination).Secret != stream.MaskedSecret || hookOf(st.Destination).Headers["X-Key"] != stream.MaskedSecret {
		t.Fatalf("read back: %s", r.body)
	}
	// The configuration as read, sent back with a new filter: the secrets stay.
	st.Filter = "action:delete"
	body, _ := jsonMarshal(st.Config)
	if r = h.do(t, "PUT", path, admin, body, json...); r.status != 200 {
		t.Fatalf("update: %d %s", r.status, r.body)
	}
	stored, _ := store.Stream(context.Background(), tenant, st.ID)
	if hookOf(stored.Destination).Secret != strings.Repeat("z", 43) || hookOf(stored.Destination).Headers["X-Key"] != "header-secret" || stored.Filter != "action:delete" {
		t.Fatalf("stored after the update: %+v", stored)
	}
	for _, c := range []struct {
		path, body string
		status     int
	}{
		{"/pause", "", 200}, {"/pause", "", 409}, {"/resume", "", 200}, {"/resume", "", 409},
		{"/replay", `{"from":0}`, 200}, {"/replay", `{"from":5}`, 400}, {"/replay", `{}`, 400}, {"/replay", `{"from":0,"since":"2026-01-01T00:00:00Z"}`, 400},
		{"/replay", `{"since":"2026-01-01T00:00:00Z"}`, 400},
	} {
		if r := h.do(t, "POST", path+c.path, admin, []byte(c.body), json...); r.status != c.status {
			t.Errorf("POST %s %s: %d %s, want %d", c.path, c.body, r.status, r.body, c.status)
		}
	}
	var tv api.StreamTestView
	r = h.do(t, "POST", path+"/test", admin, nil)
	if r.json(t, &tv); r.status != 200 || tv.Outcome != "accepted" || len(rc.batches) != 1 || !rc.batches[0].Test {
		t.Fatalf("test delivery: %d %s, %d batches", r.status, r.body, len(rc.batches))
	}
	// A test delivery has no log position: a receiver keeping each leaf
	// index once would keep the test event in a real leaf's place.
	noLogPosition(t, rc.bodies[0])
	them := token(t, other, audit.RoleAdmin, "")
	for _, m := range []string{"GET", "DELETE"} {
		if r := h.do(t, m, path, them, nil); r.status != 404 {
			t.Fatalf("another tenant's %s: %d", m, r.status)
		}
	}
	var list struct{ Data []api.StreamView }
	r = h.get(t, "/api/streams", them)
	if r.json(t, &list); len(list.Data) != 0 {
		t.Fatalf("another tenant lists %s", r.body)
	}
	if r = h.do(t, "DELETE", path, admin, nil); r.status != 204 {
		t.Fatalf("delete: %d", r.status)
	}
	if r = h.do(t, "DELETE", path, admin, nil); r.status != 404 {
		t.Fatalf("a second delete: %d", r.status)
	}
	// Each change is one record in the tenant's log, with no secret in it.
	res, err := store.SearchEvents(context.Background(), audit.Query{Filter: audit.Filter{TenantID: tenant, ResourceTypes: []string{audit.ResourceAuditStream}},
		Sort: audit.DefaultSort, PageSize: 100, Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[audit.Action]int{}
	for _, e := range res.Events {
		counts[e.Action]++
		raw, _ := jsonMarshal(e)
		if strings.Contains(string(raw), "zzzz") || strings.Contains(string(raw), "header-secret") {
			t.Fatalf("a secret in the record %s", raw)
		}
		if e.Resource.ID != st.ID || e.Actor.Email != "admin@x.example" {
			t.Fatalf("the record %+v", e)
		}
	}
	// create; update, pause, resume, replay; delete (refusals are not changes)
	if counts[audit.ActionCreate] != 1 || counts[audit.ActionUpdate] != 4 || counts[audit.ActionDelete] != 1 {
		t.Fatalf("records %v", counts)
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// TestStreamsRefuseBadConfiguration: each bad configuration is a 400
// naming its field, and nothing is stored.
func TestStreamsRefuseBadConfiguration(t *testing.T) {
	h, store := streamServer(t, stream.Rules{Off: map[string]string{s3stream.Kind: "this deployment has no S3 server for streams (AUDITLOG_S3_ENDPOINT)"}}, nil)
	const tenant = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
	if err := store.SetPlan(context.Background(), tenant, audit.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	admin := token(t, tenant, audit.RoleAdmin, "")
	hook := func(url string) string { return `{"kind":"webhook","url":"` + url + `"}` }
	for _, c := range []struct{ name, body, field string }{
		{"http", `{"name":"a","destination":` + hook("http://siem.example.com/in") + `}`, "destination.url"},
		{"loopback", `{"name":"a","destination":` + hook("https://127.0.0.1/in") + `}`, "destination.url"},
		{"private", `{"name":"a","destination":` + hook("https://10.1.2.3/in") + `}`, "destination.url"},
		{"localhost", `{"name":"a","destination":` + hook("https://localhost:8443/in") + `}`, "destination.url"},
		{"credentials", `{"name":"a","destination":` + hook("https://u:p@siem.example.com/in") + `}`, "destination.url"},
		{"format", `{"name":"a","format":"cef","destination":` + hook("https://siem.example.com/in") + `}`, "format"},
		{"filter", `{"name":"a","filter":"action:(","destination":` + hook("https://siem.example.com/in") + `}`, "filter"},
		{"kind", `{"name":"a","destination":{"kind":"ftp"}}`, "destination.kind"},
		{"s3 without an S3 server", `{"name":"a","destination":{"kind":"s3","bucket":"acme-audit"}}`, "destination.kind"},
		{"token", `{"name":"a","destination":{"kind":"splunk_hec","url":"https://splunk.example.com","token":"nope"}}`, "destination.token"},
		{"a Sentinel without its secret", `{"name":"a","destination":{"kind":"sentinel","url":"https://dce.westeurope-1.ingest.monitor.azure.com","dcr":"dcr-0123456789abcdef0123456789abcdef","streamName":"Custom-AuditLog","azureTenant":"72f988bf-86f1-41af-91ab-2d7cd011db47","clientId":"3f1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6b"}}`, "destination.secret"},
		{"a Sentinel rule", `{"name":"a","destination":{"kind":"sentinel","url":"https://dce.westeurope-1.ingest.monitor.azure.com","dcr":"rule-1","streamName":"Custom-AuditLog","azureTenant":"72f988bf-86f1-41af-91ab-2d7cd011db47","clientId":"3f1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6b","secret":"` + strings.Repeat("s", 40) + `"}}`, "destination.dcr"},
		{"a Sentinel tenant", `{"name":"a","destination":{"kind":"sentinel","url":"https://dce.westeurope-1.ingest.monitor.azure.com","dcr":"dcr-0123456789abcdef0123456789abcdef","streamName":"Custom-AuditLog","azureTenant":"contoso","clientId":"3f1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6b","secret":"` + strings.Repeat("s", 40) + `"}}`, "destination.azureTenant"},
		{"a Datadog key", `{"name":"a","destination":{"kind":"datadog","url":"https://http-intake.logs.datadoghq.eu/api/v2/logs","token":"12345678-9abc-def0-1234-56789abcdef0"}}`, "destination.token"},
		{"a Datadog intake over http", `{"name":"a","destination":{"kind":"datadog","url":"http://http-intake.logs.datadoghq.eu/api/v2/logs","token":"0123456789abcdef0123456789abcdef"}}`, "destination.url"},
		{"a secret on Datadog", `{"name":"a","destination":{"kind":"datadog","url":"https://http-intake.logs.datadoghq.eu/api/v2/logs","token":"0123456789abcdef0123456789abcdef","secret":"` + strings.Repeat("s", 32) + `"}}`, "destination.secret"},
		{"a number for a URL", `{"name":"a","destination":{"kind":"webhook","url":5}}`, "destination.url"},
		{"a bucket on a webhook", `{"name":"a","destination":{"kind":"webhook","url":"https://siem.example.com/in","bucket":"b"}}`, "destination.bucket"},
		{"unknown field", `{"name":"a","colour":"red","destination":` + hook("https://siem.example.com/in") + `}`, "colour"},
		// The body is read by the stored rows' strict library (issue 54):
		// what encoding/json took silently is a 400 naming the member.
		{"a member twice", `{"name":"a","name":"b","destination":` + hook("https://siem.example.com/in") + `}`, "name"},
		{"a member in another case", `{"Name":"a","destination":` + hook("https://siem.example.com/in") + `}`, "Name"},
		{"invalid UTF-8", "{\"name\":\"a\xff\",\"destination\":" + hook("https://siem.example.com/in") + `}`, "name"},
		{"a header twice", `{"name":"a","destination":{"kind":"webhook","url":"https://siem.example.com/in","headers":{"X-K":"1","X-K":"2"}}}`, "destination.headers.X-K"},
		{"no name", `{"name":" ","destination":` + hook("https://siem.example.com/in") + `}`, "name"},
		{"mask", `{"name":"a","mask":{"actor.ip":"blur"},"destination":` + hook("https://siem.example.com/in") + `}`, "mask.actor.ip"},
		{"notify", `{"name":"a","notify":["not an address"],"destination":` + hook("https://siem.example.com/in") + `}`, "notify[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(t, "POST", "/api/streams", admin, []byte(c.body), "Content-Type", "application/json")
			if r.status != 400 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			p := r.problem(t)
			named := false
			for _, e := range p.Errors {
				named = named || e.Field == c.field
			}
			if !named {
				t.Fatalf("the problem does not name %s: %s", c.field, r.body)
			}
		})
	}
	if l, err := store.Streams(context.Background(), tenant); err != nil || len(l) != 0 {
		t.Fatalf("stored after refusals: %d %v", len(l), err)
	}
}

// hookOf is a webhook destination's settings (a zero Config for another
// kind, which fails the caller's comparison).
func hookOf(d stream.Destination) webhook.Config {
	if c, ok := d.Settings.(*webhook.Config); ok {
		return *c
	}
	return webhook.Config{}
}
