package ocsf_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/ocsf"
)

// docsTable reads the occurrence table of docs/streams.md: occurrence →
// "class (uid)|activity".
func docsTable(t *testing.T) map[string][2]string {
	t.Helper()
	raw, err := os.ReadFile("../docs/streams.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(raw)
	i := strings.Index(sec, "| Occurrence | OCSF class | Activity |")
	if i < 0 {
		t.Fatal("docs/streams.md has no OCSF table")
	}
	rows := map[string][2]string{}
	for _, line := range strings.Split(sec[i:], "\n")[2:] {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 {
			break
		}
		rows[cells[0]] = [2]string{cells[1], cells[2]}
	}
	return rows
}

// Each occurrence of the catalog maps to the class and activity the
// documented table says, and the table has a row for each (and no other).
func TestMappingIsTheDocumentedTable(t *testing.T) {
	rows := docsTable(t)
	if len(rows) != len(audit.Catalog) {
		t.Errorf("the table has %d rows, the catalog %d occurrences", len(rows), len(audit.Catalog))
	}
	for _, c := range audit.Catalog {
		e := audit.Event{Action: c.Action, Resource: audit.Resource{Type: c.ResourceType, ID: "r1"}, Outcome: c.Outcome}
		got := ocsf.Classify(e)
		row, ok := rows[c.Occurrence]
		if !ok {
			t.Errorf("%q: no row in docs/streams.md", c.Occurrence)
			continue
		}
		if want := fmt.Sprintf("%s (%d)", got.ClassName, got.Class); row[0] != want {
			t.Errorf("%q: the table says %s, the code %s", c.Occurrence, row[0], want)
		}
		if want := fmt.Sprintf("%s (%d)", got.ActivityName, got.Activity); !strings.HasPrefix(row[1], want) && !strings.HasPrefix(row[1], fmt.Sprintf("Other (99), named %q", got.ActivityName)) {
			t.Errorf("%q: the table says %s, the code %s", c.Occurrence, row[1], want)
		}
		if c.Outcome == audit.OutcomeFailure != strings.Contains(row[1], "status Failure") {
			t.Errorf("%q: the table's status does not match the outcome %q", c.Occurrence, c.Outcome)
		}
	}
}

// Each field of an event lands where the field table of docs/streams.md
// says; what OCSF has no place for is in unmapped, so nothing is lost.
func TestEveryFieldLandsWhereTheTableSays(t *testing.T) {
	ts, _ := audit.ParseTimestamp("2026-11-21T09:30:12.345Z")
	e := audit.Event{
		ID: "evt_1", Timestamp: ts, TenantID: "t-1", RequestID: "req_1", RestoredFrom: "exp_9",
		Actor:  audit.Actor{ID: "u-1", Email: "ops@support.example", Role: audit.RoleSuperadmin, IP: "203.0.113.9", UserAgent: "curl/8"},
		Action: audit.ActionUpdate, Resource: audit.Resource{Type: audit.ResourceQueue, ID: "q-1"},
		Diff:   map[string]audit.Change{"maxWait": {From: json.RawMessage(`30`), To: json.RawMessage(`60`)}},
		Before: json.RawMessage(`{"maxWait":30}`), After: json.RawMessage(`{"maxWait":60}`),
		Category: audit.CategoryCrossTenant, CrossTenant: true, Reason: "Ticket CS-1", Outcome: audit.OutcomeFailure,
	}
	var got map[string]any
	raw, err := ocsf.Encode(e, 41)
	if err != nil || json.Unmarshal(raw, &got) != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"metadata.uid": "evt_1", "metadata.tenant_uid": "t-1", "metadata.sequence": 41.0, "metadata.version": "1.5.0",
		"metadata.correlation_uid": "req_1", "metadata.original_time": "2026-11-21T09:30:12.345Z",
		"time": float64(ts.UnixMilli()), "time_dt": "2026-11-21T09:30:12.345Z",
		"class_uid": 6003.0, "activity_id": 3.0, "type_uid": 600303.0, "status_id": 2.0, "severity_id": 2.0,
		"actor.user.uid": "u-1", "actor.user.email_addr": "ops@support.example", "actor.user.type_id": 99.0, "actor.user.type": "superadmin",
		"src_endpoint.ip": "203.0.113.9", "http_request.user_agent": "curl/8",
		"api.operation": "update queue", "api.request.uid": "req_1",
		"unmapped.category": "cross_tenant", "unmapped.crossTenant": true, "unmapped.reason": "Ticket CS-1",
		"unmapped.restoredFrom": "exp_9", "unmapped.actor.role": "superadmin",
		"message": "Queue modified by the operator team; reason: Ticket CS-1",
	}
	for path, v := range want {
		if g := lookup(got, path); g != v {
			t.Errorf("%s = %v, want %v", path, g, v)
		}
	}
	res := got["resources"].([]any)[0].(map[string]any)
	if res["uid"] != "q-1" || res["type"] != "queue" {
		t.Errorf("resources = %v", got["resources"])
	}
	u := got["unmapped"].(map[string]any)
	for _, k := range []string{"diff", "before", "after"} {
		if u[k] == nil {
			t.Errorf("unmapped lacks %s: %v", k, u)
		}
	}
	if fmt.Sprint(u["after"]) != "map[maxWait:60]" {
		t.Errorf("unmapped.after = %v", u["after"])
	}
}

// lookup follows a dotted path, taking a key with a dot in it whole when
// there is one (unmapped["actor.role"]).
func lookup(m map[string]any, path string) any {
	if v, ok := m[path]; ok {
		return v
	}
	head, rest, ok := strings.Cut(path, ".")
	sub, isMap := m[head].(map[string]any)
	if !ok || !isMap {
		return nil
	}
	return lookup(sub, rest)
}
