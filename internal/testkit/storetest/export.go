package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// Scan returns the ids an export scan yields, checking that batches are
// never empty and that no id comes twice.
func Scan(t testing.TB, s audit.EventScanner, f audit.Filter, so audit.Sort) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	err := s.ScanEvents(context.Background(), f, so, func(batch []audit.Event) error {
		if len(batch) == 0 {
			return errors.New("an empty batch")
		}
		for _, e := range batch {
			if seen[e.ID] {
				return errors.New("id " + e.ID + " came twice")
			}
			seen[e.ID] = true
			ids = append(ids, e.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan %+v: %v", f, err)
	}
	return ids
}

func testExportReads(t *testing.T, b Backend) {
	ctx := context.Background()
	d := NewDataset(4500) // more than one scan page of every store
	Write(t, b.Writer, d.All)
	b.Visible(t)
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			f, want := c.apply(d)
			if got := Scan(t, b.Scanner, f, c.Sort); !slices.Equal(got, want) {
				t.Fatalf("scan: %d events, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			n, err := b.Scanner.CountEvents(ctx, f)
			if err != nil || n != int64(len(want)) {
				t.Fatalf("count %d (%v), want %d", n, err, len(want))
			}
		})
	}
	// The events come back whole.
	byID := map[string]audit.Event{}
	for _, e := range d.Events {
		byID[e.ID] = e
	}
	err := b.Scanner.ScanEvents(ctx, audit.Filter{TenantID: d.A}, audit.DefaultSort, func(batch []audit.Event) error {
		for _, e := range batch {
			if mustJSON(e) != mustJSON(byID[e.ID]) {
				return errors.New("event " + e.ID + " changed: " + mustJSON(e))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// An unknown tenant is empty, not an error; fn's error stops the scan.
	if ids := Scan(t, b.Scanner, audit.Filter{TenantID: uuid.NewString()}, audit.DefaultSort); len(ids) != 0 {
		t.Fatalf("an unknown tenant has %d events", len(ids))
	}
	stop := errors.New("stop")
	calls := 0
	err = b.Scanner.ScanEvents(ctx, audit.Filter{TenantID: d.A}, audit.DefaultSort, func([]audit.Event) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("fn's error: got %v after %d calls", err, calls)
	}
}

func testExportJobs(t *testing.T, b Backend) {
	ctx := context.Background()
	tenantA, tenantB := uuid.NewString(), uuid.NewString()
	alice, bob := uuid.NewString(), uuid.NewString()
	base := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	to := base.Add(-time.Hour)
	mk := func(tenant, owner string, i int) *exportjob.Job {
		return &exportjob.Job{ID: uuid.NewString(), TenantID: tenant, Owner: exportjob.Owner{UserID: owner, Email: "u@example.com", Role: "admin"},
			Query: "action=delete", Filter: audit.Filter{TenantID: tenant, Actions: []audit.Action{"delete"}, To: &to}, Sort: audit.DefaultSort,
			State: exportjob.Queued, RowsExpected: 12345, CreatedAt: base.Add(time.Duration(i) * time.Second)}
	}
	a1, a2, b1 := mk(tenantA, alice, 1), mk(tenantA, bob, 2), mk(tenantB, alice, 3)
	for _, j := range []*exportjob.Job{a1, a2, b1} {
		if err := b.Jobs.CreateExportJob(ctx, j, 10); err != nil {
			t.Fatal(err)
		}
		if j.Rev == "" {
			t.Fatal("create set no revision")
		}
	}
	dup := *a1
	if err := b.Jobs.CreateExportJob(ctx, &dup, 10); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a second create of one id: %v", err)
	}
	got, err := b.Jobs.ExportJob(ctx, tenantA, a1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rev != a1.Rev || got.Filter.To == nil || !got.Filter.To.Equal(to) || got.RowsExpected != 12345 || got.Owner != a1.Owner || !got.CreatedAt.Equal(a1.CreatedAt) {
		t.Fatalf("read back %+v\nwant %+v", got, *a1)
	}
	// Another tenant's job does not exist for this tenant.
	if _, err := b.Jobs.ExportJob(ctx, tenantB, a1.ID); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("tenant B reads tenant A's job: %v", err)
	}
	if _, err := b.Jobs.ExportJob(ctx, tenantA, uuid.NewString()); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("a missing job: %v", err)
	}

	testExportJobRevisions(t, b, got, mk(tenantA, alice, 9))
	testFindExportJobs(t, b, base, tenantA, alice, a1.ID, a2.ID, b1.ID)
}

// testExportJobRevisions: an update is a compare-and-set on the revision.
// got is a stored job as read; ghost a job never created.
func testExportJobRevisions(t *testing.T, b Backend, got exportjob.Job, ghost *exportjob.Job) {
	ctx := context.Background()
	// Compare-and-set: a stale revision is refused.
	stale := got
	got.State, got.RowsWritten = exportjob.Running, 100
	if err := b.Jobs.UpdateExportJob(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got.Rev == stale.Rev {
		t.Fatal("update kept the revision")
	}
	stale.State = exportjob.Cancelled
	if err := b.Jobs.UpdateExportJob(ctx, &stale); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("update with a stale revision: %v", err)
	}
	ghost.Rev = got.Rev
	if err := b.Jobs.UpdateExportJob(ctx, ghost); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("update of a missing job: %v", err)
	}
	if now, _ := b.Jobs.ExportJob(ctx, got.TenantID, got.ID); now.State != exportjob.Running || now.RowsWritten != 100 {
		t.Fatalf("after update: %+v", now)
	}

}

// testFindExportJobs: the queries of the job queue, after
// testExportJobRevisions set a1 running.
func testFindExportJobs(t *testing.T, b Backend, base time.Time, tenantA, alice, a1, a2, b1 string) {
	ctx := context.Background()
	ids := func(q exportjob.Query) []string {
		t.Helper()
		jobs, err := b.Jobs.FindExportJobs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range jobs {
			out = append(out, j.ID)
		}
		return out
	}
	for _, c := range []struct {
		name string
		q    exportjob.Query
		want []string
	}{
		{"tenant and owner", exportjob.Query{TenantID: tenantA, OwnerID: alice}, []string{a1}},
		{"tenant, oldest first", exportjob.Query{TenantID: tenantA}, []string{a1, a2}},
		{"tenant, newest first (a user's list)", exportjob.Query{TenantID: tenantA, NewestFirst: true}, []string{a2, a1}},
		{"newest first, bounded", exportjob.Query{OwnerID: alice, NewestFirst: true, Limit: 1}, []string{b1}},
		{"queued anywhere", exportjob.Query{States: []exportjob.State{exportjob.Queued}}, []string{a2, b1}},
		{"queued or running", exportjob.Query{States: []exportjob.State{exportjob.Queued, exportjob.Running}, Limit: 2}, []string{a1, a2}},
		{"owner across tenants", exportjob.Query{OwnerID: alice}, []string{a1, b1}},
	} {
		if got := ids(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Expiry: done jobs whose file expires before a time.
	exp := base.Add(7 * 24 * time.Hour)
	done, _ := b.Jobs.ExportJob(ctx, tenantA, a2)
	done.State, done.ExpiresAt = exportjob.Done, &exp
	if err := b.Jobs.UpdateExportJob(ctx, &done); err != nil {
		t.Fatal(err)
	}
	if got := ids(exportjob.Query{States: []exportjob.State{exportjob.Done}, ExpiresBefore: exp.Add(time.Second)}); !slices.Equal(got, []string{a2}) {
		t.Errorf("expired: %v", got)
	}
	if got := ids(exportjob.Query{States: []exportjob.State{exportjob.Done}, ExpiresBefore: exp}); len(got) != 0 {
		t.Errorf("not yet expired: %v", got)
	}
}

// testScanWindowInFileOrder: a bounded window read in ascending time (the
// periodic export's file order, which Elasticsearch reads slice by slice)
// gives every event of the window once, ordered by timestamp then id,
// whatever their spacing: more events in one millisecond than a scan page
// holds, a dense second, hours of sparse events and empty hours, and
// events on both edges (the start is in, the end is out).
func testScanWindowInFileOrder(t *testing.T, b Backend) {
	from := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	d := NewDataset(6000)
	events := d.Events
	if len(events) < 3200 {
		t.Fatalf("tenant A has %d events: the cases below need 3,200", len(events))
	}
	at := func(i int, ts time.Time) { events[i].Timestamp = audit.NewTimestamp(ts) }
	tie := from.Add(3*time.Hour + 7*time.Millisecond)
	for i := range events {
		switch {
		case i < 2100: // one millisecond, more than a page of every store
			at(i, tie)
		case i < 2900: // a dense second
			at(i, from.Add(5*time.Hour+time.Duration(i%1000)*time.Millisecond))
		case i < 3100: // sparse: one every few minutes after an empty stretch
			at(i, from.Add(11*time.Hour+time.Duration(i-2900)*3*time.Minute))
		case i < 3110:
			at(i, from) // the start: in
		case i < 3120:
			at(i, to) // the end: out
		case i < 3130:
			at(i, from.Add(-time.Millisecond)) // before: out
		case i < 3140:
			at(i, to.Add(-time.Millisecond)) // the last instant: in
		}
	}
	Write(t, b.Writer, append(events, d.Others...))
	b.Visible(t)
	f := audit.Filter{TenantID: d.A, From: &from, To: &to}
	so := audit.Sort{Field: audit.SortTimestamp}
	want := Expected(events, func(e *audit.Event) bool { return !e.Timestamp.Before(from) && e.Timestamp.Before(to) }, so)
	if got := Scan(t, b.Scanner, f, so); !slices.Equal(got, want) {
		t.Fatalf("scan: %d events, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}
