package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/history"
	"net/url"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
)

// historyVersions is how many versions the measured resource has.
const historyVersions = 1000

// versionedResource is one recording policy with historyVersions
// versions, written among the generated events: its id and its events'
// ids, oldest first.
type versionedResource struct {
	id  string
	ids []string
}

// loadVersions writes a recording policy's life: a creation, then
// updates each changing one nested field and one rule of an array
// matched by id, with before, after and the diff the service computes,
// one a minute up to an hour ago.
func loadVersions(ctx context.Context, w audit.EventWriter, tenant string) (versionedResource, error) {
	res := versionedResource{id: "7d8e9fa0-1b2c-4d3e-8f4a-5b6c7d8e9f0a"}
	state := func(v int) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"retentionDays": 30 + v%335, "storage": map[string]any{"region": "eu", "encryption": map[string]any{"enabled": v%2 == 0}},
			"rules": []any{map[string]any{"id": "r1", "mode": "all"}, map[string]any{"id": "r2", "mode": fmt.Sprintf("m%d", v%7)}}})
		return b
	}
	end := time.Now().Add(-time.Hour).Truncate(time.Minute)
	events := make([]audit.Event, 0, historyVersions)
	for v := 0; v < historyVersions; v++ {
		e := audit.Event{ID: audit.NewID(), Timestamp: audit.NewTimestamp(end.Add(-time.Duration(historyVersions-v) * time.Minute)), TenantID: tenant,
			Actor:  audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "policy.owner@acme.example", Role: audit.RoleAdmin},
			Action: audit.ActionCreate, Resource: audit.Resource{Type: audit.ResourceRecordingPolicy, ID: res.id}, After: state(v)}
		if v > 0 {
			e.Action, e.Before = audit.ActionUpdate, state(v-1)
			diff, err := audit.DeepDiff(e.Before, e.After)
			if err != nil {
				return res, err
			}
			e.Diff = diff
		}
		e.Normalize()
		events = append(events, e)
		res.ids = append(res.ids, e.ID)
	}
	for i := 0; i < len(events); i += 500 {
		out, err := w.WriteEvents(ctx, events[i:min(i+500, len(events))])
		if err != nil {
			return res, err
		}
		for _, r := range out {
			if r.Status != audit.WriteCreated {
				return res, fmt.Errorf("writing the versions: %s %s", r.Status, r.Reason)
			}
		}
	}
	return res, nil
}

// historyQueries are the history and compare requests measured for r.
func historyQueries(tenant string, r versionedResource) []measuredQuery {
	base := "/api/resources/" + audit.ResourceRecordingPolicy + "/" + r.id
	hq := audit.Query{Filter: history.Filter(tenant, audit.ResourceRecordingPolicy, r.id), Sort: audit.DefaultSort, PageSize: 50, Page: 1, NoTotal: true}
	return []measuredQuery{
		{fmt.Sprintf("history of a resource with %d versions (first page)", historyVersions), base + "/history", elasticsearch.SearchBody(hq, 0, 50)},
		{"compare two of its versions", base + "/compare?base=" + url.QueryEscape(r.ids[10]) + "&target=" + url.QueryEscape(r.ids[len(r.ids)-10]), nil},
	}
}
