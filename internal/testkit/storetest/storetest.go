// Package storetest is the storage conformance suite: one table of
// behaviours that every event store (SQLite, Elasticsearch) must show
// through the domain interfaces. A behaviour a store lacks is a failing
// test, never a skip. Elasticsearch is only eventually visible, so each
// backend says how to make writes visible; the suite never sleeps.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// Reader reads a store's events and their aggregations.
type Reader interface {
	audit.EventReader
	stats.Reader
}

// Backend is one store under test.
type Backend struct {
	Writer  audit.EventWriter
	Reader  Reader
	Tenants audit.TenantDirectory
	// Visible makes everything written so far visible to readers.
	Visible func(t testing.TB)
	// EnforceRetention runs one pass of the store's retention (the
	// lifecycle worker, the purge job), with the plans' real retentions.
	EnforceRetention func(t testing.TB)
	// Scanner reads exports; Jobs keeps export jobs.
	Scanner audit.EventScanner
	Jobs    exportjob.Store
	// Keys lists the rows of the store's keys table (or index), which
	// nothing reads a key from; PlantKey writes one there behind the
	// service.
	Keys     vlog.KeyRows
	PlantKey func(t testing.TB, name string, value []byte)
	// Restores keeps restore requests.
	Restores restorejob.Store
	// Periodic keeps the periodic export's state and records.
	Periodic periodic.Store
	// Saved keeps users' saved searches.
	Saved savedsearch.Store
	// Streams keeps the tenants' streams.
	Streams stream.Store
}

// Run runs the suite; newBackend returns a fresh, empty store.
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Run("FiltersSortsPagesAndCursors", func(t *testing.T) { testQueries(t, newBackend(t)) })
	t.Run("TenantIsolation", func(t *testing.T) { testIsolation(t, newBackend(t)) })
	t.Run("Duplicates", func(t *testing.T) { testDuplicates(t, newBackend(t)) })
	t.Run("IDsPerTenant", func(t *testing.T) { testIDsPerTenant(t, newBackend(t)) })
	t.Run("PageByteBudget", func(t *testing.T) { testPageByteBudget(t, newBackend(t)) })
	t.Run("Retention", func(t *testing.T) { testRetention(t, newBackend(t)) })
	t.Run("RetentionFollowsTheLoggedPlan", func(t *testing.T) { testRetentionFollowsTheLog(t, newBackend(t)) })
	t.Run("ReadTimeRetention", func(t *testing.T) { testReadTimeRetention(t, newBackend(t)) })
	t.Run("TenantListing", func(t *testing.T) { testTenantListing(t, newBackend(t)) })
	t.Run("Stats", func(t *testing.T) { testStats(t, newBackend(t)) })
	t.Run("StatsMatchTheEvents", func(t *testing.T) { testStatsMatchTheEvents(t, newBackend(t)) })
	t.Run("ExportReads", func(t *testing.T) { testExportReads(t, newBackend(t)) })
	t.Run("ScanWindowInFileOrder", func(t *testing.T) { testScanWindowInFileOrder(t, newBackend(t)) })
	t.Run("ExportJobs", func(t *testing.T) { testExportJobs(t, newBackend(t)) })
	t.Run("KeyRows", func(t *testing.T) { testKeyRows(t, newBackend(t)) })
	t.Run("FirstOneWins", func(t *testing.T) { testFirstOneWins(t, newBackend(t)) })
	t.Run("Restores", func(t *testing.T) { testRestores(t, newBackend(t)) })
	t.Run("RestoreOutcomes", func(t *testing.T) { testRestoreOutcomes(t, newBackend(t)) })
	t.Run("PeriodicState", func(t *testing.T) { testPeriodicState(t, newBackend(t)) })
	t.Run("PeriodicRecords", func(t *testing.T) { testPeriodicRecords(t, newBackend(t)) })
	t.Run("SavedSearches", func(t *testing.T) { testSavedSearches(t, newBackend(t)) })
	t.Run("Streams", func(t *testing.T) { testStreams(t, newBackend(t)) })
	t.Run("StreamsAfter", func(t *testing.T) { testStreamsAfter(t, newBackend(t)) })
	t.Run("StreamProgress", func(t *testing.T) { testSaveProgress(t, newBackend(t)) })
	t.Run("EveryFieldKept", func(t *testing.T) { testEveryField(t, newBackend(t)) })
	t.Run("FreshSeesAcknowledgedWrites", func(t *testing.T) { testFresh(t, newBackend(t)) })
	t.Run("WordModel", func(t *testing.T) { testWordModel(t, newBackend(t)) })
	t.Run("TextStaysInItsTenant", func(t *testing.T) { testTextStaysInItsTenant(t, newBackend(t)) })
}

// Dataset is two tenants' generated events.
type Dataset struct {
	A, B   string
	Events []audit.Event // tenant A's
	Others []audit.Event // tenant B's
	All    []audit.Event
}

// NewDataset generates n events of two tenants within October 2026, one
// in fifty at the same instant (ties broken by id).
func NewDataset(n int) *Dataset {
	g := gen.New(gen.Config{Seed: 77, Tenants: 2, Skew: 0.5, WithIDs: true,
		Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, n)
	d := &Dataset{A: g.Tenants()[0].ID, B: g.Tenants()[1].ID}
	for i := 0; i < n; i++ {
		e := g.Next()
		if i%50 == 0 {
			e.Timestamp = audit.NewTimestamp(time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC))
		}
		d.All = append(d.All, e)
		if e.TenantID == d.A {
			d.Events = append(d.Events, e)
		} else {
			d.Others = append(d.Others, e)
		}
	}
	// The service's own records (audit.SystemResourceTypes), which the
	// panel's default view leaves out: two plan changes of tenant A.
	for i, plans := range [][2]audit.Plan{{audit.PlanPro, audit.PlanEnterprise}, {audit.PlanEnterprise, audit.PlanPro}} {
		e := retention.PlanChangeRecord(d.A, plans[0], plans[1], time.Date(2026, 10, 7+i*14, 9, 0, 0, 0, time.UTC))
		d.All, d.Events = append(d.All, e), append(d.Events, e)
	}
	return d
}

// Write stores events in batches and fails on anything but created or
// duplicate.
func Write(t testing.TB, w audit.EventWriter, events []audit.Event) {
	t.Helper()
	for i := 0; i < len(events); i += 2000 {
		res, err := WriteSettled(context.Background(), w, events[i:min(i+2000, len(events))])
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
				t.Fatalf("write: %v %s", r.Status, r.Reason)
			}
		}
	}
}

// WriteSettled writes events as the indexer does (audit.WriteSettled):
// items answered retry are written again (a hibernated stream answers one
// while it wakes), at most five times, with no wait.
func WriteSettled(ctx context.Context, w audit.EventWriter, events []audit.Event) ([]audit.WriteResult, error) {
	attempts := 0
	return audit.WriteSettled(ctx, w, events, audit.Retrier{
		Wait:         func(context.Context) bool { attempts++; return attempts <= 5 },
		BatchFailed:  func(error, int) bool { return false },
		ItemsRetried: func(int, audit.WriteResult) {},
	})
}

// Expected filters and sorts events in Go, independently of any store:
// by the sort key (lowercased e-mail for actor.email), then the id, both
// in the sort's direction.
func Expected(events []audit.Event, keep func(e *audit.Event) bool, s audit.Sort) []string {
	var out []audit.Event
	for i := range events {
		if keep(&events[i]) {
			out = append(out, events[i])
		}
	}
	key := func(e *audit.Event) string {
		switch s.Field {
		case audit.SortActorEmail:
			return strings.ToLower(e.Actor.Email)
		case audit.SortAction:
			return string(e.Action)
		case audit.SortResourceType:
			return e.Resource.Type
		}
		return fmt.Sprintf("%020d", e.Timestamp.UnixMilli())
	}
	slices.SortFunc(out, func(x, y audit.Event) int {
		c := strings.Compare(key(&x), key(&y))
		if c == 0 {
			c = strings.Compare(x.ID, y.ID)
		}
		if s.Desc {
			c = -c
		}
		return c
	})
	ids := make([]string, len(out))
	for i, e := range out {
		ids[i] = e.ID
	}
	return ids
}

// Case is one filter and sort with its independent expectation.
type Case struct {
	Name   string
	Filter func(d *Dataset) audit.Filter // TenantID is set by the suite
	Keep   func(d *Dataset, e *audit.Event) bool
	Sort   audit.Sort
}

// Cases covers every filter, every sort and both orders. Each selects
// something in NewDataset's data.
func Cases() []Case {
	from, to := time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)
	yes, no := true, false
	desc := audit.DefaultSort
	return append([]Case{
		{"everything", func(*Dataset) audit.Filter { return audit.Filter{} }, func(*Dataset, *audit.Event) bool { return true }, desc},
		{"the service's own records left out (system=false)", func(*Dataset) audit.Filter { return audit.Filter{HideSystem: true} },
			func(_ *Dataset, e *audit.Event) bool {
				return !slices.Contains(audit.SystemResourceTypes, e.Resource.Type)
			}, desc},
		{"the service's own records alone", func(*Dataset) audit.Filter { return audit.Filter{ResourceTypes: audit.SystemResourceTypes} },
			func(_ *Dataset, e *audit.Event) bool {
				return slices.Contains(audit.SystemResourceTypes, e.Resource.Type)
			}, desc},
		{"spec: deleted queues", func(*Dataset) audit.Filter {
			return audit.Filter{Actions: []audit.Action{"delete"}, ResourceTypes: []string{"queue"}}
		}, func(_ *Dataset, e *audit.Event) bool { return e.Action == "delete" && e.Resource.Type == "queue" }, desc},
		{"spec: recording accesses by user", func(*Dataset) audit.Filter {
			return audit.Filter{Actions: []audit.Action{"access"}, ResourceTypes: []string{"recording"}}
		}, func(_ *Dataset, e *audit.Event) bool { return e.Action == "access" && e.Resource.Type == "recording" }, audit.Sort{Field: audit.SortActorEmail}},
		{"date range", func(*Dataset) audit.Filter { return audit.Filter{From: &from, To: &to} },
			func(_ *Dataset, e *audit.Event) bool { return !e.Timestamp.Before(from) && e.Timestamp.Before(to) }, desc},
		{"actor id", func(d *Dataset) audit.Filter { return audit.Filter{ActorID: d.Events[17].Actor.ID} },
			func(d *Dataset, e *audit.Event) bool { return e.Actor.ID == d.Events[17].Actor.ID }, desc},
		{"actor e-mail in another case", func(d *Dataset) audit.Filter {
			return audit.Filter{ActorEmail: strings.ToUpper(d.Events[3].Actor.Email)}
		},
			func(d *Dataset, e *audit.Event) bool {
				return strings.EqualFold(e.Actor.Email, d.Events[3].Actor.Email)
			}, desc},
		{"a stream's range of event ids (one in upper case, one of tenant B, one missing)", func(d *Dataset) audit.Filter {
			return audit.Filter{EventIDs: streamIDs(d)}
		}, func(d *Dataset, e *audit.Event) bool { return inStream(d, e) }, desc},
		{"a stream's range of event ids and its filter", func(d *Dataset) audit.Filter {
			_, terms, _ := search.Parse("-action:access")
			return audit.Filter{EventIDs: streamIDs(d), Terms: terms}
		}, func(d *Dataset, e *audit.Event) bool { return inStream(d, e) && e.Action != "access" }, desc},
		{"two actions", func(*Dataset) audit.Filter { return audit.Filter{Actions: []audit.Action{"create", "update"}} },
			func(_ *Dataset, e *audit.Event) bool { return e.Action == "create" || e.Action == "update" }, desc},
		{"two resource types, ascending", func(*Dataset) audit.Filter { return audit.Filter{ResourceTypes: []string{"ivr", "recording_policy"}} },
			func(_ *Dataset, e *audit.Event) bool {
				return e.Resource.Type == "ivr" || e.Resource.Type == "recording_policy"
			}, audit.Sort{Field: audit.SortTimestamp}},
		{"resource id", func(d *Dataset) audit.Filter { return audit.Filter{ResourceID: d.Events[17].Resource.ID} },
			func(d *Dataset, e *audit.Event) bool { return e.Resource.ID == d.Events[17].Resource.ID }, desc},
		{"cross-tenant", func(*Dataset) audit.Filter { return audit.Filter{CrossTenant: &yes} }, func(_ *Dataset, e *audit.Event) bool { return e.CrossTenant }, desc},
		{"not cross-tenant", func(*Dataset) audit.Filter { return audit.Filter{CrossTenant: &no} }, func(_ *Dataset, e *audit.Event) bool { return !e.CrossTenant }, desc},
		{"category", func(*Dataset) audit.Filter { return audit.Filter{Category: audit.CategorySecurity} },
			func(_ *Dataset, e *audit.Event) bool { return e.Category == audit.CategorySecurity }, desc},
		{"outcome", func(*Dataset) audit.Filter { return audit.Filter{Outcome: audit.OutcomeFailure} },
			func(_ *Dataset, e *audit.Event) bool { return e.Outcome == audit.OutcomeFailure }, desc},
		{"by action, descending", func(*Dataset) audit.Filter { return audit.Filter{} }, func(*Dataset, *audit.Event) bool { return true }, audit.Sort{Field: audit.SortAction, Desc: true}},
		{"by resource type", func(*Dataset) audit.Filter { return audit.Filter{} }, func(*Dataset, *audit.Event) bool { return true }, audit.Sort{Field: audit.SortResourceType}},
		{"q: a resource id", func(d *Dataset) audit.Filter { return audit.Filter{Q: d.Events[17].Resource.ID} },
			func(d *Dataset, e *audit.Event) bool { return e.Resource.ID == d.Events[17].Resource.ID }, desc},
		{"q: a user-agent word", func(*Dataset) audit.Filter { return audit.Filter{Q: "Firefox"} },
			func(_ *Dataset, e *audit.Event) bool { return strings.Contains(e.Actor.UserAgent, "Firefox/") }, desc},
		{"q: a changed field, prefix", func(*Dataset) audit.Filter { return audit.Filter{Q: "maxWait*"} },
			func(_ *Dataset, e *audit.Event) bool { _, ok := e.Diff["maxWaitSeconds"]; return ok }, desc},
		{"everything at once", func(*Dataset) audit.Filter {
			return audit.Filter{Actions: []audit.Action{"access"}, Category: audit.CategorySensitiveAccess, Outcome: audit.OutcomeSuccess, CrossTenant: &no, From: &from}
		}, func(_ *Dataset, e *audit.Event) bool {
			return e.Action == "access" && e.Category == audit.CategorySensitiveAccess && e.Outcome == audit.OutcomeSuccess && !e.CrossTenant && !e.Timestamp.Before(from)
		}, audit.Sort{Field: audit.SortActorEmail, Desc: true}},
	}, searchCases()...)
}

func searchAll(t testing.TB, r audit.EventReader, q audit.Query) audit.Result {
	t.Helper()
	res, err := r.SearchEvents(context.Background(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return res
}

// Walk follows Next from the first page to the last and returns every id.
// Every other page carries the first page's total, as the API's cursors
// do (Query.Counted), and the others count again: both ways must agree on
// the events and the total.
func Walk(t testing.TB, r audit.EventReader, f audit.Filter, s audit.Sort, size int) []string {
	t.Helper()
	var ids []string
	var first *audit.Total
	q := audit.Query{Filter: f, Sort: s, PageSize: size, Page: 1}
	for page := 1; ; page++ {
		res := searchAll(t, r, q)
		total := res.Total
		if first == nil {
			first = &total
		} else if total != *first {
			t.Fatalf("page %d (total carried: %v) says total %+v, the first page %+v", page, q.Counted != nil, total, *first)
		}
		for _, e := range res.Events {
			ids = append(ids, e.ID)
		}
		if !res.HasMore {
			return ids
		}
		if res.Next == nil || len(res.Events) != size {
			t.Fatalf("hasMore with %d events and next %v", len(res.Events), res.Next)
		}
		q.After, q.Counted = res.Next, nil
		if page%2 == 1 {
			q.Counted = first
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// apply gives a case's filter on tenant A, normalised as the parser
// does (stores read normalised filters only), and the ids it must
// select, in order, computed independently of every store.
func (c Case) apply(d *Dataset) (audit.Filter, []string) {
	f := c.Filter(d)
	f.TenantID = d.A
	f.Normalize()
	return f, Expected(d.Events, func(e *audit.Event) bool { return c.Keep(d, e) }, c.Sort)
}

func testQueries(t *testing.T, b Backend) {
	d := NewDataset(3000)
	Write(t, b.Writer, d.All)
	b.Visible(t)
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			f, want := c.apply(d)
			if len(want) == 0 {
				t.Fatal("the case selects nothing: it proves nothing")
			}
			if got := Walk(t, b.Reader, f, c.Sort, 89); !slices.Equal(got, want) {
				t.Fatalf("cursor walk: %d events, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			// Without a count (NoTotal, as a history page asks), hasMore
			// still tells whether another page follows.
			for _, size := range []int{len(want), len(want) - 1} {
				if size < 1 {
					continue
				}
				nt := searchAll(t, b.Reader, audit.Query{Filter: f, Sort: c.Sort, PageSize: size, Page: 1, NoTotal: true})
				if len(nt.Events) != size || nt.HasMore != (size < len(want)) || nt.Total != (audit.Total{}) {
					t.Fatalf("NoTotal page of %d of %d: %d events, hasMore %v, total %+v", size, len(want), len(nt.Events), nt.HasMore, nt.Total)
				}
			}
			res := searchAll(t, b.Reader, audit.Query{Filter: f, Sort: c.Sort, PageSize: 5, Page: 2})
			var page []string
			for _, e := range res.Events {
				page = append(page, e.ID)
			}
			if w := want[min(5, len(want)):min(10, len(want))]; !slices.Equal(page, w) {
				t.Fatalf("page 2: %v, want %v", page, w)
			}
			if res.Total != (audit.Total{Value: int64(len(want)), Relation: audit.TotalExact}) {
				t.Fatalf("total %+v, want %d eq", res.Total, len(want))
			}
			if res.HasMore != (len(want) > 10) {
				t.Fatalf("page 2 hasMore %v with %d results", res.HasMore, len(want))
			}
		})
	}
	// Past the window, page numbers are refused and name the cursor.
	_, err := b.Reader.SearchEvents(context.Background(), audit.Query{Filter: audit.Filter{TenantID: d.A}, Sort: audit.DefaultSort, PageSize: 1000, Page: 11})
	if audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("page past the window: %v", err)
	}
	// The full event comes back intact.
	for _, e := range d.Events[:50] {
		got, err := b.Reader.GetEvent(context.Background(), d.A, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustJSON(e), mustJSON(got); a != b {
			t.Fatalf("event changed\n got %s\nwant %s", b, a)
		}
	}
}

func testIsolation(t *testing.T, b Backend) {
	d := NewDataset(1000)
	Write(t, b.Writer, d.All)
	b.Visible(t)
	for _, c := range Cases() {
		f := c.Filter(d)
		f.TenantID = d.A
		f.Normalize() // as the parser does: stores read normalised filters
		res := searchAll(t, b.Reader, audit.Query{Filter: f, Sort: c.Sort, PageSize: 1000, Page: 1})
		for _, e := range res.Events {
			if e.TenantID != d.A {
				t.Fatalf("%s: tenant A sees tenant B's event %s", c.Name, e.ID)
			}
		}
	}
	for _, e := range d.Others[:20] {
		if _, err := b.Reader.GetEvent(context.Background(), d.A, e.ID); audit.ErrorCode(err) != audit.ENOTFOUND {
			t.Fatalf("tenant B's event %s through tenant A: %v", e.ID, err)
		}
	}
	if _, err := b.Reader.GetEvent(context.Background(), d.A, audit.NewID()); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("a missing event: %v", err)
	}
	st, err := b.Reader.EventStats(context.Background(), stats.Query{Filter: audit.Filter{TenantID: d.A}, GroupBy: stats.GroupAction})
	if err != nil || st.Total != int64(len(d.Events)) {
		t.Fatalf("stats of tenant A count %d, want %d (%v)", st.Total, len(d.Events), err)
	}
}

func testDuplicates(t *testing.T, b Backend) {
	d := NewDataset(300)
	Write(t, b.Writer, d.All)
	res, err := b.Writer.WriteEvents(context.Background(), d.All)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Status != audit.WriteDuplicate {
			t.Fatalf("event %d written twice: %v, want duplicate", i, r.Status)
		}
	}
	b.Visible(t)
	r := searchAll(t, b.Reader, audit.Query{Filter: audit.Filter{TenantID: d.A}, Sort: audit.DefaultSort, PageSize: 1000, Page: 1})
	if r.Total.Value != int64(len(d.Events)) {
		t.Fatalf("%d events after writing each twice, want %d", r.Total.Value, len(d.Events))
	}
}

// testIDsPerTenant: an id is the idempotency key within its tenant only.
// The same id in two tenants stores two events, each visible to its own
// tenant alone. Within a tenant the same event again is a duplicate, and
// different content under a stored id is a conflict: not stored, the
// first event kept, in another batch as in the same one.
func testIDsPerTenant(t *testing.T, b Backend) {
	ctx := context.Background()
	d := NewDataset(4)
	a, bb := d.Events[0], d.Others[0]
	a.After = json.RawMessage(`{"b":1,"a":{"x":[1,2.5,"s"]},"c":null}`)
	bb.ID = a.ID
	res, err := b.Writer.WriteEvents(ctx, []audit.Event{a})
	if err != nil || res[0].Status != audit.WriteCreated {
		t.Fatalf("tenant A's event: %+v %v", res, err)
	}
	res, err = b.Writer.WriteEvents(ctx, []audit.Event{bb})
	if err != nil || res[0].Status != audit.WriteCreated {
		t.Fatalf("tenant B's event with A's id must be stored, got %+v %v", res, err)
	}
	same := a
	same.After = reorder(t, a.After)
	changed := a
	changed.Actor.IP = "198.51.100.200"
	changedB := bb
	changedB.Reason, changedB.CrossTenant = "a different event", true
	res, err = b.Writer.WriteEvents(ctx, []audit.Event{same, changed, changedB, bb})
	if err != nil {
		t.Fatal(err)
	}
	want := []audit.WriteStatus{audit.WriteDuplicate, audit.WriteConflict, audit.WriteConflict, audit.WriteDuplicate}
	for i, r := range res {
		if r.Status != want[i] || (r.Status == audit.WriteConflict && r.Reason == "") {
			t.Errorf("write %d: %v (%q), want %v", i, r.Status, r.Reason, want[i])
		}
	}
	// Two new events with one id in one batch: the first wins there too.
	n1, n2 := d.Events[1], d.Events[1]
	n2.Actor.UserAgent = "another agent"
	res, err = b.Writer.WriteEvents(ctx, []audit.Event{n1, n2})
	if err != nil || res[0].Status != audit.WriteCreated || res[1].Status != audit.WriteConflict {
		t.Fatalf("one id twice in a batch: %+v %v", res, err)
	}
	b.Visible(t)
	for _, tc := range []struct {
		tenant string
		want   audit.Event
	}{{d.A, a}, {d.B, bb}, {d.A, n1}} {
		got, err := b.Reader.GetEvent(ctx, tc.tenant, tc.want.ID)
		if err != nil || !audit.SameEvent(&got, &tc.want) {
			t.Fatalf("tenant %s, id %s: got %+v (%v), want the first event written", tc.tenant, tc.want.ID, got, err)
		}
	}
	for _, tenant := range []string{d.A, d.B} {
		r := searchAll(t, b.Reader, audit.Query{Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, PageSize: 10, Page: 1})
		wantN := map[string]int64{d.A: 2, d.B: 1}[tenant]
		if r.Total.Value != wantN || int64(len(r.Events)) != wantN {
			t.Fatalf("tenant %s lists %d events (total %d), want %d", tenant, len(r.Events), r.Total.Value, wantN)
		}
		for _, e := range r.Events {
			if e.TenantID != tenant {
				t.Fatalf("tenant %s sees %+v", tenant, e)
			}
		}
	}
}

// reorder returns the JSON object raw with its keys in reverse order and
// white space added: the same value, other bytes.
func reorder(t testing.TB, raw json.RawMessage) json.RawMessage {
	t.Helper()
	if len(raw) == 0 {
		return raw
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	var sb strings.Builder
	sb.WriteString("{ ")
	for i, k := range keys {
		if i > 0 {
			sb.WriteString(" , ")
		}
		kb, _ := json.Marshal(k)
		sb.Write(kb)
		sb.WriteString(" : ")
		sb.Write(m[k])
	}
	sb.WriteString(" }")
	return json.RawMessage(sb.String())
}

func testRetention(t *testing.T, b Backend) {
	ctx := context.Background()
	now := time.Now()
	g := gen.New(gen.Config{Seed: 4, Tenants: 2, WithIDs: true}, 100)
	starter, changer := &g.Tenants()[0], &g.Tenants()[1]
	if err := retention.ChangePlan(ctx, b.Writer, b.Tenants, starter.ID, audit.PlanStarter, audit.PlanEnterprise, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := retention.ChangePlan(ctx, b.Writer, b.Tenants, changer.ID, audit.PlanEnterprise, audit.PlanEnterprise, time.Now()); err != nil {
		t.Fatal(err)
	}
	// The records of the changes are recent events: a pass first rolls
	// their write index over, so that the old events written next are in
	// an index of their own (a store that deletes whole indices keeps a
	// recent record's until it expires).
	b.Visible(t)
	b.EnforceRetention(t)
	write := func(tn *gen.Tenant, age time.Duration, n int) {
		evs := make([]audit.Event, n)
		for i := range evs {
			evs[i] = g.NextFor(tn, now.Add(-age).Add(time.Duration(i)*time.Second))
		}
		Write(t, b.Writer, evs)
		b.Visible(t)
	}
	// count is the tenant's events by search, and checks that stats
	// count the same: nothing expired lingers in a rollup. The records
	// the service writes into the tenant's log (retention, plan changes)
	// are not the tenant's events.
	count := func(tenant string) int64 {
		b.Visible(t)
		n := searchAll(t, b.Reader, audit.Query{Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, PageSize: 1, Page: 1}).Total.Value
		st, err := b.Reader.EventStats(ctx, stats.Query{Filter: audit.Filter{TenantID: tenant}, GroupBy: stats.GroupAction, Interval: time.Hour})
		if err != nil || st.Total != n {
			t.Fatalf("stats count %d events (%v), search %d", st.Total, err, n)
		}
		records := searchAll(t, b.Reader, audit.Query{Filter: audit.Filter{TenantID: tenant, ResourceTypes: audit.SystemResourceTypes},
			Sort: audit.DefaultSort, PageSize: 1, Page: 1}).Total.Value
		return n - records
	}
	day := 24 * time.Hour
	write(starter, 40*day, 7)
	write(changer, 100*day, 5)
	b.EnforceRetention(t)
	if n := count(starter.ID); n != 0 {
		t.Fatalf("starter keeps %d events older than 30 days", n)
	}
	if n := count(changer.ID); n != 5 {
		t.Fatalf("enterprise keeps %d of 5 events of 100 days ago", n)
	}
	write(starter, 2*day, 4)
	b.EnforceRetention(t)
	if n := count(starter.ID); n != 4 {
		t.Fatalf("starter keeps %d of its 4 recent events", n)
	}
	if err := retention.ChangePlan(ctx, b.Writer, b.Tenants, changer.ID, audit.PlanPro, audit.PlanEnterprise, time.Now()); err != nil {
		t.Fatal(err)
	}
	b.EnforceRetention(t)
	if n := count(changer.ID); n != 5 {
		t.Fatalf("pro keeps 100-day-old events: %d of 5", n)
	}
	if err := retention.ChangePlan(ctx, b.Writer, b.Tenants, changer.ID, audit.PlanStarter, audit.PlanEnterprise, time.Now()); err != nil {
		t.Fatal(err)
	}
	b.EnforceRetention(t)
	if n := count(changer.ID); n != 0 {
		t.Fatalf("after a change to starter, %d events of 100 days ago remain", n)
	}
}

func testStats(t *testing.T, b Backend) {
	d := NewDataset(2000)
	Write(t, b.Writer, d.All)
	b.Visible(t)
	want := map[string]int64{}
	for _, e := range d.Events {
		want[string(e.Action)]++
	}
	st, err := b.Reader.EventStats(context.Background(), stats.Query{Filter: audit.Filter{TenantID: d.A}, GroupBy: stats.GroupAction, MaxGroups: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for i, g := range st.Groups {
		got[g.Key] = g.Count
		if i > 0 && st.Groups[i-1].Count < g.Count {
			t.Fatalf("groups not by count descending: %v", st.Groups)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || st.Total != int64(len(d.Events)) {
		t.Fatalf("groups %v total %d, want %v %d", got, st.Total, want, len(d.Events))
	}
	from, to := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	st, err = b.Reader.EventStats(context.Background(), stats.Query{Filter: audit.Filter{TenantID: d.A, From: &from, To: &to},
		GroupBy: stats.GroupOutcome, Interval: 24 * time.Hour, MaxGroups: 10})
	if err != nil {
		t.Fatal(err)
	}
	perDay := map[string]int64{}
	for _, e := range d.Events {
		perDay[e.Timestamp.UTC().Format("2006-01-02")]++
	}
	testSpan(t, b, d)
	if len(st.Histogram) != 31 {
		t.Fatalf("%d daily buckets over October, want 31", len(st.Histogram))
	}
	for _, bk := range st.Histogram {
		day := bk.Start.UTC().Format("2006-01-02")
		if bk.Count != perDay[day] {
			t.Fatalf("bucket %s: %d, want %d", day, bk.Count, perDay[day])
		}
		var gs int64
		for _, g := range bk.Groups {
			gs += g.Count
		}
		if gs != bk.Count {
			t.Fatalf("bucket %s: groups add to %d of %d", day, gs, bk.Count)
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// testSpan: EventSpan is the first and last timestamp of the filter's
// events, computed here independently; nothing matching is no span.
func testSpan(t *testing.T, b Backend, d *Dataset) {
	ctx := context.Background()
	for _, f := range []audit.Filter{{TenantID: d.A}, {TenantID: d.A, Actions: []audit.Action{audit.ActionDelete}}, {TenantID: d.B, Outcome: audit.OutcomeFailure}} {
		var first, last time.Time
		for _, e := range d.All {
			if e.TenantID != f.TenantID || (len(f.Actions) > 0 && e.Action != f.Actions[0]) || (f.Outcome != "" && e.Outcome != f.Outcome) {
				continue
			}
			if first.IsZero() || e.Timestamp.Before(first) {
				first = e.Timestamp.Time
			}
			if e.Timestamp.After(last) {
				last = e.Timestamp.Time
			}
		}
		sp, err := b.Reader.EventSpan(ctx, f)
		if err != nil || !sp.Any || !sp.First.Equal(first) || !sp.Last.Equal(last) {
			t.Fatalf("span of %+v: %+v %v, want %v – %v", f, sp, err, first, last)
		}
	}
	sp, err := b.Reader.EventSpan(ctx, audit.Filter{TenantID: "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b"})
	if err != nil || sp.Any {
		t.Fatalf("a tenant with no events has no span: %+v %v", sp, err)
	}
}

// testPageByteBudget: a page of large events stops at audit.MaxPageBytes
// with hasMore and the position of its last event, and a cursor walk
// returns every event exactly once, in order, however large they are.
func testPageByteBudget(t *testing.T, b Backend) {
	d := NewDataset(200) // tenant A gets about 115: some 27 MB
	big := json.RawMessage(`{"prompt":"` + strings.Repeat("x", 240<<10) + `"}`)
	events := make([]audit.Event, len(d.Events))
	for i, e := range d.Events {
		e.After = big
		events[i] = e
	}
	Write(t, b.Writer, events)
	b.Visible(t)
	f := audit.Filter{TenantID: d.A}
	res := searchAll(t, b.Reader, audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 1000, Page: 1})
	limit := audit.MaxPageBytes / (240 << 10)
	if len(res.Events) == 0 || len(res.Events) > limit || !res.HasMore || res.Next == nil {
		t.Fatalf("a page of %d large events: %d returned (at most %d fit), hasMore %v", len(events), len(res.Events), limit, res.HasMore)
	}
	want := Expected(events, func(*audit.Event) bool { return true }, audit.DefaultSort)
	var got []string
	q := audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 1000, Page: 1}
	for pages := 0; ; pages++ {
		if pages > len(events) {
			t.Fatal("the walk does not end")
		}
		r := searchAll(t, b.Reader, q)
		for _, e := range r.Events {
			got = append(got, e.ID)
		}
		if !r.HasMore {
			break
		}
		q.After = r.Next
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the walk returned %d events, want %d in order (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
}

// streamIDs are ids as a stream's range gives them to the store: every
// seventh event of tenant A's first 300, one of them in upper case, one of
// tenant B's (never found through A), one that no event has.
func streamIDs(d *Dataset) []string {
	var ids []string
	for i := 0; i < min(300, len(d.Events)); i += 7 {
		ids = append(ids, d.Events[i].ID)
	}
	ids[1] = audit.IDPrefix + strings.ToUpper(strings.TrimPrefix(ids[1], audit.IDPrefix))
	return append(ids, d.Others[0].ID, audit.NewID())
}

// inStream is the oracle of streamIDs: event ids compare without regard
// to case, as the API takes them.
func inStream(d *Dataset, e *audit.Event) bool {
	return slices.ContainsFunc(streamIDs(d), func(id string) bool { return strings.EqualFold(id, e.ID) })
}
