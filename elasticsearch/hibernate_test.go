package elasticsearch_test

import (
	"context"
	"github.com/auditlog/auditlog/audit/retention"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/ilm"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

// TestLifecycleHibernatesExpiredStreams: the streams whose data has all
// expired, an idle tenant's, a departed one's (gone from the directory)
// and the one a plan change left behind, are
// left with no open shard by a lifecycle pass; a live tenant's stream is
// untouched; a hibernated stream takes a new event (retried once, never
// rejected), which is then shown, and the next pass deletes the old,
// reopened index.
func TestLifecycleHibernatesExpiredStreams(t *testing.T) {
	short := map[audit.Plan]ilm.Policy{}
	for _, plan := range audit.Plans {
		p, _ := ilm.For(plan)
		p.RolloverMaxAge = "0ms"
		short[plan] = p
	}
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanStarter, Policies: short, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	now := time.Now()
	day := 24 * time.Hour
	g := gen.New(gen.Config{Seed: 18, Tenants: 4, WithIDs: true}, 50)
	idle, changer, live, departed := &g.Tenants()[0], &g.Tenants()[1], &g.Tenants()[2], &g.Tenants()[3]
	write := func(tn *gen.Tenant, age time.Duration, n int) []audit.WriteResult {
		t.Helper()
		evs := make([]audit.Event, n)
		for i := range evs {
			evs[i] = g.NextFor(tn, now.Add(-age).Add(time.Duration(i)*time.Second))
			evs[i].ID = audit.NewID()
		}
		res, err := s.WriteEvents(ctx, evs)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	mustCreate := func(res []audit.WriteResult) {
		t.Helper()
		for _, r := range res {
			if r.Status != audit.WriteCreated {
				t.Fatalf("write: %+v", r)
			}
		}
	}
	// The plan changes are long past: their records, in the streams of
	// the plans they left, have expired too.
	changePlanAt := func(tn *gen.Tenant, plan audit.Plan, at time.Time) {
		t.Helper()
		if err := retention.ChangePlan(ctx, s, s, tn.ID, plan, audit.PlanStarter, at); err != nil {
			t.Fatal(err)
		}
	}
	changePlanAt(changer, audit.PlanEnterprise, now.Add(-100*day))
	mustCreate(write(idle, 40*day, 3))
	mustCreate(write(changer, 100*day, 3))
	mustCreate(write(live, 2*day, 3))
	// A departed tenant: its Pro events are past Pro's year, and it is no
	// longer in the directory; its stream's name keeps its plan.
	changePlanAt(departed, audit.PlanPro, now.Add(-400*day))
	mustCreate(write(departed, 400*day, 2))
	if err := s.Client().DoJSON(ctx, http.MethodDelete, "/"+s.TenantsIndex()+"/_doc/"+strings.ToLower(departed.ID)+"?refresh=true", nil, nil); err != nil {
		t.Fatal(err)
	}
	changePlanAt(changer, audit.PlanStarter, now.Add(-50*day))
	mustCreate(write(changer, time.Hour, 2)) // into its new plan's stream
	left := s.StreamName(audit.PlanEnterprise, changer.ID)
	rep, err := s.RunLifecycle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The departed tenant's plan change record went to the default plan's
	// stream it had then: expired as well, hibernated.
	want := []string{s.StreamName(audit.PlanStarter, idle.ID), left, s.StreamName(audit.PlanPro, departed.ID), s.StreamName(audit.PlanStarter, departed.ID)}
	slices.Sort(want)
	if got := slices.Sorted(slices.Values(rep.Hibernated)); !slices.Equal(got, want) {
		t.Fatalf("hibernated %v, want %v", got, want)
	}
	for _, name := range want {
		if n, _ := openShards(t, s, name); n != 0 {
			t.Fatalf("hibernated stream %s keeps %d open shards", name, n)
		}
	}
	for _, name := range []string{s.StreamName(audit.PlanStarter, live.ID), s.StreamName(audit.PlanStarter, changer.ID)} {
		if n, _ := openShards(t, s, name); n == 0 {
			t.Fatalf("live stream %s was closed", name)
		}
	}
	if n := countEvents(t, s, s.TenantPattern(live.ID)); n != 3 {
		t.Fatalf("the live tenant has %d of its 3 events", n)
	}
	if n := countEvents(t, s, s.TenantPattern(changer.ID)); n != 2 {
		t.Fatalf("the tenant that changed plan has %d events, want its 2 recent ones", n)
	}
	if rep, err = s.RunLifecycle(ctx); err != nil || rep.Hibernating != 4 || len(rep.Hibernated) != 0 {
		t.Fatalf("second pass: %+v %v, want the four streams found hibernating", rep, err)
	}
	// The idle tenant comes back.
	res := write(idle, time.Minute, 1)
	if res[0].Status != audit.WriteRetry {
		t.Fatalf("the first write to a hibernated stream: %+v, want a retry", res[0])
	}
	mustCreate(write(idle, time.Minute, 1))
	q := audit.Query{Filter: audit.Filter{TenantID: idle.ID}, Sort: audit.DefaultSort, PageSize: 10, Page: 1, Fresh: true}
	if r, err := s.SearchEvents(ctx, q); err != nil || len(r.Events) != 1 {
		t.Fatalf("the woken stream shows %+v (%v), want its new event", r.Events, err)
	}
	if rep, err = s.RunLifecycle(ctx); err != nil || len(rep.Reopened) != 1 || len(rep.Deleted) != 1 {
		t.Fatalf("pass after the wake-up: %+v %v, want the closed index reopened and deleted", rep, err)
	}
	if n, closed := openShards(t, s, s.StreamName(audit.PlanStarter, idle.ID)); n == 0 || closed != 0 {
		t.Fatalf("the woken stream has %d open and %d closed indices, want no closed one", n, closed)
	}
	if n := countEvents(t, s, s.TenantPattern(idle.ID)); n != 1 {
		t.Fatalf("the woken stream holds %d events, want 1", n)
	}
}

// openShards counts the open backing indices (one shard each) of a
// stream, and its closed ones.
func openShards(t *testing.T, s *elasticsearch.Store, name string) (open, closed int) {
	t.Helper()
	var out struct {
		Indices []struct {
			Attributes []string `json:"attributes"`
		} `json:"indices"`
	}
	if err := s.Client().DoJSON(context.Background(), http.MethodGet, "/_resolve/index/.ds-"+name+"-*?expand_wildcards=all", nil, &out); err != nil {
		t.Fatal(err)
	}
	for _, ix := range out.Indices {
		if slices.Contains(ix.Attributes, "closed") {
			closed++
		} else {
			open++
		}
	}
	return open, closed
}

// TestLifecycleRollsOverByTheStoreClock: with the store's clock moved on
// (as the tenancy benchmark does), a write index first seen a rollover
// max_age ago is rolled over, one seen less long ago is not.
func TestLifecycleRollsOverByTheStoreClock(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanStarter, Now: clock, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 184, Tenants: 1, WithIDs: true}, 10)
	tn := &g.Tenants()[0]
	pol, _ := ilm.For(audit.PlanStarter)
	maxAge, err := ilm.ParseDuration(pol.RolloverMaxAge)
	if err != nil || maxAge <= time.Hour {
		t.Fatalf("starter rollover max_age %q", pol.RolloverMaxAge)
	}
	storetest.Write(t, s, []audit.Event{g.NextFor(tn, now)})
	pass := func() elasticsearch.LifecycleReport {
		t.Helper()
		rep, err := s.RunLifecycle(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := pass(); len(rep.RolledOver) != 0 {
		t.Fatalf("first pass rolled over %v", rep.RolledOver)
	}
	now = now.Add(maxAge - time.Hour)
	storetest.Write(t, s, []audit.Event{g.NextFor(tn, now)})
	if rep := pass(); len(rep.RolledOver) != 0 {
		t.Fatalf("a pass before max_age rolled over %v", rep.RolledOver)
	}
	now = now.Add(2 * time.Hour)
	storetest.Write(t, s, []audit.Event{g.NextFor(tn, now)})
	if rep := pass(); !slices.Equal(rep.RolledOver, []string{s.StreamName(audit.PlanStarter, tn.ID)}) {
		t.Fatalf("a pass past max_age rolled over %v", rep.RolledOver)
	}
}
