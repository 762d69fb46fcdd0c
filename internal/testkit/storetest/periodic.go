package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// testPeriodicState: a tenant never seen has a zero state; states are
// created once and replaced only at the revision read, so two replicas
// cannot both move a chain's head.
func testPeriodicState(t *testing.T, b Backend) {
	ctx := context.Background()
	tenant := uuid.NewString()
	st, err := b.Periodic.PeriodicState(ctx, tenant)
	if err != nil || st.Rev != "" || st.Head != nil || !st.NextStart.IsZero() || st.TenantID != tenant {
		t.Fatalf("a new tenant's state: %+v %v", st, err)
	}
	on := true
	st.Enabled, st.Interval, st.Prefix = &on, periodic.Hourly, "custom/"
	other := st // a second replica that read the same zero state
	if err := b.Periodic.PutPeriodicState(ctx, &st); err != nil || st.Rev == "" {
		t.Fatalf("create: %v (rev %q)", err, st.Rev)
	}
	if err := b.Periodic.PutPeriodicState(ctx, &other); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a second create: %v, want a conflict", err)
	}
	read := st
	st.NextStart = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	st.Head = &periodic.DigestRef{Key: "k", Signature: "s", TenantID: tenant, Late: 0}
	if err := b.Periodic.PutPeriodicState(ctx, &st); err != nil {
		t.Fatal(err)
	}
	if err := b.Periodic.PutPeriodicState(ctx, &read); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a write at a stale revision: %v, want a conflict", err)
	}
	got, err := b.Periodic.PeriodicState(ctx, tenant)
	if err != nil || got.Rev != st.Rev || !got.NextStart.Equal(st.NextStart) || got.Head == nil || got.Head.Key != "k" ||
		got.Enabled == nil || !*got.Enabled || got.Interval != periodic.Hourly || got.Prefix != "custom/" {
		t.Fatalf("read back %+v %v, want %+v", got, err, st)
	}
}

// testPeriodicRecords: records list newest window first, late files
// after their window, paged by cursor, one tenant's only; a window's
// record written again replaces it.
func testPeriodicRecords(t *testing.T, b Backend) {
	ctx := context.Background()
	a, other := uuid.NewString(), uuid.NewString()
	day := func(d int) audit.Timestamp { return audit.NewTimestamp(time.Date(2026, 10, d, 0, 0, 0, 0, time.UTC)) }
	put := func(tenant string, d, late int, count int64) {
		r := periodic.Record{TenantID: tenant, WindowStart: day(d), WindowEnd: day(d + 1), Late: late, Count: count,
			DataKey: fmt.Sprintf("d%d_%d", d, late), DeliveredAt: day(d + 2)}
		if err := b.Periodic.PutPeriodicRecord(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for d := 1; d <= 5; d++ {
		put(a, d, 0, 1)
		put(other, d, 0, 1)
	}
	put(a, 3, 2, 1)
	put(a, 3, 1, 1)
	put(a, 4, 0, 7) // re-exported: replaces
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		recs, next, err := b.Periodic.PeriodicRecords(ctx, a, cursor, 3)
		if err != nil || page > 5 {
			t.Fatalf("page %d: %v", page, err)
		}
		for _, r := range recs {
			if r.TenantID != a {
				t.Fatalf("another tenant's record: %+v", r)
			}
			got = append(got, fmt.Sprintf("%s/%d", r.DataKey, r.Count))
		}
		if next == "" {
			break
		}
		cursor = next
	}
	want := "[d5_0/1 d4_0/7 d3_0/1 d3_1/1 d3_2/1 d2_0/1 d1_0/1]"
	if fmt.Sprint(got) != want {
		t.Fatalf("records %v, want %s", got, want)
	}
	if _, _, err := b.Periodic.PeriodicRecords(ctx, a, "x", 3); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("a bad cursor: %v", err)
	}
}
