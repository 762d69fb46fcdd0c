package retention

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// TestSystemRecordsAreValidEvents: the retention and plan records the
// service writes of its own accord (the delivery records of periodic
// exports: TestDeliveryRecordIsAValidEvent in audit/periodic) pass the validation every event
// passes, read back to what they record, derive the same id when written
// again, and a retention deletion with many leaf ranges is split into
// records of bounded size.
func TestSystemRecordsAreValidEvents(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tenant := "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	d := Deletion{TenantID: tenant, Plan: audit.PlanStarter, Before: now.AddDate(0, 0, -30), Deleted: 12, Unsealed: 2,
		Leaves: LeafRanges([]int64{0, 1, 2, 5, 6, 9})}
	if want := []LeafRange{{0, 3}, {5, 7}, {9, 10}}; !slices.Equal(d.Leaves, want) {
		t.Fatalf("ranges %v, want %v", d.Leaves, want)
	}
	recs := d.Records(now)
	if len(recs) != 1 || recs[0].ID != d.Records(now)[0].ID {
		t.Fatalf("records %d, ids stable %v", len(recs), recs[0].ID == d.Records(now)[0].ID)
	}
	if err := recs[0].Validate(now); err != nil {
		t.Fatalf("the retention record does not validate: %v", err)
	}
	if got, ok := Leaves(recs[0]); !ok || !slices.Equal(got, d.Leaves) {
		t.Fatalf("read back %v %v", got, ok)
	}
	many := Deletion{TenantID: tenant, Plan: audit.PlanPro, Before: now, Deleted: 5000}
	for i := int64(0); i < 5000; i++ {
		many.Leaves = append(many.Leaves, LeafRange{2 * i, 2*i + 1})
	}
	split := many.Records(now)
	if len(split) != 3 || split[0].ID == split[1].ID {
		t.Fatalf("5000 ranges in %d records", len(split))
	}
	for _, r := range split {
		if err := r.Validate(now); err != nil {
			t.Fatal(err)
		}
	}
	pc := PlanChangeRecord(tenant, audit.PlanPro, audit.PlanStarter, now)
	if err := pc.Validate(now); err != nil {
		t.Fatalf("the plan change record does not validate: %v", err)
	}
	if pc.ID != PlanChangeRecord(tenant, audit.PlanPro, audit.PlanStarter, now).ID || pc.ID == PlanChangeRecord(tenant, audit.PlanStarter, audit.PlanPro, now).ID ||
		pc.ID == PlanChangeRecord(tenant, audit.PlanPro, audit.PlanStarter, now.Add(time.Second)).ID {
		t.Fatal("a plan change record's id is not its change's and time's")
	}
	if !strings.Contains(string(pc.Before), `"retentionDays":365`) || !strings.Contains(string(pc.After), `"plan":"starter","retentionDays":30`) {
		t.Fatalf("before %s after %s", pc.Before, pc.After)
	}
}
