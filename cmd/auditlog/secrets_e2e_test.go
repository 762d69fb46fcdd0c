package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/kafka"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// secretNames are spellings of secret field names that an exact match
// once let through.
var secretNames = []string{"clientSecret", "client_secret", "client-secret", "Client_Secret", "api_key", "privateKeyPem"}

// variantState is an IVR state holding value under every spelling, at
// depth 1 and 3 and inside an array of objects.
func variantState(value string) map[string]any {
	st := map[string]any{"greeting": "hello " + value[len(value)-3:]}
	for i, n := range secretNames {
		v := fmt.Sprintf("%s-%d", value, i)
		st[fmt.Sprintf("d1_%d", i)] = map[string]any{n: v}
		st[fmt.Sprintf("d3_%d", i)] = map[string]any{"a": map[string]any{"b": map[string]any{n: v}}}
		st[fmt.Sprintf("arr_%d", i)] = []any{map[string]any{"id": "x", n: v}}
	}
	return st
}

// TestSecretVariantsNeverLeaveInClear: every spelling of a secret name, at
// depth 1 and 3 and inside arrays, sent over HTTP and through Kafka, is
// stored masked on each store: no clear value in the list, the detail,
// history, compare, the CSV export, a restore request, the periodic
// export's files, the data directory or the Elasticsearch documents.
func TestSecretVariantsNeverLeaveInClear(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	esURL := testenv.ElasticsearchURL(t)
	for _, store := range []string{"sqlite", "elasticsearch"} {
		t.Run(store, func(t *testing.T) {
			prefix, topic := testenv.Name("auditlog-secrets"), testenv.Name("secret-events")
			vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
				"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_KAFKA_BROKERS": strings.Join(brokers, ","), "AUDITLOG_KAFKA_TOPIC": topic,
				"AUDITLOG_KAFKA_GROUP": topic + "-group", "AUDITLOG_PERIODIC_SETTLE": "0s", "AUDITLOG_PERIODIC_EVERY": "1s",
				"AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_LOG_LEVEL": "warn"}
			if store == "elasticsearch" {
				vars["AUDITLOG_STORE"], vars["AUDITLOG_ES_URL"], vars["AUDITLOG_ES_INDEX_PREFIX"] = "elasticsearch", esURL, prefix
				vars["AUDITLOG_PERIODIC_SIGNING_KEY"] = testKeyFile(t)
				vars["AUDITLOG_ACCEPT_KEY"] = testAcceptKey(t)
			}
			m := startMain(t, "serve", vars)
			secretsStayMasked(t, m, brokers, topic)
			if store == "sqlite" {
				noSecretOnDisk(t, vars["AUDITLOG_DATA_DIR"], "-secret-")
				return
			}
			noSecretOnDisk(t, vars["AUDITLOG_DATA_DIR"], "-secret-")
			c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{esURL}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Do(context.Background(), http.MethodGet, "/"+prefix+"*/_search?size=10000&expand_wildcards=all", nil)
			if err != nil || res.Status != 200 || !bytes.Contains(res.Body, []byte(audit.MaskPrefix)) || bytes.Contains(res.Body, []byte("-secret-")) {
				t.Fatalf("the Elasticsearch documents under %s: %v %.2000s", prefix, err, res.Body)
			}
		})
	}
}

// secretsStayMasked sends three versions of an IVR (over HTTP, through
// Kafka, over HTTP) and reads every way back out.
func secretsStayMasked(t *testing.T, m *Main, brokers []string, topic string) {
	base := "http://" + m.Addr()
	c := client{t, base}
	res := audit.Resource{Type: audit.ResourceIVR, ID: "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a"}
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(-14 * time.Hour) // yesterday 10:00, a closed window
	id := func(n int) string { return fmt.Sprintf("evt_audit_5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a%02d", n) }
	version := func(n int, from, to string) audit.Event {
		b, _ := json.Marshal(variantState(from))
		a, _ := json.Marshal(variantState(to))
		return audit.Event{ID: id(n), Timestamp: audit.NewTimestamp(day.Add(time.Duration(n) * time.Minute)),
			TenantID: demoTenant, Actor: audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "ivr-service@x.example", Role: "service"},
			Action: audit.ActionUpdate, Resource: res, Before: b, After: a}
	}
	post := func(e audit.Event) {
		body, _ := json.Marshal([]audit.Event{e})
		code, out := c.do("POST", "/api/audit-events", "svc", body)
		if code != 200 || !strings.Contains(string(out), `"accepted":1`) {
			t.Fatalf("ingest: %d %s", code, out)
		}
	}
	post(version(1, "http-secret-v0", "http-secret-v1"))
	kv, _ := json.Marshal(version(2, "http-secret-v1", "kafka-secret-v2"))
	testenv.Produce(t, brokers, topic, []kafka.Message{{Key: []byte(demoTenant), Value: kv}})
	post(version(3, "kafka-secret-v2", "http-secret-v3"))
	admin := token(t, "s3cret", audit.Principal{UserID: "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e", Email: "ana@acme.example", Role: audit.RoleAdmin, TenantID: demoTenant})
	testenv.Eventually(t, time.Minute, func() error {
		if n := len(walk(t, base, admin, "resourceType=ivr")); n != 3 {
			return fmt.Errorf("%d of 3 versions readable", n)
		}
		return nil
	})
	ids := []string{id(1), id(2), id(3)}
	hist := "/api/resources/ivr/" + res.ID
	reads := map[string]string{
		"list": "/api/audit-logs?resourceType=ivr", "detail": "/api/audit-logs/" + ids[1], "history": hist + "/history",
		"compare": hist + "/compare?base=" + ids[0] + "&target=" + ids[2], "csv": "/api/audit-logs/export.csv?resourceType=ivr",
	}
	for name, path := range reads {
		code, out := c.do("GET", path, admin, nil)
		if code != 200 || bytes.Contains(out, []byte("-secret-")) {
			t.Fatalf("%s: %d, a secret in clear: %.3000s", name, code, out)
		}
	}
	// Free text finds changed values, never a secret's: by its words, as
	// a phrase, by prefix, or under reason:.
	for _, q := range []string{"kafka", `"http-secret-v1-0"`, "kafka-secret-v2-3", "kafk*", "-hello v1", "reason:kafka"} {
		code, out := c.do("GET", "/api/audit-logs?q="+url.QueryEscape(q), admin, nil)
		var lr api.ListResponse
		if code != 200 || json.Unmarshal(out, &lr) != nil || len(lr.Data) != 0 {
			t.Fatalf("q=%s finds a secret: %d %.1000s", q, code, out)
		}
	}
	if code, out := c.do("GET", "/api/audit-logs?q=hello", admin, nil); code != 200 || !bytes.Contains(out, []byte(id(3))) {
		t.Fatalf("q=hello does not find a changed value: %d %.500s", code, out)
	}
	code, out := c.do("POST", "/api/audit-logs/"+ids[0]+"/restore", admin, []byte(`{"force":true}`))
	var rv api.RestoreView
	if code != 202 || json.Unmarshal(out, &rv) != nil || bytes.Contains(out, []byte("-secret-")) || len(rv.OmittedFields) != 3*len(secretNames) {
		t.Fatalf("restore: %d %s", code, out)
	}
	periodicFilesMasked(t, m.Config.DataDir)
}

// periodicFilesMasked waits for the periodic export of the tenant's
// window and reads every data file it wrote.
func periodicFilesMasked(t *testing.T, dataDir string) {
	t.Helper()
	root := filepath.Join(dataDir, "periodic-exports", "auditlog", demoTenant)
	var files []string
	testenv.Eventually(t, time.Minute, func() error {
		files, _ = filepath.Glob(filepath.Join(root, "*", "*", "*", "*.ndjson.gz"))
		if len(files) == 0 {
			return fmt.Errorf("no periodic export file under %s yet", root)
		}
		return nil
	})
	masked := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		text, _ := io.ReadAll(zr)
		if bytes.Contains(text, []byte("-secret-")) {
			t.Fatalf("%s holds a secret in clear", f)
		}
		masked += bytes.Count(text, []byte(audit.MaskPrefix))
	}
	if masked == 0 {
		t.Fatal("the periodic files hold none of the versions' markers")
	}
}
