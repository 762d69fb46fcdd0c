package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/history"
	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// testReadTimeRetention: with no retention pass run, so the store still
// holds them, a tenant's events one day past its plan's retention are
// invisible through audit.Retained on every read path (list, cursor page,
// detail, stats, span, count, export scan, a resource's history), and
// events one day inside are visible; per plan, and again after a plan
// change, which moves the cut-off of data already stored.
func testReadTimeRetention(t *testing.T, b Backend) {
	ctx := context.Background()
	now := time.Now().UTC()
	day := 24 * time.Hour
	g := gen.New(gen.Config{Seed: 18, Tenants: len(audit.Plans), WithIDs: true}, 100)
	r := &audit.Retained{Reader: b.Reader, Scanner: b.Scanner, Directory: b.Tenants, Default: audit.PlanEnterprise, Now: func() time.Time { return now }}
	type tenantCase struct {
		id              string
		plan            audit.Plan
		inside, expired []audit.Event
	}
	var cases []tenantCase
	for i, plan := range audit.Plans {
		tn := &g.Tenants()[i]
		if err := b.Tenants.SetPlan(ctx, tn.ID, plan); err != nil {
			t.Fatal(err)
		}
		tc := tenantCase{id: tn.ID, plan: plan}
		for k := 0; k < 3; k++ {
			// One resource for all six, so a history read sees both ages.
			in := g.NextFor(tn, now.Add(-plan.Retention()+day+time.Duration(k)*time.Minute))
			out := g.NextFor(tn, now.Add(-plan.Retention()-day+time.Duration(k)*time.Minute))
			in.Resource, out.Resource = audit.Resource{Type: "queue", ID: "q-18"}, audit.Resource{Type: "queue", ID: "q-18"}
			for _, e := range []*audit.Event{&in, &out} {
				e.Action, e.Category, e.Outcome = audit.ActionUpdate, audit.CategoryConfiguration, audit.OutcomeSuccess
			}
			tc.inside, tc.expired = append(tc.inside, in), append(tc.expired, out)
		}
		Write(t, b.Writer, append(slices.Clone(tc.inside), tc.expired...))
		cases = append(cases, tc)
	}
	b.Visible(t)
	for _, tc := range cases {
		t.Run(string(tc.plan), func(t *testing.T) { checkRetained(t, r, b.Reader, tc.id, tc.inside, tc.expired) })
	}
	// A plan change applies at once to what is shown: the Pro tenant's
	// events of 364 days ago are past a Starter retention.
	pro := cases[1]
	if err := b.Tenants.SetPlan(ctx, pro.id, audit.PlanStarter); err != nil {
		t.Fatal(err)
	}
	t.Run("after a change to starter", func(t *testing.T) {
		checkRetained(t, r, b.Reader, pro.id, nil, append(slices.Clone(pro.inside), pro.expired...))
	})
}

// checkRetained reads tenant through r on every path and checks that it
// sees exactly want and none of hidden.
func checkRetained(t *testing.T, r *audit.Retained, sr stats.Reader, tenant string, want, hidden []audit.Event) {
	wantIDs := ids(want)
	check := func(path string, got []string) {
		t.Helper()
		slices.Sort(got)
		if !slices.Equal(got, wantIDs) {
			t.Errorf("%s shows %v, want %v", path, got, wantIDs)
		}
	}
	checkRetainedReads(t, r, tenant, want, hidden, check)
	checkRetainedTotals(t, r, stats.Retained{Reader: sr, Retention: r}, tenant, want, check)
}

// ids returns the sorted ids of events.
func ids(evs []audit.Event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.ID)
	}
	slices.Sort(out)
	return out
}

// checkRetainedReads: the list (by page and by cursor, with a range
// reaching past the retention), history and detail show exactly want.
func checkRetainedReads(t *testing.T, r *audit.Retained, tenant string, want, hidden []audit.Event, check func(string, []string)) {
	ctx := context.Background()
	f := audit.Filter{TenantID: tenant}
	res, err := r.SearchEvents(ctx, audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 100, Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	check("list", ids(res.Events))
	if res.Total.Value != int64(len(want)) {
		t.Errorf("list total %d, want %d", res.Total.Value, len(want))
	}
	check("cursor pages", walkPages(t, r, f))
	// An explicit range reaching back past the retention is cut too.
	old := time.Now().AddDate(-10, 0, 0)
	res, err = r.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tenant, From: &old}, Sort: audit.Sort{Field: audit.SortTimestamp}, PageSize: 100, Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	check("list from 10 years ago", ids(res.Events))
	res, err = r.SearchEvents(ctx, audit.Query{Filter: history.Filter(tenant, "queue", "q-18"), Sort: audit.Sort{Field: audit.SortTimestamp}, PageSize: 100, Page: 1, NoTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	check("history", ids(res.Events))
	var detail []string
	for _, e := range append(slices.Clone(want), hidden...) {
		got, err := r.GetEvent(ctx, tenant, e.ID)
		switch {
		case err == nil:
			detail = append(detail, got.ID)
		case audit.ErrorCode(err) != audit.ENOTFOUND:
			t.Fatalf("detail of %s: %v", e.ID, err)
		}
	}
	check("detail", detail)
}

// checkRetainedTotals: stats, span, count and the export scan count and
// show exactly want.
func checkRetainedTotals(t *testing.T, r *audit.Retained, sr stats.Reader, tenant string, want []audit.Event, check func(string, []string)) {
	ctx := context.Background()
	f := audit.Filter{TenantID: tenant}
	old := time.Now().AddDate(-10, 0, 0)
	st, err := sr.EventStats(ctx, stats.Query{Filter: audit.Filter{TenantID: tenant, From: &old, To: ptr(time.Now())}, GroupBy: stats.GroupAction, Interval: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var inBuckets int64
	for _, bk := range st.Histogram {
		inBuckets += bk.Count
	}
	if st.Total != int64(len(want)) || inBuckets != int64(len(want)) {
		t.Errorf("stats total %d, in buckets %d, want %d", st.Total, inBuckets, len(want))
	}
	sp, err := r.EventSpan(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Any != (len(want) > 0) || (sp.Any && sp.First.UnixMilli() != slices.MinFunc(want, byTime).Timestamp.UnixMilli()) {
		t.Errorf("span %+v, want its first at the oldest visible event", sp)
	}
	n, err := r.CountEvents(ctx, f)
	if err != nil || n != int64(len(want)) {
		t.Errorf("count %d (%v), want %d", n, err, len(want))
	}
	var scanned []string
	if err := r.ScanEvents(ctx, f, audit.Sort{Field: audit.SortTimestamp}, func(batch []audit.Event) error {
		scanned = append(scanned, ids(batch)...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check("export scan", scanned)
}

func byTime(a, b audit.Event) int { return a.Timestamp.Time.Compare(b.Timestamp.Time) }

func ptr[T any](v T) *T { return &v }

// walkPages follows cursors one event at a time.
func walkPages(t *testing.T, r audit.EventReader, f audit.Filter) []string {
	var got []string
	q := audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 1, Page: 1}
	for i := 0; ; i++ {
		if i > 100 {
			t.Fatal("cursor walk does not end")
		}
		res, err := r.SearchEvents(context.Background(), q)
		if err != nil {
			t.Fatal(fmt.Errorf("page %d: %w", i, err))
		}
		for _, e := range res.Events {
			got = append(got, e.ID)
		}
		if !res.HasMore {
			return got
		}
		q.After = res.Next
	}
}
