package sqlite_test

import (
	"context"
	"path/filepath"
	"strconv"
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

// TestRollupTotalsPastTheWindow: the total from the rollups reads at most
// MaxWindow+1 of their rows (and a filter of time alone counts the time
// index, up to as many entries). A tenant whose events fill more hours than
// the window (one event an hour: a rollup row each) is told at least
// 10,000, like one whose events fill one hour (one row counting them
// all), and one with fewer hours than the window and fewer events is told
// its exact count.
func TestRollupTotalsPastTheWindow(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := gen.New(gen.Config{Seed: 58, Tenants: 1, WithIDs: true}, 1)
	proto := g.Next()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		tenant string
		n      int
		step   time.Duration
		want   audit.Total
	}{
		{"0a1b2c3d-0000-4000-8000-000000000001", audit.MaxWindow + 50, time.Hour, audit.Total{Value: audit.MaxWindow, Relation: audit.TotalAtLeast}},
		{"0a1b2c3d-0000-4000-8000-000000000002", audit.MaxWindow + 50, 0, audit.Total{Value: audit.MaxWindow, Relation: audit.TotalAtLeast}},
		{"0a1b2c3d-0000-4000-8000-000000000003", audit.MaxWindow - 1000, time.Hour, audit.Total{Value: audit.MaxWindow - 1000, Relation: audit.TotalExact}},
	}
	for _, c := range cases {
		events := make([]audit.Event, c.n)
		for i := range events {
			e := proto
			e.TenantID = c.tenant
			e.Timestamp = audit.NewTimestamp(start.Add(time.Duration(i) * c.step).Add(time.Duration(i%1000) * time.Millisecond))
			e.ID = audit.DeriveID(e.Timestamp, []byte(c.tenant+strconv.Itoa(i)))
			events[i] = e
		}
		for i := 0; i < len(events); i += 2000 {
			storetest.Write(t, s, events[i:min(i+2000, len(events))])
		}
		from := start.Add(-time.Hour)
		// The action: from the rollups; time alone: from the time index.
		for _, f := range []audit.Filter{{TenantID: c.tenant, From: &from, Actions: []audit.Action{proto.Action}}, {TenantID: c.tenant, From: &from}} {
			res, err := s.SearchEvents(ctx, audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 50, Page: 1})
			if err != nil || res.Total != c.want {
				t.Errorf("%d events %s apart, %d actions: total %+v (%v), want %+v", c.n, c.step, len(f.Actions), res.Total, err, c.want)
			}
		}
	}
}
