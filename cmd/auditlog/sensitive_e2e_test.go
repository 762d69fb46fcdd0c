package main

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/mask"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// TestMaskingKeyIsTheStores: without AUDITLOG_MASK_KEY, serve generates
// the masking key once and keeps it in the store, so after a restart the
// same secret masks to the same marker (a secret left unchanged across
// two changes shows as unchanged) and a resent event is a duplicate, not
// a conflict. No secret reaches the API's answers.
func TestMaskingKeyIsTheStores(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_INGEST_TOKEN": "svc"}
	ivr := func(n, from, to string) []byte {
		state := func(s string) string { return `{"flow":{"crm":{"auth":{"apiKey":"` + s + `"}}}}` }
		return []byte(`[{"id":"evt_audit_0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5b0` + n + `","timestamp":"2026-11-20T10:00:0` + n + `.000Z",` +
			`"tenantId":"` + demoTenant + `","actor":{"id":"2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","email":"a@x.example","role":"admin"},` +
			`"action":"update","resource":{"type":"ivr","id":"9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"},"before":` + state(from) + `,"after":` + state(to) + `}]`)
	}
	ingest := func(c client, body []byte, want string) {
		t.Helper()
		code, out := c.do("POST", "/api/audit-events", "svc", body)
		var res api.IngestResponse
		if json.Unmarshal(out, &res) != nil || code != 200 || res.Items[0].Status != want {
			t.Fatalf("ingest: %d %s, want %s", code, out, want)
		}
	}
	m := startMain(t, "serve", vars)
	ingest(client{t, "http://" + m.Addr()}, ivr("1", "key-one", "key-two"), "accepted")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	ingest(c, ivr("1", "key-one", "key-two"), "duplicate")
	ingest(c, ivr("2", "key-two", "key-three"), "accepted")

	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	code, body := c.do("GET", "/api/audit-logs?resourceType=ivr&sort=timestamp&order=asc", tok, nil)
	var lr api.ListResponse
	if json.Unmarshal(body, &lr) != nil || code != 200 || len(lr.Data) != 2 {
		t.Fatalf("%d %s", code, body)
	}
	if strings.Contains(string(body), "key-") {
		t.Fatalf("a secret reached an API answer: %s", body)
	}
	const path = "flow.crm.auth.apiKey"
	first, second := lr.Data[0].Diff[path], lr.Data[1].Diff[path]
	if !mask.Masked(first.To) || string(first.To) != string(second.From) || string(second.From) == string(second.To) {
		t.Fatalf("markers across a restart: first %s → %s, second %s → %s", first.From, first.To, second.From, second.To)
	}
}
