package elasticsearch_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

// visibleIDs is every event id the tenant sees, by list, count and scan,
// which must agree.
func visibleIDs(t *testing.T, s *elasticsearch.Store, tenant string) []string {
	t.Helper()
	ctx := context.Background()
	res, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, PageSize: 1000, Page: 1, Fresh: true})
	if err != nil {
		t.Fatal(err)
	}
	var listed, scanned []string
	for _, e := range res.Events {
		if e.TenantID != tenant {
			t.Fatalf("tenant %s is shown tenant %s's event %s", tenant, e.TenantID, e.ID)
		}
		if e.Actor.ID == audit.SystemActor.ID {
			continue // the service's own records (a plan change's)
		}
		listed = append(listed, e.ID)
	}
	if err := s.ScanEvents(ctx, audit.Filter{TenantID: tenant}, audit.DefaultSort, func(b []audit.Event) error {
		for _, e := range b {
			if e.TenantID != tenant {
				t.Fatalf("tenant %s exports tenant %s's event %s", tenant, e.TenantID, e.ID)
			}
			if e.Actor.ID == audit.SystemActor.ID {
				continue
			}
			scanned = append(scanned, e.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	n, err := s.CountEvents(ctx, audit.Filter{TenantID: tenant})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(scanned)
	system := int64(len(res.Events) - len(listed)) // the service's own records, counted by both
	if !slices.Equal(listed, scanned) || n != int64(len(listed))+system || res.Total.Value != n {
		t.Fatalf("tenant %s: list %d (total %d), scan %d, count %d disagree", tenant, len(listed), res.Total.Value, len(scanned), n)
	}
	return listed
}

// TestLayoutsKeepTenantsApart: two tenants in one shared stream, one
// dedicated, and one promoted half-way, all with the same event ids, each
// see exactly their own events on every read path, and each id's detail
// is their own event.
func TestLayoutsKeepTenantsApart(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanStarter, NewTenants: elasticsearch.LayoutShared, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 181, Tenants: 4, WithIDs: true}, 100)
	ids := make([]string, 20)
	for i := range ids {
		ids[i] = audit.NewID()
	}
	own := map[string][]audit.Event{}
	write := func(tn *gen.Tenant, from, to int) {
		evs := make([]audit.Event, 0, to-from)
		for i := from; i < to; i++ {
			e := g.NextFor(tn, time.Now().Add(-time.Duration(i+1)*time.Hour))
			e.ID = ids[i] // every tenant uses the same ids
			evs = append(evs, e)
		}
		storetest.Write(t, s, evs)
		own[tn.ID] = append(own[tn.ID], evs...)
	}
	shared1, shared2, dedicated, promoted := &g.Tenants()[0], &g.Tenants()[1], &g.Tenants()[2], &g.Tenants()[3]
	for _, tn := range []*gen.Tenant{shared1, shared2, dedicated, promoted} {
		changePlan(t, s, tn.ID, audit.PlanStarter)
	}
	if err := s.Promote(ctx, dedicated.ID); err != nil {
		t.Fatal(err)
	}
	write(shared1, 0, 20)
	write(shared2, 0, 20)
	write(dedicated, 0, 20)
	write(promoted, 0, 10)
	if err := s.Promote(ctx, promoted.ID); err != nil {
		t.Fatal(err)
	}
	write(promoted, 10, 20)
	refresh(t, s, s.AllStreamsPattern())
	if n := countEvents(t, s, s.SharedStreamName(audit.PlanStarter)); n != 50 {
		t.Fatalf("the shared stream holds %d events, want 50 (two tenants' 20 and 10 of the promoted one)", n)
	}
	if n := countEvents(t, s, s.StreamName(audit.PlanStarter, promoted.ID)); n != 10 {
		t.Fatalf("the promoted tenant's stream holds %d events, want its 10 since", n)
	}
	if n := countEvents(t, s, s.StreamName(audit.PlanStarter, shared1.ID)); n != 0 {
		t.Fatalf("a shared tenant has a dedicated stream with %d events", n)
	}
	for tenant, evs := range own {
		want := make([]string, len(evs))
		for i, e := range evs {
			want[i] = e.ID
		}
		slices.Sort(want)
		if got := visibleIDs(t, s, tenant); !slices.Equal(got, want) {
			t.Fatalf("tenant %s sees %d events, want its %d", tenant, len(got), len(want))
		}
		for _, e := range evs {
			got, err := s.GetEvent(ctx, tenant, e.ID)
			if err != nil || got.TenantID != tenant || !audit.SameEvent(&got, &e) {
				t.Fatalf("detail of %s in tenant %s: %v, tenant %s", e.ID, tenant, err, got.TenantID)
			}
		}
		st, err := s.EventStats(ctx, stats.Query{Filter: audit.Filter{TenantID: tenant, HideSystem: true}, GroupBy: stats.GroupAction})
		if err != nil || st.Total != int64(len(evs)) {
			t.Fatalf("stats of tenant %s: %d (%v), want %d", tenant, st.Total, err, len(evs))
		}
	}
	// A redelivery settles as a duplicate in every layout.
	res, err := s.WriteEvents(ctx, []audit.Event{own[shared2.ID][0], own[dedicated.ID][0]})
	if err != nil || res[0].Status != audit.WriteDuplicate || res[1].Status != audit.WriteDuplicate {
		t.Fatalf("redelivery: %+v %v", res, err)
	}
}

// TestPlanChangeMovesSharedData: a shared tenant's plan change copies its
// events within the new retention into the new plan's shared stream; an
// event a writer with a stale cache puts in the former stream afterwards
// is copied by the next lifecycle pass; nothing is shown twice.
func TestPlanChangeMovesSharedData(t *testing.T) {
	s, caps := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanEnterprise, NewTenants: elasticsearch.LayoutShared, TenantCacheTTL: time.Millisecond})
	stale, err := elasticsearch.NewStore(s.Client(), caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanEnterprise, NewTenants: elasticsearch.LayoutShared, TenantCacheTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 182, Tenants: 1, WithIDs: true}, 10)
	tn := &g.Tenants()[0]
	day := 24 * time.Hour
	recent, old := g.NextFor(tn, time.Now().Add(-10*day)), g.NextFor(tn, time.Now().Add(-400*day))
	storetest.Write(t, stale, []audit.Event{recent, old}) // the stale writer caches enterprise
	if got := visibleIDs(t, s, tn.ID); len(got) != 2 {
		t.Fatalf("on enterprise the tenant sees %d of its 2 events", len(got))
	}
	changePlan(t, s, tn.ID, audit.PlanPro)
	if got := visibleIDs(t, s, tn.ID); !slices.Equal(got, []string{recent.ID}) {
		t.Fatalf("on pro the tenant sees %v, want only the event of 10 days ago", got)
	}
	refresh(t, s, s.AllStreamsPattern())
	if n := countEvents(t, s, s.SharedStreamName(audit.PlanPro)); n != 1 {
		t.Fatalf("the pro shared stream holds %d events, want the one copied", n)
	}
	late := g.NextFor(tn, time.Now().Add(-time.Hour))
	storetest.Write(t, stale, []audit.Event{late})
	if got := visibleIDs(t, s, tn.ID); len(got) != 1 {
		t.Fatalf("before the pass the late event is not shown yet: %v", got)
	}
	if _, err := s.RunLifecycle(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{recent.ID, late.ID}
	slices.Sort(want)
	if got := visibleIDs(t, s, tn.ID); !slices.Equal(got, want) {
		t.Fatalf("after the pass the tenant sees %v, want %v", got, want)
	}
	if _, err := s.RunLifecycle(ctx); err != nil { // idempotent
		t.Fatal(err)
	}
	if got := visibleIDs(t, s, tn.ID); len(got) != 2 {
		t.Fatalf("a second pass copied again: %v", got)
	}
}

// TestLifecyclePromotesGrownTenants: a shared tenant past PromoteAbove
// events of the last week is promoted by the pass; its next events go to
// its own stream and all of them stay visible.
func TestLifecyclePromotesGrownTenants(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanPro, NewTenants: elasticsearch.LayoutShared, PromoteAbove: 5, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 183, Tenants: 2, WithIDs: true}, 40)
	big, small := &g.Tenants()[0], &g.Tenants()[1]
	var bigEvents []audit.Event
	for i := 0; i < 8; i++ {
		bigEvents = append(bigEvents, g.NextFor(big, time.Now().Add(-time.Duration(i)*time.Hour)))
	}
	storetest.Write(t, s, append(slices.Clone(bigEvents), g.NextFor(small, time.Now())))
	refresh(t, s, s.AllStreamsPattern())
	rep, err := s.RunLifecycle(ctx)
	if err != nil || !slices.Equal(rep.Promoted, []string{strings.ToLower(big.ID)}) {
		t.Fatalf("promoted %v (%v), want only the big tenant", rep.Promoted, err)
	}
	next := g.NextFor(big, time.Now())
	storetest.Write(t, s, []audit.Event{next})
	refresh(t, s, s.AllStreamsPattern())
	if n := count(t, s, s.StreamName(audit.PlanPro, big.ID)); n != 1 {
		t.Fatalf("the promoted tenant's stream holds %d events, want its newest", n)
	}
	if got := visibleIDs(t, s, big.ID); len(got) != 9 {
		t.Fatalf("the promoted tenant sees %d of its 9 events", len(got))
	}
	var out struct {
		Found bool `json:"found"`
	}
	_ = s.Client().DoJSON(ctx, http.MethodGet, "/"+s.TenantsIndex()+"/_doc/"+strings.ToLower(small.ID), nil, &out)
	if !out.Found {
		t.Fatal("the small tenant is not in the directory")
	}
}
