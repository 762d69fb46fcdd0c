package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/kafka"
)

// caseTenant is a tenant spelled three ways in this test.
const caseTenant = "5b1e0c7a-3d2f-4e6a-9b8c-7d6e5f4a3b2c"

// TestTenantIDsAreCaseInsensitiveOnEveryPath: a tenant id is normalised
// once, at the edge (audit.NormalizeTenantID), and the stores take it as
// given. This holds the rule on each store: events ingested over HTTP
// with a mixed-case tenant and through Kafka with an upper-case one, then
// every path called with a token of the upper-case tenant, are one tenant
// with the lower-case token; the directory holds it once.
func TestTenantIDsAreCaseInsensitiveOnEveryPath(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	esURL := testenv.ElasticsearchURL(t)
	for _, store := range []string{"sqlite", "elasticsearch"} {
		t.Run(store, func(t *testing.T) {
			topic := testenv.Name("case-events")
			vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
				"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_KAFKA_BROKERS": strings.Join(brokers, ","), "AUDITLOG_KAFKA_TOPIC": topic,
				"AUDITLOG_KAFKA_GROUP": topic + "-group", "AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_LOG_LEVEL": "warn", "AUDITLOG_DEFAULT_PLAN": "enterprise"}
			if store == "elasticsearch" {
				vars["AUDITLOG_STORE"], vars["AUDITLOG_ES_URL"], vars["AUDITLOG_ES_INDEX_PREFIX"] = "elasticsearch", esURL, testenv.Name("auditlog-case")
				vars["AUDITLOG_PERIODIC_SIGNING_KEY"] = testKeyFile(t)
				vars["AUDITLOG_ACCEPT_KEY"] = testAcceptKey(t)
			}
			m := startMain(t, "serve", vars)
			tenantCaseOnEveryPath(t, m, brokers, topic)
			var out bytes.Buffer
			if err := runTenant([]string{"list"}, env(vars), &out, io.Discard); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(strings.ToLower(out.String()), caseTenant); n != 1 {
				t.Fatalf("the directory lists the tenant %d times:\n%s", n, out.String())
			}
			out.Reset()
			if err := runTenant([]string{"show", "--tenant", strings.ToUpper(caseTenant)}, env(vars), &out, io.Discard); err != nil || !strings.Contains(out.String(), caseTenant) {
				t.Fatalf("tenant show --tenant in upper case: %v\n%s", err, out.String())
			}
		})
	}
}

func tenantCaseOnEveryPath(t *testing.T, m *Main, brokers []string, topic string) {
	base := "http://" + m.Addr()
	c := client{t, base}
	upper, mixed := strings.ToUpper(caseTenant), strings.ToUpper(caseTenant[:18])+caseTenant[18:]
	res := audit.Resource{Type: audit.ResourceIVR, ID: "6e5d4c3b-2a19-4087-b6a5-948372615049"}
	id := func(n int) string { return fmt.Sprintf("evt_audit_7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c%02d", n) }
	version := func(n int, tenant string) audit.Event {
		return audit.Event{ID: id(n), Timestamp: audit.NewTimestamp(time.Now().Add(time.Duration(n-10) * time.Minute)),
			TenantID: tenant, Actor: audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "ivr-service@x.example", Role: "service"},
			Action: audit.ActionUpdate, Resource: res, Before: json.RawMessage(fmt.Sprintf(`{"greeting":"v%d"}`, n-1)), After: json.RawMessage(fmt.Sprintf(`{"greeting":"v%d"}`, n))}
	}
	body, _ := json.Marshal([]audit.Event{version(1, mixed)})
	if code, out := c.do("POST", "/api/audit-events", "svc", body); code != 200 || !strings.Contains(string(out), `"accepted":1`) {
		t.Fatalf("ingest: %d %s", code, out)
	}
	kv, _ := json.Marshal(version(2, upper))
	testenv.Produce(t, brokers, topic, []kafka.Message{{Key: []byte(upper), Value: kv}})
	admin := func(tenant string) string {
		return token(t, "s3cret", audit.Principal{UserID: "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e", Email: "ana@acme.example", Role: audit.RoleAdmin, TenantID: tenant})
	}
	up, low := admin(upper), admin(caseTenant)
	testenv.Eventually(t, time.Minute, func() error {
		if n := len(walk(t, base, up, "resourceType=ivr")); n != 2 {
			return fmt.Errorf("%d of 2 events readable with the upper-case token", n)
		}
		return nil
	})
	for _, e := range walk(t, base, low, "resourceType=ivr") {
		if e.TenantID != caseTenant {
			t.Fatalf("stored tenant %q, want %q", e.TenantID, caseTenant)
		}
	}
	hist := "/api/resources/ivr/" + res.ID
	reads := []string{"/api/audit-logs?resourceType=ivr", "/api/audit-logs/" + id(2), hist + "/history",
		hist + "/compare?base=" + id(1) + "&target=" + id(2), "/api/audit-logs/stats?resourceType=ivr&groupBy=action", "/api/audit-logs/periodic-exports/settings"}
	for _, path := range reads {
		cu, bu := c.do("GET", path, up, nil)
		cl, bl := c.do("GET", path, low, nil)
		if cu != 200 || cl != 200 || !bytes.Equal(bu, bl) {
			t.Fatalf("%s: %d with the upper-case token, %d with the lower-case one:\n%.1500s\n%.1500s", path, cu, cl, bu, bl)
		}
	}
	if code, out := c.do("GET", "/api/audit-logs/export.csv?resourceType=ivr", up, nil); code != 200 || bytes.Count(out, []byte(res.ID)) != 2 {
		t.Fatalf("CSV export with the upper-case token: %d %.1500s", code, out)
	}
	casePathsThatWrite(t, c, up, low, upper, id(2))
}

// casePathsThatWrite: an export job, a restore and the periodic settings,
// each written with the upper-case tenant, are found with the lower-case
// one.
func casePathsThatWrite(t *testing.T, c client, up, low, upper, eventID string) {
	code, out := c.do("POST", "/api/audit-logs/exports?async=true&resourceType=ivr", up, nil)
	var job struct{ ID string }
	if code != 202 || json.Unmarshal(out, &job) != nil || job.ID == "" {
		t.Fatalf("export job with the upper-case token: %d %s", code, out)
	}
	if code, out := c.do("GET", "/api/audit-logs/exports/"+job.ID, low, nil); code != 200 {
		t.Fatalf("the job seen with the lower-case token: %d %s", code, out)
	}
	code, out = c.do("POST", "/api/audit-logs/"+eventID+"/restore", up, []byte(`{"version":"before","force":true}`))
	var rv api.RestoreView
	if code != 202 || json.Unmarshal(out, &rv) != nil {
		t.Fatalf("restore with the upper-case token: %d %s", code, out)
	}
	if code, out := c.do("GET", "/api/restores/"+rv.RequestID, low, nil); code != 200 {
		t.Fatalf("the restore seen with the lower-case token: %d %s", code, out)
	}
	op := token(t, "s3cret", audit.Principal{UserID: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", Email: "op@ops.example", Role: audit.RoleSuperadmin, TenantID: upper, Reason: "case test"})
	if code, out := c.do("PUT", "/api/audit-logs/periodic-exports/settings", op, []byte(`{"interval":"hourly"}`)); code != 200 {
		t.Fatalf("periodic settings with the upper-case tenant: %d %s", code, out)
	}
	if code, out := c.do("GET", "/api/audit-logs/periodic-exports/settings", low, nil); code != 200 || !strings.Contains(string(out), `"hourly"`) {
		t.Fatalf("the settings seen with the lower-case token: %d %s", code, out)
	}
}
