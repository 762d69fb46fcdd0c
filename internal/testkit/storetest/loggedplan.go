package storetest

import (
	"context"
	"github.com/auditlog/auditlog/audit/retention"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// testRetentionFollowsTheLog (issue 53): retention deletes under the plan
// the tenant's log records, never under the directory's plan alone. A
// tenant whose log records no change is on the default plan (enterprise
// here); its plan set to starter in the directory behind the service
// (SetPlan with no record) deletes none of its 40-day-old events, and the
// pass puts the logged plan back into the directory. A change recorded
// as the service records it (retention.ChangePlan) deletes them.
func testRetentionFollowsTheLog(t *testing.T, b Backend) {
	ctx := context.Background()
	now := time.Now()
	g := gen.New(gen.Config{Seed: 5, Tenants: 1, WithIDs: true}, 20)
	tn := &g.Tenants()[0]
	evs := make([]audit.Event, 6)
	for i := range evs {
		evs[i] = g.NextFor(tn, now.Add(-40*24*time.Hour).Add(time.Duration(i)*time.Second))
	}
	Write(t, b.Writer, evs)
	b.Visible(t)
	if err := b.Tenants.SetPlan(ctx, tn.ID, audit.PlanStarter); err != nil { // behind the service: no record
		t.Fatal(err)
	}
	b.EnforceRetention(t)
	b.Visible(t)
	if plan, err := b.Tenants.Plan(ctx, tn.ID); err != nil || plan != audit.PlanEnterprise {
		t.Fatalf("the directory's plan after the pass: %s %v, want the logged enterprise back", plan, err)
	}
	for _, e := range evs {
		if _, err := b.Reader.GetEvent(ctx, tn.ID, e.ID); err != nil {
			t.Fatalf("%s, 40 days old, went under a plan its log does not record: %v", e.ID, err)
		}
	}
	if err := retention.ChangePlan(ctx, b.Writer, b.Tenants, tn.ID, audit.PlanStarter, audit.PlanEnterprise, now); err != nil {
		t.Fatal(err)
	}
	b.Visible(t)
	b.EnforceRetention(t)
	b.Visible(t)
	for _, e := range evs {
		if _, err := b.Reader.GetEvent(ctx, tn.ID, e.ID); audit.ErrorCode(err) != audit.ENOTFOUND {
			t.Fatalf("%s, 40 days old, is kept after a recorded change to starter: %v", e.ID, err)
		}
	}
}
