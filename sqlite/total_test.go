package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/sqlite"
)

// TestListTotalsCountTheMatches (issue 45): a list's total, which the
// hourly rollups answer for the filters they hold (whole hours, plus the
// events of the partial hours at the window's edges), is the number of
// generated events that match, counted here from the events themselves:
// for each filter the panel offers, over the whole tenant and over
// windows whose edges fall inside hours; and every page of a sort by
// user or by time holds the matching events in order (the walk
// sortHint chooses: the tenant holds more than walkAbove events).
func TestListTotalsCountTheMatches(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := gen.New(gen.Config{Seed: 45, Tenants: 2, WithIDs: true}, 12000)
	var events []audit.Event
	for range 12000 {
		events = append(events, g.Next())
	}
	storetest.Write(t, s, events)
	tenant := g.Tenants()[0].ID
	yes, no := true, false
	from, to := time.Date(2026, 11, 3, 7, 13, 5, 0, time.UTC), time.Date(2026, 11, 17, 22, 41, 0, 0, time.UTC)
	email := ""
	for _, e := range events {
		if e.TenantID == tenant {
			email = strings.ToLower(e.Actor.Email)
			break
		}
	}
	filters := map[string]audit.Filter{
		"none":           {},
		"delete+queue":   {Actions: []audit.Action{audit.ActionDelete}, ResourceTypes: []string{"queue"}},
		"two actions":    {Actions: []audit.Action{audit.ActionAccess, audit.ActionUpdate}},
		"cross-tenant":   {CrossTenant: &yes},
		"not cross":      {CrossTenant: &no},
		"failure":        {Outcome: audit.OutcomeFailure},
		"success":        {Outcome: audit.OutcomeSuccess},
		"category":       {Category: audit.CategorySecurity},
		"user":           {ActorEmail: email},
		"user, a window": {ActorEmail: email, From: &from, To: &to},
		"a window":       {From: &from, To: &to},
		"from":           {From: &from},
		"to, queue":      {To: &to, ResourceTypes: []string{"queue"}},
		"within an hour": {From: &from, To: ptr(from.Add(40 * time.Minute))},
	}
	for name, f := range filters {
		f.TenantID = tenant
		var want []audit.Event
		for _, e := range events {
			if matches(f, e) {
				want = append(want, e)
			}
		}
		for _, sort := range []audit.Sort{audit.DefaultSort, {Field: audit.SortActorEmail}} {
			res, err := s.SearchEvents(ctx, audit.Query{Filter: f, Sort: sort, PageSize: 50, Page: 1})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res.Total.Value != int64(len(want)) || res.Total.Relation != audit.TotalExact {
				t.Errorf("%s, sorted by %s: total %d (%s), the events make %d", name, sort.Field, res.Total.Value, res.Total.Relation, len(want))
			}
			if n := min(50, len(want)); len(res.Events) != n {
				t.Errorf("%s, sorted by %s: a page of %d, want %d", name, sort.Field, len(res.Events), n)
			}
			for i := 1; i < len(res.Events); i++ {
				if a, b := audit.PositionOf(&res.Events[i-1], sort), audit.PositionOf(&res.Events[i], sort); !before(a, b, sort) {
					t.Errorf("%s, sorted by %s: %+v then %+v", name, sort.Field, a, b)
				}
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// matches is the filter's meaning, from the event's fields alone.
func matches(f audit.Filter, e audit.Event) bool {
	in := func(v string, set []string) bool {
		if len(set) == 0 {
			return true
		}
		for _, s := range set {
			if s == v {
				return true
			}
		}
		return false
	}
	actions := make([]string, len(f.Actions))
	for i, a := range f.Actions {
		actions[i] = string(a)
	}
	return e.TenantID == f.TenantID && in(string(e.Action), actions) && in(e.Resource.Type, f.ResourceTypes) &&
		(f.CrossTenant == nil || *f.CrossTenant == e.CrossTenant) && (f.Outcome == "" || f.Outcome == e.Outcome) &&
		(f.Category == "" || f.Category == e.Category) && (f.ActorEmail == "" || f.ActorEmail == strings.ToLower(e.Actor.Email)) &&
		(f.From == nil || !e.Timestamp.Before(*f.From)) && (f.To == nil || e.Timestamp.Before(*f.To))
}

// before reports whether a comes before b in sort (ascending by key and
// id; descending when sort says).
func before(a, b audit.Position, sort audit.Sort) bool {
	ka, kb := a.Key, b.Key
	if sort.Field == audit.SortTimestamp {
		if a.Millis != b.Millis {
			return (a.Millis < b.Millis) != sort.Desc
		}
	} else if ka != kb {
		return (ka < kb) != sort.Desc
	}
	return (a.ID < b.ID) != sort.Desc
}
