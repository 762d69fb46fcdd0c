package main

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
)

// filterQueries (issue 45) are the filters the panel offers, each alone,
// and the spec's two typical queries, sorted by time and by user: a
// first page of 50 with its total, as the panel asks. The resource id and
// the user are those of the tenant's newest event; the date range is the
// panel's default, the last 7 days before that event.
func filterQueries(ctx context.Context, r audit.EventReader, tenant string) ([]measuredQuery, error) {
	newest, err := r.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, PageSize: 1, Page: 1})
	if err != nil || len(newest.Events) == 0 {
		return nil, fmt.Errorf("the newest event of %s: %v", tenant, err)
	}
	e := newest.Events[0]
	week := e.Timestamp.Add(-7 * 24 * time.Hour)
	yes := true
	type filter struct {
		name, query string
		set         func(*audit.Filter)
	}
	filters := []filter{
		{"the spec's deletions of queues", "action=delete&resourceType=queue", func(f *audit.Filter) {
			f.Actions, f.ResourceTypes = []audit.Action{audit.ActionDelete}, []string{"queue"}
		}},
		{"the spec's accesses to recordings", "action=access&resourceType=recording", func(f *audit.Filter) {
			f.Actions, f.ResourceTypes = []audit.Action{audit.ActionAccess}, []string{"recording"}
		}},
		{"action", "action=update", func(f *audit.Filter) { f.Actions = []audit.Action{audit.ActionUpdate} }},
		{"resource kind", "resourceType=ivr", func(f *audit.Filter) { f.ResourceTypes = []string{"ivr"} }},
		{"resource id", "resourceId=" + url.QueryEscape(e.Resource.ID), func(f *audit.Filter) { f.ResourceID = e.Resource.ID }},
		{"user", "actorEmail=" + url.QueryEscape(e.Actor.Email), func(f *audit.Filter) { f.ActorEmail = e.Actor.Email }},
		{"cross-tenant", "crossTenant=true", func(f *audit.Filter) { f.CrossTenant = &yes }},
		{"outcome", "outcome=failure", func(f *audit.Filter) { f.Outcome = audit.OutcomeFailure }},
		{"category", "category=security", func(f *audit.Filter) { f.Category = audit.CategorySecurity }},
		{"date range", "from=" + url.QueryEscape(week.Format(time.RFC3339Nano)), func(f *audit.Filter) { f.From = &week }},
	}
	var out []measuredQuery
	for _, x := range filters {
		for _, s := range []struct {
			name, param string
			sort        audit.Sort
		}{{"by time", "", audit.DefaultSort}, {"by user", "&sort=actor.email", audit.Sort{Field: audit.SortActorEmail}}} {
			f := audit.Filter{TenantID: tenant}
			x.set(&f)
			f.Normalize()
			shown := x.query
			if x.name == "date range" {
				// Named without its date, which follows the data: a row
				// named by it was a new row at every run.
				shown = "from=the newest event less 7 days"
			}
			out = append(out, measuredQuery{fmt.Sprintf("filter: %s (%s), %s", x.name, shown, s.name), "/api/audit-logs?" + x.query + s.param,
				elasticsearch.SearchBody(audit.Query{Filter: f, Sort: s.sort, PageSize: 50, Page: 1}, 0, 50)})
		}
	}
	return out, nil
}
