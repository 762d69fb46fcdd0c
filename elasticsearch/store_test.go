package elasticsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/auditlog/auditlog/internal/testkit/golden"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestTemplateAndPolicyBodiesGolden pins the request bodies sent to
// Elasticsearch (AUDITLOG_UPDATE_GOLDEN=1 rewrites them).
func TestTemplateAndPolicyBodiesGolden(t *testing.T) {
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{"http://127.0.0.1:1"}, IndexPrefix: "auditlog", Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, withILM := range []bool{false, true} {
		s, err := elasticsearch.NewStore(c, elasticsearch.Capabilities{ILM: withILM}, elasticsearch.StoreConfig{Accept: accepttest.Acceptor})
		if err != nil {
			t.Fatal(err)
		}
		for _, plan := range audit.Plans {
			name := fmt.Sprintf("testdata/template_%s.golden.json", plan)
			if withILM {
				name = fmt.Sprintf("testdata/template_%s_ilm.golden.json", plan)
			}
			golden.AssertJSON(t, name, s.TemplateBody(plan))
		}
	}
	for _, plan := range audit.Plans {
		p, err := ilm.For(plan)
		if err != nil {
			t.Fatal(err)
		}
		golden.AssertJSON(t, fmt.Sprintf("testdata/ilm_%s.golden.json", plan), p.Body)
	}
}

func newStore(t *testing.T, cfg elasticsearch.StoreConfig) (*elasticsearch.Store, elasticsearch.Capabilities) {
	t.Helper()
	s, caps := storeOn(t, newClient(t), cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Bootstrap(ctx); err != nil {
		t.Fatalf("bootstrap is not idempotent: %v", err)
	}
	return s, caps
}

// storeOn is a store on c, for the cluster c detects; not bootstrapped.
func storeOn(t *testing.T, c *elasticsearch.Client, cfg elasticsearch.StoreConfig) (*elasticsearch.Store, elasticsearch.Capabilities) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	caps, err := c.Detect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := elasticsearch.NewStore(c, caps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, caps
}

// changePlan changes a tenant's plan as the service does: the record
// into its log, then the directory (retention.ChangePlan); retention follows
// the plan the log records.
func changePlan(t *testing.T, s *elasticsearch.Store, tenant string, plan audit.Plan) {
	t.Helper()
	if err := retention.ChangePlan(context.Background(), s, s, tenant, plan, audit.PlanEnterprise, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// countEvents counts the events of index but the service's own records
// (plan changes, retention): a tenant's events.
func countEvents(t *testing.T, s *elasticsearch.Store, index string) int {
	t.Helper()
	var out struct{ Count int }
	body := map[string]any{"query": map[string]any{"bool": map[string]any{"must_not": []any{map[string]any{"term": map[string]any{"actor.id": audit.SystemActor.ID}}}}}}
	if err := s.Client().DoJSON(context.Background(), http.MethodPost, "/"+index+"/_count?ignore_unavailable=true&allow_no_indices=true", body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Count
}

func count(t *testing.T, s *elasticsearch.Store, index string) int {
	t.Helper()
	var out struct{ Count int }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Client().DoJSON(ctx, http.MethodGet, "/"+index+"/_count?ignore_unavailable=true&allow_no_indices=true", nil, &out); err != nil {
		t.Fatal(err)
	}
	return out.Count
}

func refresh(t *testing.T, s *elasticsearch.Store, index string) {
	t.Helper()
	if err := s.Client().DoJSON(context.Background(), http.MethodPost, "/"+index+"/_refresh?ignore_unavailable=true&allow_no_indices=true", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestWriteEventsCreatedDuplicateRejected(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanPro})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 1, Tenants: 2, WithIDs: true}, 10)
	events := make([]audit.Event, 10)
	for i := range events {
		events[i] = g.Next()
	}
	res, err := s.WriteEvents(ctx, events)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Status != audit.WriteCreated {
			t.Fatalf("event %d: %v %s", i, r.Status, r.Reason)
		}
	}
	// The same batch again: every event is a duplicate.
	bad := events[0]
	bad.ID = audit.NewID()
	bad.Actor.IP = "not-an-ip" // bypasses validation: Elasticsearch rejects it (mapping)
	res, err = s.WriteEvents(ctx, append(append([]audit.Event{}, events...), bad))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res[:10] {
		if r.Status != audit.WriteDuplicate {
			t.Fatalf("re-written event %d: %v, want duplicate", i, r.Status)
		}
	}
	if r := res[10]; r.Status != audit.WriteRejected || r.Reason == "" {
		t.Fatalf("mapping conflict: %+v, want rejected with a reason", r)
	}
	// Each tenant has its own stream, named by its plan; fields are intact.
	perTenant := map[string][]audit.Event{}
	for _, e := range events {
		perTenant[e.TenantID] = append(perTenant[e.TenantID], e)
	}
	for tenant, evs := range perTenant {
		stream := s.StreamName(audit.PlanPro, tenant)
		refresh(t, s, stream)
		if n := countEvents(t, s, s.TenantPattern(tenant)); n != len(evs) {
			t.Fatalf("tenant %s has %d documents, want %d", tenant, n, len(evs))
		}
		for _, e := range evs {
			var hit struct {
				Hits struct {
					Hits []struct {
						Source json.RawMessage `json:"_source"`
					} `json:"hits"`
				} `json:"hits"`
			}
			if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+stream+"/_search", map[string]any{"query": map[string]any{"term": map[string]any{"id": e.ID}}}, &hit); err != nil {
				t.Fatal(err)
			}
			if len(hit.Hits.Hits) != 1 {
				t.Fatalf("event %s: %d hits", e.ID, len(hit.Hits.Hits))
			}
			got, err := elasticsearch.DecodeSource(hit.Hits.Hits[0].Source)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(e)
			have, _ := json.Marshal(got)
			if string(want) != string(have) {
				t.Fatalf("stored event differs\n got %s\nwant %s", have, want)
			}
		}
	}
}

// TestLifecycleWorkerRetentionAndPlanChange runs the built-in lifecycle
// worker with a short rollover against the real cluster: old data goes,
// recent data stays, and a plan change applies to data already stored.
func TestLifecycleWorkerRetentionAndPlanChange(t *testing.T) {
	short := map[audit.Plan]ilm.Policy{}
	for _, plan := range audit.Plans {
		p, _ := ilm.For(plan)
		p.RolloverMaxAge = "0ms" // roll over at every pass (non-empty write indices only)
		short[plan] = p
	}
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanEnterprise, Policies: short, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	now := time.Now()
	g := gen.New(gen.Config{Seed: 2, Tenants: 2, WithIDs: true}, 100)
	starter, changer := &g.Tenants()[0], &g.Tenants()[1]
	changePlan(t, s, starter.ID, audit.PlanStarter)
	write := func(tn *gen.Tenant, age time.Duration, n int) {
		t.Helper()
		evs := make([]audit.Event, n)
		for i := range evs {
			evs[i] = g.NextFor(tn, now.Add(-age).Add(time.Duration(i)*time.Second))
			evs[i].ID = audit.NewID()
		}
		res, err := s.WriteEvents(ctx, evs)
		if err == nil && res[0].Status == audit.WriteRetry {
			// The stream was hibernated; the write woke it.
			res, err = s.WriteEvents(ctx, evs)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Status != audit.WriteCreated {
				t.Fatalf("write: %+v", r)
			}
		}
		refresh(t, s, s.TenantPattern(tn.ID))
	}
	day := 24 * time.Hour
	write(starter, 40*day, 7) // older than Starter's 30 days
	write(changer, 100*day, 5)
	if _, err := s.RunLifecycle(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countEvents(t, s, s.TenantPattern(starter.ID)); n != 0 {
		t.Fatalf("starter tenant keeps %d events older than 30 days", n)
	}
	if n := countEvents(t, s, s.TenantPattern(changer.ID)); n != 5 {
		t.Fatalf("enterprise tenant has %d of its 5 events of 100 days ago", n)
	}
	write(starter, 2*day, 4) // recent data stays
	if _, err := s.RunLifecycle(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countEvents(t, s, s.TenantPattern(starter.ID)); n != 4 {
		t.Fatalf("starter tenant has %d of its 4 recent events", n)
	}
	// A plan change switches the retention of the data already stored:
	// 100-day-old events outlive neither Starter nor... Pro keeps them.
	changePlan(t, s, changer.ID, audit.PlanPro)
	if _, err := s.RunLifecycle(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countEvents(t, s, s.TenantPattern(changer.ID)); n != 5 {
		t.Fatalf("pro keeps 100-day-old events; %d of 5 left", n)
	}
	changePlan(t, s, changer.ID, audit.PlanStarter)
	if _, err := s.RunLifecycle(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countEvents(t, s, s.TenantPattern(changer.ID)); n != 0 {
		t.Fatalf("after the change to starter, %d events of 100 days ago remain", n)
	}
	if p, err := s.Plan(ctx, changer.ID); err != nil || p != audit.PlanStarter {
		t.Fatalf("plan %s %v", p, err)
	}
}

func TestTenantDirectory(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	tenant := "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b"
	if _, err := s.Plan(ctx, tenant); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("unknown tenant: %v", err)
	}
	// Concurrent first events agree on one plan.
	results := make(chan audit.Plan, 8)
	for i := 0; i < 8; i++ {
		go func(i int) {
			p, err := s.EnsureTenant(ctx, tenant, audit.Plans[i%3])
			if err != nil {
				t.Error(err)
			}
			results <- p
		}(i)
	}
	first := <-results
	for i := 1; i < 8; i++ {
		if p := <-results; p != first {
			t.Fatalf("concurrent EnsureTenant disagree: %s vs %s", p, first)
		}
	}
	if err := s.SetPlan(ctx, tenant, "gold"); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("bad plan: %v", err)
	}
	if err := s.SetPlan(ctx, "acme", audit.PlanPro); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("bad tenant: %v", err)
	}
}

// TestILMPolicyFollowsThePlan needs ILM, which the test build lacks.
func TestILMPolicyFollowsThePlan(t *testing.T) {
	s, caps := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanStarter})
	testenv.RequireFeature(t, caps.ILM, "ILM (x-pack-ilm)")
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true}, 1)
	e := g.Next()
	if _, err := s.WriteEvents(ctx, []audit.Event{e}); err != nil {
		t.Fatal(err)
	}
	policyOf := func() string {
		var out map[string]struct {
			Settings struct {
				Index struct {
					Lifecycle struct {
						Name string `json:"name"`
					} `json:"lifecycle"`
				} `json:"index"`
			} `json:"settings"`
		}
		if err := s.Client().DoJSON(ctx, http.MethodGet, "/"+s.TenantPattern(e.TenantID)+"/_settings", nil, &out); err != nil {
			t.Fatal(err)
		}
		for _, v := range out {
			return v.Settings.Index.Lifecycle.Name
		}
		return ""
	}
	if got := policyOf(); got != s.PolicyName(audit.PlanStarter) {
		t.Fatalf("policy %q, want %q", got, s.PolicyName(audit.PlanStarter))
	}
	if err := s.SetPlan(ctx, e.TenantID, audit.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	if got := policyOf(); got != s.PolicyName(audit.PlanEnterprise) {
		t.Fatalf("after the plan change, policy %q, want %q", got, s.PolicyName(audit.PlanEnterprise))
	}
}

// TestLifecyclePassSurvivesAFailingStream: a stream whose part of the pass
// fails (its write index closed: neither its rollover nor its search can
// run) is named in the report and the error, and the pass still deletes
// the expired data of the streams after it.
func TestLifecyclePassSurvivesAFailingStream(t *testing.T) {
	short := map[audit.Plan]ilm.Policy{}
	for _, plan := range audit.Plans {
		p, _ := ilm.For(plan)
		p.RolloverMaxAge = "0ms"
		short[plan] = p
	}
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanStarter, Policies: short, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	now := time.Now()
	// Streams are handled in name order: the failing tenant's comes first.
	g := gen.New(gen.Config{Seed: 5, Tenants: 1, WithIDs: true}, 20)
	broken, healthy := g.Tenants()[0], g.Tenants()[0]
	broken.ID = "00000000-0000-4000-8000-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)
	healthy.ID = "ffffffff-ffff-4fff-8fff-" + fmt.Sprintf("%012d", time.Now().UnixNano()%1e12)
	for _, tn := range []*gen.Tenant{&broken, &healthy} {
		evs := make([]audit.Event, 5)
		for i := range evs {
			evs[i] = g.NextFor(tn, now.Add(-40*24*time.Hour).Add(time.Duration(i)*time.Second))
			evs[i].ID = audit.NewID()
		}
		if res, err := s.WriteEvents(ctx, evs); err != nil || res[0].Status != audit.WriteCreated {
			t.Fatalf("write: %v %+v", err, res)
		}
		refresh(t, s, s.TenantPattern(tn.ID))
	}
	var streams struct {
		DataStreams []struct {
			Name    string   `json:"name"`
			Indices []string `json:"backing_indices"`
		} `json:"data_streams"`
	}
	if err := s.Client().DoJSON(ctx, http.MethodGet, "/_resolve/index/"+s.TenantPattern(broken.ID), nil, &streams); err != nil || len(streams.DataStreams) != 1 {
		t.Fatalf("the broken tenant's stream: %v %+v", err, streams)
	}
	brokenStream := streams.DataStreams[0]
	// A metadata block makes the stream's rollover (and the deletion of
	// its index) fail, as the shard limit would; searches still work.
	block := func(on bool) error {
		return s.Client().DoJSON(ctx, http.MethodPut, "/"+brokenStream.Indices[0]+"/_settings", map[string]any{"index.blocks.metadata": on}, nil)
	}
	if err := block(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = block(false) })
	rep, err := s.RunLifecycle(ctx)
	if err == nil || !strings.Contains(err.Error(), brokenStream.Name) || !slices.Equal(rep.Failed, []string{brokenStream.Name}) {
		t.Fatalf("report %+v, error %v: want the broken stream named", rep, err)
	}
	if n := countEvents(t, s, s.TenantPattern(healthy.ID)); n != 0 {
		t.Fatalf("the healthy tenant keeps %d events older than its 30 days: the pass stopped at the broken stream", n)
	}
}
