package elasticsearch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
)

// TestBootstrapUpgradesExistingStreams: a stream created under an older
// mapping (here: without restoredFrom, as before version 2) refuses an
// event with the new field, since the mapping is strict; the next
// Bootstrap puts the current mapping on it and the event is stored.
func TestBootstrapUpgradesExistingStreams(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanPro})
	ctx := context.Background()
	// The template as an older version installed it.
	var tmpl map[string]any
	if err := json.Unmarshal(s.TemplateBody(audit.PlanPro), &tmpl); err != nil {
		t.Fatal(err)
	}
	props := tmpl["template"].(map[string]any)["mappings"].(map[string]any)["properties"].(map[string]any)
	delete(props, "restoredFrom")
	if err := s.Client().DoJSON(ctx, http.MethodPut, "/_index_template/"+s.TemplateName(audit.PlanPro), tmpl, nil); err != nil {
		t.Fatal(err)
	}
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
