package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/auditlog/auditlog/audit"
)

// testTenantListing: the directory lists every tenant registered (by a
// first event or a plan change) exactly once, in id order, page by page,
// with its current plan; a bad page size is EINVALID.
func testTenantListing(t *testing.T, b Backend) {
	ctx := context.Background()
	want := map[string]audit.Plan{}
	for i := 0; i < 7; i++ {
		// Ids in their normal form (audit.NormalizeTenantID): the edge
		// lower-cases them, the store takes them as given.
		id := fmt.Sprintf("%08x-0000-4000-8000-%012d", 0xc0ffee00+7-i, i)
		switch i % 3 {
		case 0:
			if _, err := b.Tenants.EnsureTenant(ctx, id, audit.PlanPro); err != nil {
				t.Fatal(err)
			}
			want[id] = audit.PlanPro
		case 1:
			if err := b.Tenants.SetPlan(ctx, id, audit.PlanStarter); err != nil {
				t.Fatal(err)
			}
			want[id] = audit.PlanStarter
		default:
			if _, err := b.Tenants.EnsureTenant(ctx, id, audit.PlanPro); err != nil {
				t.Fatal(err)
			}
			if err := b.Tenants.SetPlan(ctx, id, audit.PlanEnterprise); err != nil {
				t.Fatal(err)
			}
			want[id] = audit.PlanEnterprise
		}
	}
	b.Visible(t)
	var got []audit.Tenant
	after := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("listing does not end")
		}
		page, err := b.Tenants.Tenants(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 3 {
			t.Fatalf("a page of 3 has %d tenants", len(page))
		}
		if len(page) == 0 {
			break
		}
		got = append(got, page...)
		after = page[len(page)-1].ID
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(got) != len(ids) {
		t.Fatalf("listed %d tenants, want %d: %v", len(got), len(ids), got)
	}
	for i, tn := range got {
		if tn.ID != ids[i] || tn.Plan != want[tn.ID] {
			t.Errorf("tenant %d: %s %s, want %s %s", i, tn.ID, tn.Plan, ids[i], want[ids[i]])
		}
		if tn.UpdatedAt.IsZero() {
			t.Errorf("tenant %s: no updatedAt", tn.ID)
		}
	}
	for _, limit := range []int{0, -1, audit.MaxTenantPage + 1} {
		if _, err := b.Tenants.Tenants(ctx, "", limit); audit.ErrorCode(err) != audit.EINVALID {
			t.Errorf("limit %d: %v, want EINVALID", limit, err)
		}
	}
}
