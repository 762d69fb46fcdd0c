package elasticsearch_test

import (
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/internal/testkit/golden"
)

const tenantX = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

// TestSearchBodiesGolden pins the query bodies sent to Elasticsearch
// (AUDITLOG_UPDATE_GOLDEN=1 rewrites them).
func TestSearchBodiesGolden(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	yes := true
	f := audit.Filter{TenantID: tenantX, From: &from, Actions: []audit.Action{"delete"}, ResourceTypes: []string{"queue"}, CrossTenant: &yes, Q: "ana*"}
	s := audit.Sort{Field: audit.SortActorEmail}
	bodies := map[string]any{
		"spec_deleted_queues":    elasticsearch.SearchBody(audit.Query{Filter: audit.Filter{TenantID: tenantX, Actions: []audit.Action{"delete"}, ResourceTypes: []string{"queue"}}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}, 0, 50),
		"filtered_sorted_page_3": elasticsearch.SearchBody(audit.Query{Filter: f, Sort: s, PageSize: 20, Page: 3}, 40, 20),
		"cursor": elasticsearch.SearchBody(audit.Query{Filter: audit.Filter{TenantID: tenantX}, Sort: audit.DefaultSort, PageSize: 100,
			After: &audit.Position{Millis: 1795253412345, ID: "evt_audit_019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f"}}, 0, 101),
		// A cursor from the API carries its walk's total: no count, and a
		// timestamp bound that seeks along the index sort.
		"cursor_counted": elasticsearch.SearchBody(audit.Query{Filter: audit.Filter{TenantID: tenantX}, Sort: audit.DefaultSort, PageSize: 100,
			After:   &audit.Position{Millis: 1795253412345, ID: "evt_audit_019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f"},
			Counted: &audit.Total{Value: 10000, Relation: "gte"}}, 0, 101),
		"cursor_counted_by_email": elasticsearch.SearchBody(audit.Query{Filter: audit.Filter{TenantID: tenantX}, Sort: s, PageSize: 100,
			After:   &audit.Position{Key: "ana@acme.example", ID: "evt_audit_019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f"},
			Counted: &audit.Total{Value: 420, Relation: "eq"}}, 0, 101),
		"stats": elasticsearch.StatsBody(stats.Query{Filter: audit.Filter{TenantID: tenantX, From: &from, To: func() *time.Time { t := from.Add(48 * time.Hour); return &t }()},
			GroupBy: stats.GroupAction, Interval: time.Hour, MaxGroups: 50}),
	}
	for name, b := range bodies {
		golden.AssertJSON(t, "testdata/query_"+name+".golden.json", b)
	}
}
