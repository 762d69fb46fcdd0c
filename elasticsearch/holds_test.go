package elasticsearch_test

import (
	"context"
	"net/http"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/ilm"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

// TestLifecycleKeepsWhatLegalHoldsKeep runs the legal hold scenario
// (issue 55) on both layouts: the pass copies what holds keep into the
// tenant's held index before a backing index goes, deletes it from there
// once released, and honours a hold placed while it runs.
func TestLifecycleKeepsWhatLegalHoldsKeep(t *testing.T) {
	for _, layout := range []elasticsearch.Layout{elasticsearch.LayoutDedicated, elasticsearch.LayoutShared} {
		t.Run(string(layout), func(t *testing.T) { storetest.RunLegalHolds(t, holdBackend(layout)) })
	}
}

func holdBackend(layout elasticsearch.Layout) func(t *testing.T, clock func() time.Time) storetest.HoldBackend {
	return func(t *testing.T, clock func() time.Time) storetest.HoldBackend {
		short := map[audit.Plan]ilm.Policy{}
		for _, plan := range audit.Plans {
			p, _ := ilm.For(plan)
			p.RolloverMaxAge = "0ms" // every pass rolls a written stream over
			short[plan] = p
		}
		s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true, Policies: short, Now: clock,
			TenantCacheTTL: time.Millisecond, NewTenants: layout})
		ctx := context.Background()
		do := func(t testing.TB, method, path string, body any) {
			t.Helper()
			if err := s.Client().DoJSON(ctx, method, path, body, nil); err != nil {
				t.Fatal(err)
			}
		}
		b := storetest.HoldBackend{Store: s,
			Retain: func(t testing.TB) retention.Pass {
				rep, err := s.RunLifecycle(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return rep.Retention
			},
			Visible: func(t testing.TB) {
				do(t, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh?allow_no_indices=true", nil)
			},
			DeleteBehind: func(t testing.TB, tenant, id string) {
				var found struct {
					Hits struct {
						Hits []struct {
							Index string `json:"_index"`
							ID    string `json:"_id"`
						} `json:"hits"`
					} `json:"hits"`
				}
				body := map[string]any{"query": map[string]any{"term": map[string]any{"id": id}}}
				if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.TenantPattern(tenant)+"/_search", body, &found); err != nil || len(found.Hits.Hits) == 0 {
					t.Fatalf("finding %s: %v %+v", id, err, found)
				}
				for _, h := range found.Hits.Hits {
					do(t, http.MethodDelete, "/"+h.Index+"/_doc/"+h.ID+"?refresh=true", nil)
				}
			},
			DuringPass: func(fn func(), at time.Time) {
				elasticsearch.SetAfterScan(s, func(idx string) {
					if countAt(t, s, idx, at) > 0 {
						elasticsearch.SetAfterScan(s, nil)
						fn()
					}
				})
			},
			Cut: func(t testing.TB, tenant string) {
				stream := s.StreamName(audit.PlanStarter, tenant)
				if layout == elasticsearch.LayoutShared {
					stream = s.SharedStreamName(audit.PlanStarter)
				}
				err := s.Client().DoJSON(ctx, http.MethodPost, "/"+stream+"/_rollover", nil, nil)
				if err != nil && audit.ErrorCode(err) != audit.ENOTFOUND { // none yet: nothing to end
					t.Fatal(err)
				}
			},
		}
		return b
	}
}

// countAt counts the documents of idx at the instant at.
func countAt(t testing.TB, s *elasticsearch.Store, idx string, at time.Time) int {
	var out struct{ Count int }
	ts := audit.NewTimestamp(at).String()
	body := map[string]any{"query": map[string]any{"range": map[string]any{"@timestamp": map[string]any{"gte": ts, "lte": ts}}}}
	if err := s.Client().DoJSON(context.Background(), http.MethodPost, "/"+idx+"/_count", body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Count
}

// TestTwoIndicesOfOnePassAreTwoRecords: a pass that retires two backing
// indices of a tenant whose events were never sealed writes a retention
// record for each (they once shared an id, and the second was refused as
// a conflict, failing the pass).
func TestTwoIndicesOfOnePassAreTwoRecords(t *testing.T) {
	now := time.Now()
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true, Now: func() time.Time { return now }, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 561, Tenants: 1, WithIDs: true}, 20)
	tn := &g.Tenants()[0]
	if err := retention.ChangePlan(ctx, s, s, tn.ID, audit.PlanStarter, audit.PlanEnterprise, now); err != nil {
		t.Fatal(err)
	}
	for _, age := range []time.Duration{40, 35} {
		var evs []audit.Event
		for i := range 5 {
			evs = append(evs, g.NextFor(tn, now.Add(-age*24*time.Hour+time.Duration(i)*time.Minute)))
		}
		storetest.Write(t, s, evs)
		if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.StreamName(audit.PlanStarter, tn.ID)+"/_rollover", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := s.RunLifecycle(ctx)
	if err != nil || len(rep.Deleted) != 2 {
		t.Fatalf("the pass: %v, deleted %v", err, rep.Deleted)
	}
	refresh(t, s, s.AllStreamsPattern())
	res, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tn.ID, ResourceTypes: []string{audit.ResourceLogRetention}}, PageSize: 10, Page: 1, Sort: audit.DefaultSort})
	if err != nil || len(res.Events) != 2 {
		t.Fatalf("retention records: %v %+v", err, res.Events)
	}
}

// TestNoTemplateReachesTheHeldIndex: the held index is created with the
// events' mappings and no lifecycle policy, and no index template of the
// store (each carrying its plan's ILM policy where the cluster has ILM)
// matches its name, so ILM, even as the backstop, never deletes what a
// legal hold keeps.
func TestNoTemplateReachesTheHeldIndex(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor})
	var out struct {
		IndexTemplates []struct {
			Name          string `json:"name"`
			IndexTemplate struct {
				IndexPatterns []string `json:"index_patterns"`
			} `json:"index_template"`
		} `json:"index_templates"`
	}
	if err := s.Client().DoJSON(context.Background(), http.MethodGet, "/_index_template", nil, &out); err != nil {
		t.Fatal(err)
	}
	held := s.HeldIndex("4429f145-2208-44c9-8c1b-d3d96514f0c8")
	mine := 0
	for _, tpl := range out.IndexTemplates {
		for _, p := range tpl.IndexTemplate.IndexPatterns {
			if ok, _ := path.Match(p, held); ok {
				t.Fatalf("index template %s (%s) matches the held index %s", tpl.Name, p, held)
			}
			if strings.HasPrefix(held, strings.SplitN(p, "-events-", 2)[0]+"-events-") {
				mine++
			}
		}
	}
	if mine < len(audit.Plans) {
		t.Fatalf("found %d of the store's templates, want one per plan at least", mine)
	}
}

// TestAnEditedReleasedEventIsNamedNotDeleted: the pass over a held index
// reads only what no hold keeps any more; of those, one edited behind the
// service is named (Kept) and nothing of the index is deleted, while
// what the holds keep is counted (Held) without being read.
func TestAnEditedReleasedEventIsNamedNotDeleted(t *testing.T) {
	now := time.Now().UTC()
	clock := func() time.Time { return now }
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true, Now: clock, TenantCacheTTL: time.Millisecond})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 562, Tenants: 1, WithIDs: true}, 20)
	tn := &g.Tenants()[0]
	if err := retention.ChangePlan(ctx, s, s, tn.ID, audit.PlanStarter, audit.PlanEnterprise, now.Add(-50*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	var evs []audit.Event
	for i := range 6 {
		evs = append(evs, g.NextFor(tn, now.Add(-40*24*time.Hour+time.Duration(i)*time.Hour)))
	}
	storetest.Write(t, s, evs)
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.StreamName(audit.PlanStarter, tn.ID)+"/_rollover", nil, nil); err != nil {
		t.Fatal(err)
	}
	counsel := audit.Principal{UserID: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", Email: "counsel@acme.example", Role: hold.Role, TenantID: tn.ID}
	place := func(from, to time.Time) hold.Hold {
		f, u := audit.NewTimestamp(from), audit.NewTimestamp(to)
		h, rec, err := hold.Place(counsel, tn.ID, hold.Request{Matter: "m", Reason: "r", Scope: hold.Scope{From: &f, To: &u}}, now.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		storetest.Write(t, s, []audit.Event{rec})
		return h
	}
	first := place(evs[0].Timestamp.Time, evs[3].Timestamp.Time) // keeps 0, 1, 2
	place(evs[3].Timestamp.Time, evs[6-1].Timestamp.Add(time.Minute))
	pass := func() retention.Pass {
		refresh(t, s, s.AllStreamsPattern())
		rep, err := s.RunLifecycle(ctx)
		if err != nil {
			t.Fatal(err)
		}
		refresh(t, s, s.HeldIndex(tn.ID))
		return rep.Retention
	}
	if p := pass(); p.Held != 6 || len(p.Kept) != 0 || countAt(t, s, s.HeldIndex(tn.ID), evs[1].Timestamp.Time) != 1 {
		t.Fatalf("the first pass: held %d, kept %+v", p.Held, p.Kept)
	}
	edit := map[string]any{"doc": map[string]any{"actor": map[string]any{"ip": "203.0.113.9"}}}
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.HeldIndex(tn.ID)+"/_update/"+evs[1].ID+"?refresh=true", edit, nil); err != nil {
		t.Fatal(err)
	}
	_, rec, err := hold.AskRelease(counsel, first, now.Add(-time.Minute), 0)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Write(t, s, []audit.Event{rec})
	p := pass()
	if len(p.Kept) != 1 || p.Kept[0].EventID != evs[1].ID || p.Held != 3 {
		t.Fatalf("after the release: held %d, kept %+v; want 3 held and %s named", p.Held, p.Kept, evs[1].ID)
	}
	for _, e := range evs {
		if countAt(t, s, s.HeldIndex(tn.ID), e.Timestamp.Time) != 1 {
			t.Fatalf("event %s left the held index although one of its neighbours was edited", e.ID)
		}
	}
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.HeldIndex(tn.ID)+"/_update/"+evs[1].ID+"?refresh=true",
		map[string]any{"doc": map[string]any{"actor": map[string]any{"ip": evs[1].Actor.IP}}}, nil); err != nil {
		t.Fatal(err)
	}
	if p := pass(); len(p.Kept) != 0 || p.Held != 3 || countAt(t, s, s.HeldIndex(tn.ID), evs[1].Timestamp.Time) != 0 ||
		countAt(t, s, s.HeldIndex(tn.ID), evs[4].Timestamp.Time) != 1 {
		t.Fatalf("with the event put back: held %d, kept %+v, or the released events stayed", p.Held, p.Kept)
	}
}
