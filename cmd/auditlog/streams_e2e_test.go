package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/azmonitor"
	"github.com/auditlog/auditlog/internal/testkit/ddintake"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/s3"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/datadog"
	"github.com/auditlog/auditlog/streaming/sentinel"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// siem is a tenant's webhook receiver over TLS: it checks each
// request's signature and keeps the batches, as a SIEM's collector would.
type siem struct {
	mu      sync.Mutex
	secret  []byte
	batches []streaming.Batch
	bodies  [][]byte // as received: a capture
	t       *testing.T
	srv     *httptest.Server
}

func startSIEM(t *testing.T) *siem {
	s := &siem{t: t}
	s.srv = httptest.NewTLSServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *siem) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := webhook.Verify(s.secret, r.Header.Get(webhook.TimestampHeader), r.Header.Get(webhook.SignatureHeader), body, time.Now(), webhook.DefaultWindow); err != nil {
		s.t.Errorf("a delivery that does not verify: %v", err)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var b streaming.Batch
	if err := json.Unmarshal(body, &b); err != nil {
		s.t.Errorf("a batch that does not decode: %v", err)
	}
	s.batches, s.bodies = append(s.batches, b), append(s.bodies, body)
	w.WriteHeader(http.StatusNoContent)
}

// caFile writes the receiver's certificate, for AUDITLOG_STREAM_CA_FILE.
func (s *siem) caFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "siem-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// received is every leaf index received (with repeats), and the last
// range's end, checking that each batch is the demo tenant's and starts
// where the one before ended or earlier (a redelivery).
func (s *siem) received(t *testing.T) (map[uint64]int, uint64, []streaming.Batch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen, end := map[uint64]int{}, uint64(0)
	for _, b := range s.batches {
		if b.Test {
			continue
		}
		if b.TenantID != demoTenant || b.From > end {
			t.Fatalf("a batch [%d, %d) of %s after %d: a gap, or another tenant", b.From, b.To, b.TenantID, end)
		}
		for _, e := range b.Events {
			seen[e.LeafIndex]++
		}
		end = max(end, b.To)
	}
	return seen, end, append([]streaming.Batch(nil), s.batches...)
}

// TestStreamsEndToEnd: on each store, a tenant admin creates a webhook
// stream through the API; serve (embedded) or two `auditlog stream`
// replicas (Elasticsearch) deliver every event of the tenant's log, in
// order, each with its leaf index, under checkpoints signed by the log's
// key; a paused stream delivers nothing until resumed; the lag and the
// state are in /metrics.
func TestStreamsEndToEnd(t *testing.T) {
	for name, store := range logStores(t) {
		t.Run(name, func(t *testing.T) { testStreamsEndToEnd(t, name, store(t)) })
	}
}

func testStreamsEndToEnd(t *testing.T, store string, vars map[string]string) {
	hook := startSIEM(t)
	dd := ddintake.Start("0123456789abcdef0123456789abcdef") // the same test certificate as hook's
	t.Cleanup(dd.Close)
	az := azmonitor.Start("72f988bf-86f1-41af-91ab-2d7cd011db47", "3f1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6b", "Xy8Q~abcdefghijklmnopqrstuvwxyz0123456789",
		"dcr-0123456789abcdef0123456789abcdef", "Custom-AuditLog")
	t.Cleanup(az.Close)
	s3env := testenv.S3(t)
	lake := testenv.Name("lake")
	with(vars, map[string]string{"AUDITLOG_S3_ENDPOINT": s3env.Endpoint, "AUDITLOG_S3_ACCESS_KEY": s3env.AccessKey, "AUDITLOG_S3_SECRET_KEY": s3env.SecretKey,
		"AUDITLOG_S3_PATH_STYLE": "true", "AUDITLOG_S3_CREATE_BUCKET": "true", "AUDITLOG_STREAM_S3_EVERY": "500ms"})
	with(vars, map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_INGEST_TOKEN": "svc",
		"AUDITLOG_SEED": "300", "AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_STREAM_EVERY": "100ms", "AUDITLOG_STREAM_BATCH": "50",
		"AUDITLOG_STREAM_ALLOW_PRIVATE": "true", "AUDITLOG_STREAM_CA_FILE": hook.caFile(t), "AUDITLOG_LOG_LEVEL": "warn",
		"AUDITLOG_STREAM_AZURE_AUTHORITY": az.URL})
	m := startMain(t, "serve", vars)
	deliverers := []*Main{m}
	if store == "elasticsearch" {
		sv := map[string]string{}
		for _, k := range []string{"AUDITLOG_ES_URL", "AUDITLOG_ES_INDEX_PREFIX", "AUDITLOG_STREAM_EVERY", "AUDITLOG_STREAM_BATCH",
			"AUDITLOG_STREAM_ALLOW_PRIVATE", "AUDITLOG_STREAM_CA_FILE", "AUDITLOG_LOG_LEVEL", "AUDITLOG_DATA_DIR", "AUDITLOG_STREAM_S3_EVERY",
			"AUDITLOG_S3_ENDPOINT", "AUDITLOG_S3_ACCESS_KEY", "AUDITLOG_S3_SECRET_KEY", "AUDITLOG_S3_PATH_STYLE", "AUDITLOG_S3_CREATE_BUCKET",
			"AUDITLOG_PERIODIC_SIGNING_KEY", "AUDITLOG_STREAM_AZURE_AUTHORITY", "AUDITLOG_ACCEPT_KEY"} {
			sv[k] = vars[k]
		}
		sv["AUDITLOG_HTTP_ADDR"] = "127.0.0.1:0"
		sv["AUDITLOG_STREAM_MASK_KEY"] = testStreamMaskKey(t)
		deliverers = []*Main{startMain(t, "stream", sv), startMain(t, "stream", sv)}
	}
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "secops@acme.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	hook.secret = []byte(strings.Repeat("k", 32))
	code, body := c.do("POST", "/api/streams", tok, []byte(`{"name":"SIEM","destination":{"kind":"webhook","url":"`+hook.srv.URL+`/in","secret":"`+string(hook.secret)+`"}}`))
	var st api.StreamView
	if err := json.Unmarshal(body, &st); code != 201 || err != nil {
		t.Fatalf("create: %d %s", code, body)
	}
	code, body = c.do("POST", "/api/streams", tok, []byte(`{"name":"Lake","format":"ocsf","destination":{"kind":"s3","bucket":"`+lake+`","prefix":"lake"},"filter":"-action:access"}`))
	var lakeStream api.StreamView
	if err := json.Unmarshal(body, &lakeStream); code != 201 || err != nil {
		t.Fatalf("create the S3 stream: %d %s", code, body)
	}
	code, body = c.do("POST", "/api/streams", tok, []byte(`{"name":"Datadog","destination":{"kind":"datadog","url":"`+dd.URL+`/api/v2/logs","token":"`+dd.APIKey+`"}}`))
	var ddStream api.StreamView
	if err := json.Unmarshal(body, &ddStream); code != 201 || err != nil || ddStream.Destination.Settings.(*datadog.Config).Token != "****" {
		t.Fatalf("create the Datadog stream: %d %s", code, body)
	}
	code, body = c.do("POST", "/api/streams", tok, []byte(`{"name":"Sentinel","format":"ocsf","destination":{"kind":"sentinel","url":"`+az.URL+
		`","dcr":"`+az.DCR+`","streamName":"`+az.Stream+`","azureTenant":"`+az.Tenant+`","clientId":"`+az.ClientID+`","secret":"`+az.Secret+`"}}`))
	var azStream api.StreamView
	if err := json.Unmarshal(body, &azStream); code != 201 || err != nil || azStream.Destination.Settings.(*sentinel.Config).Secret != "****" {
		t.Fatalf("create the Sentinel stream: %d %s", code, body)
	}
	ingestDemo(t, c, 41, 30)
	caughtUp := func() error {
		code, body := c.do("GET", "/api/streams/"+st.ID, tok, nil)
		if err := json.Unmarshal(body, &st); code != 200 || err != nil {
			return fmt.Errorf("%d %s", code, body)
		}
		_, end, _ := hook.received(t)
		var lr api.ListResponse
		_, body = c.do("GET", "/api/audit-logs?pageSize=1", tok, nil)
		if err := json.Unmarshal(body, &lr); err != nil || uint64(lr.Total.Value) != st.LogSize {
			return fmt.Errorf("the log holds %d leaves, the tenant %d events", st.LogSize, lr.Total.Value)
		}
		if st.Cursor != st.LogSize || end != st.LogSize || st.Lag.Events != 0 {
			return fmt.Errorf("log %d leaves, cursor %d, received up to %d, lag %+v (%s %s)", st.LogSize, st.Cursor, end, st.Lag, st.State, st.Reason)
		}
		return nil
	}
	testenv.Eventually(t, 90*time.Second, caughtUp)
	seen, _, batches := hook.received(t)
	var lr api.ListResponse
	_, body = c.do("GET", "/api/audit-logs?pageSize=1", tok, nil)
	_ = json.Unmarshal(body, &lr)
	if int64(len(seen)) != lr.Total.Value || uint64(len(seen)) != st.LogSize {
		t.Fatalf("received %d distinct leaves; the tenant has %d events and %d leaves", len(seen), lr.Total.Value, st.LogSize)
	}
	// The checkpoint of every batch is the log's, signed by its key, and
	// covers the batch.
	_, keyText := c.do("GET", "/api/log-key?tenant="+demoTenant, "", nil)
	var key struct{ VerifierKey string }
	_ = json.Unmarshal(keyText, &key)
	v, err := note.NewVerifier(key.VerifierKey)
	if err != nil {
		t.Fatalf("the log's key %q: %v", keyText, err)
	}
	for _, b := range batches {
		n, err := note.Open([]byte(b.Checkpoint), note.VerifierList(v))
		if err != nil {
			t.Fatalf("the checkpoint of [%d, %d): %v", b.From, b.To, err)
		}
		cp, err := vlog.ParseCheckpoint(n.Text)
		if err != nil || uint64(cp.Size) < b.To || !strings.HasSuffix(cp.Origin, "/tenants/"+demoTenant) {
			t.Fatalf("the checkpoint %+v does not cover [%d, %d): %v", cp, b.From, b.To, err)
		}
	}
	// Paused, nothing goes out; resumed, the new events do. A delivery
	// already under way when the pause lands may still arrive (the log
	// grows by the service's own records meanwhile: a periodic export's
	// delivery record): what is counted is what arrives after the
	// receiver has been quiet for a second.
	if code, body := c.do("POST", "/api/streams/"+st.ID+"/pause", tok, nil); code != 200 {
		t.Fatalf("pause: %d %s", code, body)
	}
	before := -1
	for quiet := 0; quiet < 10; quiet++ {
		_, _, now := hook.received(t)
		if len(now) == before {
			break
		}
		before = len(now)
		time.Sleep(time.Second)
	}
	ingestDemo(t, c, 42, 10)
	time.Sleep(2 * time.Second)
	if _, _, now := hook.received(t); len(now) != before {
		t.Fatalf("a paused stream delivered %d batches", len(now)-before)
	}
	if code, body := c.do("POST", "/api/streams/"+st.ID+"/resume", tok, nil); code != 200 {
		t.Fatalf("resume: %d %s", code, body)
	}
	testenv.Eventually(t, 60*time.Second, caughtUp)
	// The S3 stream's bucket checks complete and unaltered, with the keys
	// of the service (an auditor would pin them).
	testenv.Eventually(t, 60*time.Second, func() error {
		var v api.StreamView
		_, body := c.do("GET", "/api/streams/"+lakeStream.ID, tok, nil)
		if err := json.Unmarshal(body, &v); err != nil || v.Cursor == 0 || v.Cursor != v.LogSize {
			return fmt.Errorf("the S3 stream: %s", body)
		}
		return nil
	})
	var out strings.Builder
	s3vars := map[string]string{"AUDITLOG_S3_ENDPOINT": s3env.Endpoint, "AUDITLOG_S3_ACCESS_KEY": s3env.AccessKey, "AUDITLOG_S3_SECRET_KEY": s3env.SecretKey, "AUDITLOG_S3_PATH_STYLE": "true"}
	if code := run([]string{"stream", "check", "--bucket", lake, "--prefix", "lake", "--tenant", demoTenant, "--stream", lakeStream.ID, "--api", c.base},
		env(s3vars), &out, &out); code != 0 || !strings.HasSuffix(out.String(), "\nok\n") {
		t.Fatalf("stream check: exit %d\n%s", code, out.String())
	}
	// The webhook's capture checks complete, and each event is proved the
	// log's leaf through the service's tiles; an edited event and a lost
	// batch are each named.
	captureChecks(t, hook, c.base, tok, st.ID)
	// auditlog verify --stream is the same check.
	out.Reset()
	if code := run([]string{"verify", "--stream", lakeStream.ID, "--bucket", lake, "--prefix", "lake", "--tenant", demoTenant, "--api", c.base},
		env(s3vars), &out, &out); code != 0 || !strings.HasSuffix(out.String(), "\nok\n") {
		t.Fatalf("verify --stream: exit %d\n%s", code, out.String())
	}
	ocsfInBucket(t, s3env, lake, "lake/", demoTenant)
	// The Datadog stream delivered every leaf of the log, each its
	// tenant's.
	testenv.Eventually(t, 60*time.Second, func() error {
		var v api.StreamView
		_, body := c.do("GET", "/api/streams/"+ddStream.ID, tok, nil)
		if err := json.Unmarshal(body, &v); err != nil || v.Cursor == 0 || v.Cursor != v.LogSize {
			return fmt.Errorf("the Datadog stream: %s", body)
		}
		items, _ := dd.Items()
		leaves := map[float64]bool{}
		for _, it := range items {
			if it["tenant_id"] != demoTenant {
				t.Fatalf("a log item of %v", it["tenant_id"])
			}
			leaves[it["leaf_index"].(float64)] = true
		}
		if uint64(len(leaves)) != v.LogSize {
			return fmt.Errorf("Datadog holds %d leaves of %d", len(leaves), v.LogSize)
		}
		return nil
	})
	// So did the Sentinel stream, in OCSF, as rows of the rule's stream.
	testenv.Eventually(t, 60*time.Second, func() error {
		var v api.StreamView
		_, body := c.do("GET", "/api/streams/"+azStream.ID, tok, nil)
		if err := json.Unmarshal(body, &v); err != nil || v.Cursor == 0 || v.Cursor != v.LogSize {
			return fmt.Errorf("the Sentinel stream: %s", body)
		}
		leaves := map[float64]bool{}
		for _, r := range az.Rows() {
			ev, _ := r["Event"].(map[string]any)
			if r["AuditTenantId"] != demoTenant || r["Format"] != "ocsf" || ev["class_uid"] == nil {
				t.Fatalf("a row of %v in %v: %v", r["AuditTenantId"], r["Format"], r)
			}
			leaves[r["LeafIndex"].(float64)] = true
		}
		if uint64(len(leaves)) != v.LogSize {
			return fmt.Errorf("Sentinel holds %d leaves of %d", len(leaves), v.LogSize)
		}
		return nil
	})
	// Every deliverer reports the stream's lag and state.
	for _, d := range deliverers {
		_, metrics := client{t, "http://" + d.Addr()}.do("GET", "/metrics", "", nil)
		want := fmt.Sprintf(`auditlog_stream_state{state="active",stream=%q,tenant=%q} 1`, st.ID, demoTenant)
		if !strings.Contains(string(metrics), want) || !strings.Contains(string(metrics), "auditlog_stream_lag_events{") {
			t.Fatalf("/metrics of %s lacks %s", d.Addr(), want)
		}
	}
}

// ocsfInBucket reads the objects an S3 stream in the OCSF format wrote
// under prefix: every line is a leaf index and an OCSF event of the
// tenant (one of the three classes) whose metadata.sequence is that index.
func ocsfInBucket(t *testing.T, env testenv.S3Env, bucket, prefix, tenant string) {
	t.Helper()
	ctx := context.Background()
	files, err := s3.Open(ctx, s3.Config{Endpoint: env.Endpoint, Bucket: bucket, AccessKey: env.AccessKey, SecretKey: env.SecretKey, PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := files.List(ctx, prefix)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range keys {
		if !strings.HasSuffix(k, ".ndjson.gz") {
			continue
		}
		r, err := files.Open(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(zr)
		for dec.More() {
			var line struct {
				LeafIndex uint64 `json:"leafIndex"`
				Event     struct {
					ClassUID int `json:"class_uid"`
					Metadata struct {
						TenantUID string `json:"tenant_uid"`
						Sequence  uint64 `json:"sequence"`
					} `json:"metadata"`
				} `json:"event"`
			}
			if err := dec.Decode(&line); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			if e := line.Event; (e.ClassUID != 3001 && e.ClassUID != 3002 && e.ClassUID != 6003) || e.Metadata.TenantUID != tenant || e.Metadata.Sequence != line.LeafIndex {
				t.Fatalf("%s: leaf %d is no OCSF event of %s: %+v", k, line.LeafIndex, tenant, e)
			}
			n++
		}
		r.Close()
	}
	if n == 0 {
		t.Fatalf("no OCSF event under %s", prefix)
	}
}

// captureChecks writes what hook received as a capture and checks it
// with auditlog stream check --capture, then an edited copy and one
// without a batch.
func captureChecks(t *testing.T, hook *siem, base, tok, stream string) {
	t.Helper()
	hook.mu.Lock()
	bodies := slices.Clone(hook.bodies)
	hook.mu.Unlock()
	// Exit 0 when it holds, 1 when a problem is found, 3 when it could not
	// be checked (the service unreachable).
	checkAt := func(api, name string, lines [][]byte, wantExit int) string {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if code := run([]string{"stream", "check", "--capture", path, "--tenant", demoTenant, "--stream", stream, "--api", api, "--token", tok}, env(nil), &out, &out); code != wantExit {
			t.Fatalf("stream check of %s: exit %d, want %d\n%s", name, code, wantExit, out.String())
		}
		return out.String()
	}
	check := func(name string, lines [][]byte) string { return checkAt(base, name, lines, 1) }
	if out := checkAt(base, "capture.ndjson", bodies, 0); !strings.HasSuffix(out, "\nok\n") || !strings.Contains(out, " events proved to be the log's leaves; 0 not provable") ||
		!strings.Contains(out, "without a gap") {
		t.Fatalf("the capture:\n%s", out)
	}
	if out := checkAt("http://127.0.0.1:1", "capture.ndjson", bodies, 3); strings.Contains(out, "check failed") {
		t.Fatalf("a service out of reach is no finding:\n%s", out)
	}
	var edited [][]byte
	done := false
	for i, b := range bodies {
		if !done && i >= len(bodies)/2 && bytes.Contains(b, []byte(`"action":"`)) { // the first batch with an event from the middle on
			b, done = bytes.Replace(b, []byte(`"action":"`), []byte(`"action":"x`), 1), true
		}
		edited = append(edited, b)
	}
	if out := check("edited.ndjson", edited); !strings.Contains(out, "is not the one the log holds (altered)") || !strings.Contains(out, "check failed") {
		t.Fatalf("an edited capture:\n%s", out)
	}
	// Every batch holding the middle leaf lost (two replicas may have sent
	// it twice): a gap.
	var end uint64
	batches := make([]streaming.Batch, len(bodies))
	for i := range bodies {
		_ = json.Unmarshal(bodies[i], &batches[i])
		end = max(end, batches[i].To)
	}
	mid := end / 2
	var lost [][]byte
	for i, b := range batches {
		if b.Test || b.From > mid || mid >= b.To {
			lost = append(lost, bodies[i])
		}
	}
	if out := check("lost.ndjson", lost); mid == 0 || !strings.Contains(out, "are in no batch: a gap") || strings.Contains(out, "without a gap") {
		t.Fatalf("a capture without leaf %d:\n%s", mid, out)
	}
}
