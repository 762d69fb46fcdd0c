package elasticsearch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/mappings"
)

// TestBootstrapUpgradesExistingStreams: a stream created under an older
// mapping (here: without restoredFrom, as before version 2) refuses an
// event with the new field, since the mapping is strict; the next
// Bootstrap puts the current mapping on it and the event is stored.
func TestBootstrapUpgradesExistingStreams(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanPro})
	ctx := context.Background()
	// The template as an older version installed it.
	putOlderTemplate(t, s, audit.PlanPro, func(props map[string]any) { delete(props, "restoredFrom") })
	g := gen.New(gen.Config{Seed: 5, Tenants: 1, WithIDs: true}, 2)
	old := g.Next()
	write := func(e audit.Event) audit.WriteResult {
		res, err := s.WriteEvents(ctx, []audit.Event{e})
		if err != nil || len(res) != 1 {
			t.Fatalf("%v %v", res, err)
		}
		return res[0]
	}
	if r := write(old); r.Status != audit.WriteCreated {
		t.Fatalf("old event: %+v", r)
	}
	restored := g.Next()
	restored.Action, restored.RestoredFrom = audit.ActionUpdate, "9b0c1d2e-3f4a-5b5c-8d6e-7f8091a2b3c4"
	if r := write(restored); r.Status != audit.WriteRejected {
		t.Fatalf("a new field on the old mapping: %+v, want rejected (the mapping is strict)", r)
	}
	if err := s.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	if r := write(restored); r.Status != audit.WriteCreated {
		t.Fatalf("after the upgrade: %+v", r)
	}
	refresh(t, s, s.TenantPattern(restored.TenantID))
	got, err := s.GetEvent(ctx, restored.TenantID, restored.ID)
	if err != nil || got.RestoredFrom != restored.RestoredFrom {
		t.Fatalf("%+v %v", got, err)
	}
}

// TestOlderDocumentsComeToTheWordModel (issue 56): a document written
// under mapping version 5 (no text; its texts copied into search, which
// Elasticsearch's standard analysis splits) is still found after the
// upgrade, by the old analysis: a word yes, an unaccented "jose" for
// "José" no. The next lifecycle pass writes it again from its event, and
// then the word model finds it as it finds a new one.
func TestOlderDocumentsComeToTheWordModel(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanPro})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 9, Tenants: 1, WithIDs: true}, 2)
	fresh, old := g.Next(), g.Next()
	if res, err := s.WriteEvents(ctx, []audit.Event{fresh}); err != nil || res[0].Status != audit.WriteCreated {
		t.Fatalf("%v %v", res, err)
	}
	// The stream as version 5 mapped it: texts copied into search.
	var tmpl map[string]any
	if err := json.Unmarshal(s.TemplateBody(audit.PlanPro), &tmpl); err != nil {
		t.Fatal(err)
	}
	props := tmpl["template"].(map[string]any)["mappings"].(map[string]any)["properties"].(map[string]any)
	copyTo := func(p map[string]any, name string) { p[name].(map[string]any)["copy_to"] = "search" }
	for _, name := range []string{"changedFields", "reasonText", "values", "words"} {
		copyTo(props, name)
	}
	copyTo(props["actor"].(map[string]any)["properties"].(map[string]any), "email")
	copyTo(props["actor"].(map[string]any)["properties"].(map[string]any), "userAgent")
	copyTo(props["resource"].(map[string]any)["properties"].(map[string]any), "id")
	stream := s.StreamName(audit.PlanPro, fresh.TenantID)
	if err := s.Client().DoJSON(ctx, http.MethodPut, "/"+stream+"/_mapping", map[string]any{"properties": props}, nil); err != nil {
		t.Fatal(err)
	}
	old.TenantID, old.Reason, old.Actor.UserAgent = fresh.TenantID, "Préférence de José", "Product/4.12.1"
	old.Normalize()
	res, err := s.Client().Do(ctx, http.MethodPut, "/"+stream+"/_create/"+old.ID+"?refresh=true", elasticsearch.OldDocument(&old))
	if err != nil || res.Status != http.StatusCreated {
		t.Fatalf("%v %v %s", res.Status, err, res.Body)
	}
	if err := s.Bootstrap(ctx); err != nil { // the upgrade: version 6's mapping on the stream
		t.Fatal(err)
	}
	finds := func(q string) bool {
		text, terms, err := search.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: old.TenantID, Q: text, Terms: terms, EventIDs: []string{old.ID}},
			Sort: audit.DefaultSort, PageSize: 10, Page: 1})
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Events) == 1
	}
	if !finds("José") || !finds(`"Product/4.12.1"`) || finds("jose") || finds("4.12") {
		t.Fatalf("before the pass, the old analysis: José %v, Product/4.12.1 %v, jose %v (want false), 4.12 %v (want false)",
			finds("José"), finds(`"Product/4.12.1"`), finds("jose"), finds("4.12"))
	}
	rep, err := s.RunLifecycle(ctx)
	if err != nil || rep.Reanalyzed != 1 {
		t.Fatalf("the pass reanalyzed %d documents (want the old one): %v", rep.Reanalyzed, err)
	}
	refresh(t, s, stream)
	for _, q := range []string{"José", "jose", "preference", "4.12", `"product 4 12"`, "reason:jose"} {
		if !finds(q) {
			t.Errorf("after the pass, %q does not find the event", q)
		}
	}
	if rep, err := s.RunLifecycle(ctx); err != nil || rep.Reanalyzed != 0 {
		t.Fatalf("the next pass reanalyzed %d documents: %v", rep.Reanalyzed, err)
	}
}

// TestStreamsMadeWithDocValuesKeepThem (issue 58): resource.id and
// requestId lost their doc values. A stream made before keeps them: the
// current mapping put on it whole is refused (a doc_values change), so
// Bootstrap puts it without those fields, and the stream takes and finds
// events by both as before. A stream made after has none.
func TestStreamsMadeWithDocValuesKeepThem(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanPro})
	ctx := context.Background()
	putOlderTemplate(t, s, audit.PlanPro, func(props map[string]any) {
		delete(props["resource"].(map[string]any)["properties"].(map[string]any)["id"].(map[string]any), "doc_values")
		delete(props["requestId"].(map[string]any), "doc_values")
	})
	g := gen.New(gen.Config{Seed: 58, Tenants: 1, WithIDs: true}, 3)
	before, after := g.Next(), g.Next()
	before.RequestID, after.RequestID = "req-before-58", "req-after-58"
	write := func(e audit.Event) {
		t.Helper()
		if res, err := s.WriteEvents(ctx, []audit.Event{e}); err != nil || res[0].Status != audit.WriteCreated {
			t.Fatalf("%v %v", res, err)
		}
	}
	write(before)
	stream := s.StreamName(audit.PlanPro, before.TenantID)
	if hasDocValues(t, s, stream) != true {
		t.Fatal("the stream made under the older template has no doc values on resource.id")
	}
	// What Bootstrap did before: the whole mapping, refused.
	if err := s.Client().DoJSON(ctx, http.MethodPut, "/"+stream+"/_mapping", mappings.Events(), nil); err == nil || !strings.Contains(err.Error(), "doc_values") {
		t.Fatalf("the whole current mapping on the older stream: %v, want a refused doc_values change", err)
	}
	if err := s.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	write(after)
	refresh(t, s, stream)
	for _, e := range []audit.Event{before, after} {
		byResource, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: e.TenantID, ResourceID: e.Resource.ID}, Sort: audit.DefaultSort, PageSize: 10, Page: 1})
		if err != nil || !containsID(byResource.Events, e.ID) {
			t.Fatalf("%s by its resource id: %v %v", e.ID, byResource.Events, err)
		}
		text, terms, err := search.Parse("request:" + e.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		byRequest, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: e.TenantID, Q: text, Terms: terms}, Sort: audit.DefaultSort, PageSize: 10, Page: 1})
		if err != nil || len(byRequest.Events) != 1 || byRequest.Events[0].ID != e.ID {
			t.Fatalf("%s by its request id: %v %v", e.ID, byRequest.Events, err)
		}
	}
	// A stream made now (another plan's) has none.
	other := g.Next()
	if err := s.SetPlan(ctx, other.TenantID, audit.PlanStarter); err != nil {
		t.Fatal(err)
	}
	write(other)
	if hasDocValues(t, s, s.StreamName(audit.PlanStarter, other.TenantID)) != false {
		t.Fatal("a stream made from the current template has doc values on resource.id")
	}
}

// hasDocValues says whether the backing indices of stream keep doc
// values for resource.id (Elasticsearch's default, unless the mapping says
// "doc_values": false).
func hasDocValues(t *testing.T, s *elasticsearch.Store, stream string) bool {
	t.Helper()
	var out map[string]struct {
		Mappings map[string]struct {
			Mapping map[string]map[string]any `json:"mapping"`
		} `json:"mappings"`
	}
	if err := s.Client().DoJSON(context.Background(), http.MethodGet, "/"+stream+"/_mapping/field/resource.id", nil, &out); err != nil || len(out) == 0 {
		t.Fatalf("the mapping of %s: %v", stream, err)
	}
	for _, ix := range out {
		if dv, ok := ix.Mappings["resource.id"].Mapping["id"]["doc_values"]; ok {
			return dv != false
		}
	}
	return true
}

func containsID(events []audit.Event, id string) bool {
	for _, e := range events {
		if e.ID == id {
			return true
		}
	}
	return false
}

// putOlderTemplate installs plan's template as an earlier version did:
// the current one, its mapping's properties changed by older.
func putOlderTemplate(t *testing.T, s *elasticsearch.Store, plan audit.Plan, older func(props map[string]any)) {
	t.Helper()
	var tmpl map[string]any
	if err := json.Unmarshal(s.TemplateBody(plan), &tmpl); err != nil {
		t.Fatal(err)
	}
	older(tmpl["template"].(map[string]any)["mappings"].(map[string]any)["properties"].(map[string]any))
	if err := s.Client().DoJSON(context.Background(), http.MethodPut, "/_index_template/"+s.TemplateName(plan), tmpl, nil); err != nil {
		t.Fatal(err)
	}
}
