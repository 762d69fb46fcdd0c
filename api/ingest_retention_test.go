package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// testIngestRetention: accepted means readable. An event older than its
// tenant's retention is rejected per item, naming the timestamp and the
// retention, at the plan the tenant has when the event arrives (an event
// inside the old plan's retention but past the lowered one's is refused);
// an event inside the retention is accepted and found by its id.
func testIngestRetention(t *testing.T, url string, dir audit.TenantDirectory, r api.Reader, visible func()) {
	ctx := context.Background()
	const tenant = "1e2f3a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b"
	ev := func(n int, ts time.Time) string {
		return fmt.Sprintf(`{"id":"evt_audit_0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5b%02d","timestamp":"%s","tenantId":"%s",`+
			`"actor":{"id":"2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","email":"a@x.example","role":"admin"},`+
			`"action":"delete","resource":{"type":"queue","id":"9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"}}`, n, ts.UTC().Format(audit.TimestampLayout), tenant)
	}
	send := func(events ...string) api.IngestResponse {
		t.Helper()
		code, body := post(t, url, ingestToken, "application/json", []byte("["+strings.Join(events, ",")+"]"))
		var res api.IngestResponse
		if json.Unmarshal(body, &res) != nil || code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		return res
	}
	if err := dir.SetPlan(ctx, tenant, audit.PlanPro); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	res := send(ev(1, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)), ev(2, now.AddDate(0, 0, -100)))
	if it := res.Items[0]; it.Status != "rejected" || len(it.Errors) != 1 || it.Errors[0].Field != "timestamp" ||
		!strings.Contains(it.Errors[0].Message, "older than the 365-day retention") || !strings.Contains(it.Errors[0].Message, "pro plan") {
		t.Fatalf("an event of 2000 on the pro plan: %+v", it)
	}
	if res.Items[1].Status != "accepted" {
		t.Fatalf("an event of 100 days ago on the pro plan: %+v", res.Items[1])
	}
	// The plan is lowered: what was fine a moment ago is refused now.
	if err := dir.SetPlan(ctx, tenant, audit.PlanStarter); err != nil {
		t.Fatal(err)
	}
	res = send(ev(3, now.AddDate(0, 0, -100)), ev(4, now.AddDate(0, 0, -10)))
	if it := res.Items[0]; it.Status != "rejected" || !strings.Contains(it.Errors[0].Message, "30-day retention") {
		t.Fatalf("an event of 100 days ago after the plan went down to starter: %+v", it)
	}
	if res.Items[1].Status != "accepted" || res.Accepted != 1 || res.Rejected != 1 {
		t.Fatalf("an event of 10 days ago on starter: %+v", res)
	}
	visible()
	if _, err := r.GetEvent(ctx, tenant, res.Items[1].ID); err != nil {
		t.Fatalf("the accepted event is not readable: %v", err)
	}
}
