package gen_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

func TestGeneratorIsDeterministicValidAndRealistic(t *testing.T) {
	const n = 20000
	a := gen.New(gen.Config{Seed: 7, Tenants: 50, Skew: 1.1, WithIDs: true}, n)
	b := gen.New(gen.Config{Seed: 7, Tenants: 50, Skew: 1.1, WithIDs: true}, n)
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	perTenant := map[string]int{}
	plans := map[audit.Plan]bool{}
	var failed, operator, beforeAfter int
	ids := map[string]bool{}
	var prev audit.Timestamp
	for i := 0; i < n; i++ {
		e, f := a.Next(), b.Next()
		ea, _ := json.Marshal(e)
		fb, _ := json.Marshal(f)
		if string(ea) != string(fb) {
			t.Fatalf("event %d differs between two runs with the same seed", i)
		}
		if _, err := audit.DecodeEvent(ea, now); err != nil {
			t.Fatalf("event %d is invalid: %v\n%s", i, err, ea)
		}
		if ids[e.ID] {
			t.Fatalf("duplicate id %s", e.ID)
		}
		ids[e.ID] = true
		if e.Timestamp.Before(prev.Time) {
			t.Fatalf("timestamps must not decrease")
		}
		prev = e.Timestamp
		perTenant[e.TenantID]++
		if e.Outcome == audit.OutcomeFailure {
			failed++
		}
		if e.CrossTenant {
			operator++
			if e.Reason == "" {
				t.Fatal("operator access without reason")
			}
		}
		if len(e.Before) > 0 {
			beforeAfter++
		}
	}
	for _, tn := range a.Tenants() {
		plans[tn.Plan] = true
	}
	if len(plans) != 3 {
		t.Errorf("tenants cover plans %v, want all three", plans)
	}
	big, small := perTenant[a.Tenants()[0].ID], perTenant[a.Tenants()[49].ID]
	if big < 10*small {
		t.Errorf("sizes not skewed: biggest %d, smallest %d", big, small)
	}
	if r := float64(failed) / n; r < 0.02 || r > 0.04 {
		t.Errorf("failed logins %.3f, want about 3%%", r)
	}
	if r := float64(operator) / n; r < 0.002 || r > 0.009 {
		t.Errorf("operator accesses %.4f, want about 0.5%%", r)
	}
	if beforeAfter == 0 {
		t.Error("no before/after state generated")
	}
}

// TestVersionsChainResourceStates: with Versions, a tenant's updates of a
// versioned type touch at most Versions resources, and each update of a
// resource starts from the state the previous one left (before equals
// the previous after), with a diff of exactly the fields that changed;
// the events validate as the service validates them.
func TestVersionsChainResourceStates(t *testing.T) {
	g := gen.New(gen.Config{Seed: 5, Tenants: 2, WithIDs: true, Versions: 4}, 20000)
	last := map[string]json.RawMessage{}
	ids := map[string]map[string]bool{}
	updates := map[string]int{}
	for i := 0; i < 20000; i++ {
		e := g.Next()
		if err := e.Validate(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatalf("%+v: %v", e, err)
		}
		switch e.Resource.Type {
		case audit.ResourceIVR, audit.ResourceRecordingPolicy, audit.ResourceQueue:
		default:
			continue
		}
		if e.Action != audit.ActionUpdate {
			continue
		}
		key := e.TenantID + "/" + e.Resource.Type
		if ids[key] == nil {
			ids[key] = map[string]bool{}
		}
		ids[key][e.Resource.ID] = true
		updates[key]++
		res := e.TenantID + "/" + e.Resource.ID
		if prev, ok := last[res]; ok && string(prev) != string(e.Before) {
			t.Fatalf("%s: before %s, the previous after %s", res, e.Before, prev)
		}
		last[res] = e.After
		var before, after map[string]any
		_ = json.Unmarshal(e.Before, &before)
		_ = json.Unmarshal(e.After, &after)
		changed := 0
		for k := range after {
			if fmt.Sprint(before[k]) != fmt.Sprint(after[k]) {
				changed++
				if _, ok := e.Diff[k]; !ok {
					t.Fatalf("%s: %s changed but is not in the diff %v", res, k, e.Diff)
				}
			}
		}
		if changed == 0 || changed != len(e.Diff) {
			t.Fatalf("%s: %d fields changed, diff %v", res, changed, e.Diff)
		}
	}
	for key, set := range ids {
		if len(set) > 4 || updates[key] < 2*len(set) {
			t.Fatalf("%s: %d resources for %d updates", key, len(set), updates[key])
		}
	}
	if len(ids) < 4 {
		t.Fatalf("only %d tenant/type pools", len(ids))
	}
}
