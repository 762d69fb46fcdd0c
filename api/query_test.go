package api_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

// loadDataset writes the conformance suite's two-tenant dataset.
func loadDataset(t *testing.T, h *harness) *storetest.Dataset {
	t.Helper()
	d := storetest.NewDataset(4000)
	h.load(t, d.All)
	return d
}

func expected(events []audit.Event, keep func(e *audit.Event) bool, field audit.SortField, desc bool) []string {
	return storetest.Expected(events, keep, audit.Sort{Field: field, Desc: desc})
}

// walk follows nextCursor from the first page to the last and returns
// every id in order. Every page's total must be the walk's true total
// (exact up to 10,000, "gte" 10,000 beyond), cursor pages included.
func walk(t *testing.T, h *harness, tok, query string, pageSize int) []string {
	t.Helper()
	var ids []string
	var totals []audit.Total
	path := "/api/audit-logs?" + query + "&pageSize=" + fmt.Sprint(pageSize)
	for pages := 0; ; pages++ {
		r := h.get(t, path, tok)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		var lr api.ListResponse
		r.json(t, &lr)
		totals = append(totals, lr.Total)
		for _, e := range lr.Data {
			ids = append(ids, e.ID)
		}
		if !lr.HasMore {
			if lr.NextCursor != nil {
				t.Fatal("nextCursor on the last page")
			}
			want := audit.Total{Value: int64(len(ids)), Relation: "eq"}
			if len(ids) > audit.MaxWindow {
				want = audit.Total{Value: audit.MaxWindow, Relation: "gte"}
			}
			for i, got := range totals {
				if got != want {
					t.Fatalf("page %d of %q: total %+v, want %+v", i+1, query, got, want)
				}
			}
			return ids
		}
		if lr.NextCursor == nil || len(lr.Data) != pageSize {
			t.Fatalf("hasMore with %d events and cursor %v", len(lr.Data), lr.NextCursor)
		}
		path = "/api/audit-logs?" + query + "&pageSize=" + fmt.Sprint(pageSize) + "&cursor=" + *lr.NextCursor
		if pages > 100000 {
			t.Fatal("endless walk")
		}
	}
}

func TestFiltersMatchAnIndependentComputation(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	d := loadDataset(t, h)
	tok := token(t, d.A, audit.RoleAdmin, "")
	some := d.Events[17]
	from, to := time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)
	in := func(v string, set ...string) bool { return slices.Contains(set, v) }
	var withDiff string
	for _, e := range d.Events {
		if _, ok := e.Diff["maxWaitSeconds"]; ok {
			withDiff = "maxWaitSeconds"
		}
	}
	cases := []struct {
		name  string
		query string
		keep  func(e *audit.Event) bool
		field audit.SortField
		desc  bool
	}{
		{"default: everything newest first", "", func(e *audit.Event) bool { return true }, audit.SortTimestamp, true},
		{"spec: deleted queues", "action=delete&resourceType=queue", func(e *audit.Event) bool { return e.Action == "delete" && e.Resource.Type == "queue" }, audit.SortTimestamp, true},
		{"spec: recording accesses by user", "action=access&resourceType=recording&sort=actor.email",
			func(e *audit.Event) bool { return e.Action == "access" && e.Resource.Type == "recording" }, audit.SortActorEmail, false},
		{"date range", qs("from", from.Format(time.RFC3339), "to", to.Format(time.RFC3339)),
			func(e *audit.Event) bool { return !e.Timestamp.Before(from) && e.Timestamp.Before(to) }, audit.SortTimestamp, true},
		{"actorId", "actorId=" + some.Actor.ID, func(e *audit.Event) bool { return e.Actor.ID == some.Actor.ID }, audit.SortTimestamp, true},
		{"actorEmail any case", "actorEmail=" + strings.ToUpper(some.Actor.Email), func(e *audit.Event) bool { return strings.EqualFold(e.Actor.Email, some.Actor.Email) }, audit.SortTimestamp, true},
		{"actions repeated", "action=create&action=update", func(e *audit.Event) bool { return in(string(e.Action), "create", "update") }, audit.SortTimestamp, true},
		{"resource types comma-separated, ascending", "resourceType=ivr,recording_policy&order=asc", func(e *audit.Event) bool { return in(e.Resource.Type, "ivr", "recording_policy") }, audit.SortTimestamp, false},
		{"resourceId", "resourceId=" + some.Resource.ID, func(e *audit.Event) bool { return e.Resource.ID == some.Resource.ID }, audit.SortTimestamp, true},
		{"operator-team accesses", "crossTenant=true", func(e *audit.Event) bool { return e.CrossTenant }, audit.SortTimestamp, true},
		{"cross_tenant alias", "cross_tenant=false", func(e *audit.Event) bool { return !e.CrossTenant }, audit.SortTimestamp, true},
		{"category", "category=security", func(e *audit.Event) bool { return e.Category == "security" }, audit.SortTimestamp, true},
		{"failed logins", "outcome=failure", func(e *audit.Event) bool { return e.Outcome == "failure" }, audit.SortTimestamp, true},
		{"sort by action desc", "sort=action&order=desc", func(e *audit.Event) bool { return true }, audit.SortAction, true},
		{"sort by resource type", "sort=resource.type", func(e *audit.Event) bool { return true }, audit.SortResourceType, false},
		{"q: a resource id", "q=" + some.Resource.ID, func(e *audit.Event) bool { return e.Resource.ID == some.Resource.ID }, audit.SortTimestamp, true},
		{"q: a user-agent word", "q=Firefox", func(e *audit.Event) bool { return strings.Contains(e.Actor.UserAgent, "Firefox/") }, audit.SortTimestamp, true},
		{"q: a changed field", "q=" + withDiff, func(e *audit.Event) bool { _, ok := e.Diff[withDiff]; return ok }, audit.SortTimestamp, true},
		{"everything at once", qs("action", "access", "category", "sensitive_access", "outcome", "success", "crossTenant", "false", "from", from.Format(time.RFC3339), "sort", "actor.email", "order", "desc"),
			func(e *audit.Event) bool {
				return e.Action == "access" && e.Category == "sensitive_access" && e.Outcome == "success" && !e.CrossTenant && !e.Timestamp.Before(from)
			}, audit.SortActorEmail, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := expected(d.Events, tc.keep, tc.field, tc.desc)
			if len(want) == 0 {
				t.Fatal("the case selects nothing: it proves nothing")
			}
			got := walk(t, h, tok, tc.query, 97)
			if !slices.Equal(got, want) {
				t.Fatalf("got %d events, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			// Page numbers give the same order.
			r := h.get(t, "/api/audit-logs?"+tc.query+"&page=2&pageSize=5", tok)
			var lr api.ListResponse
			r.json(t, &lr)
			var page []string
			for _, e := range lr.Data {
				page = append(page, e.ID)
			}
			if w := want[min(5, len(want)):min(10, len(want))]; !slices.Equal(page, w) {
				t.Fatalf("page 2: %v, want %v", page, w)
			}
			if lr.Total.Relation != "eq" || lr.Total.Value != int64(len(want)) {
				t.Fatalf("total %+v, want %d eq", lr.Total, len(want))
			}
		})
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

// TestTenantIsolationProperty: with random filters, q, sort and cursors,
// tenant A's token never returns one event of tenant B, and B's cursors
// are refused for A.
func TestTenantIsolationProperty(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	d := loadDataset(t, h)
	tokA, tokB := token(t, d.A, audit.RoleAdmin, ""), token(t, d.B, audit.RoleAdmin, "")
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(evs []audit.Event) *audit.Event { return &evs[rng.IntN(len(evs))] }
	for i := 0; i < 60; i++ {
		// Values drawn from both tenants' data, so filters aim at B too.
		src := pick(d.Others)
		if rng.IntN(2) == 0 {
			src = pick(d.Events)
		}
		params := []string{}
		add := func(k, v string) { params = append(params, k, v) }
		if rng.IntN(2) == 0 {
			add("action", string(src.Action))
		}
		if rng.IntN(3) == 0 {
			add("resourceType", src.Resource.Type)
		}
		if rng.IntN(4) == 0 {
			add("actorEmail", src.Actor.Email)
		}
		if rng.IntN(5) == 0 {
			add("resourceId", src.Resource.ID)
		}
		if rng.IntN(4) == 0 {
			add("q", strings.Split(src.Actor.Email, "@")[0])
		}
		if rng.IntN(3) == 0 {
			add("sort", []string{"timestamp", "actor.email", "action", "resource.type"}[rng.IntN(4)])
		}
		if rng.IntN(5) == 0 {
			add("tenantId", d.B) // not a parameter: refused, never obeyed
		}
		query := qs(params...)
		r := h.get(t, "/api/audit-logs?"+query+"&pageSize=50", tokA)
		if r.status == http.StatusBadRequest && strings.Contains(query, "tenantId") {
			continue
		}
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		var lr api.ListResponse
		r.json(t, &lr)
		for _, e := range lr.Data {
			if e.TenantID != d.A {
				t.Fatalf("tenant A's query %q returned tenant %s's event %s", query, e.TenantID, e.ID)
			}
		}
		// B's cursor for the same query is refused for A.
		rb := h.get(t, "/api/audit-logs?"+query+"&pageSize=5", tokB)
		var lb api.ListResponse
		rb.json(t, &lb)
		if lb.NextCursor != nil {
			ra := h.get(t, "/api/audit-logs?"+query+"&pageSize=5&cursor="+*lb.NextCursor, tokA)
			if ra.status != http.StatusBadRequest {
				t.Fatalf("tenant B's cursor accepted for tenant A: %d", ra.status)
			}
		}
		// The detail endpoint: B's event ids are not found for A.
		if rg := h.get(t, "/api/audit-logs/"+pick(d.Others).ID, tokA); rg.status != http.StatusNotFound {
			t.Fatalf("tenant B's event visible to A: %d", rg.status)
		}
	}
}

func TestCursorsArePinnedToTheirQuery(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	d := loadDataset(t, h)
	tok := token(t, d.A, audit.RoleAdmin, "")
	r := h.get(t, "/api/audit-logs?action=access&pageSize=10", tok)
	var lr api.ListResponse
	r.json(t, &lr)
	if lr.NextCursor == nil {
		t.Fatal("no cursor")
	}
	cur := *lr.NextCursor
	for name, path := range map[string]string{
		"other filter":    "/api/audit-logs?action=delete&pageSize=10&cursor=" + cur,
		"other sort":      "/api/audit-logs?action=access&sort=action&pageSize=10&cursor=" + cur,
		"tampered":        "/api/audit-logs?action=access&pageSize=10&cursor=" + strings.Replace(cur, cur[2:3], string(cur[2]^1), 1),
		"garbage":         "/api/audit-logs?action=access&pageSize=10&cursor=abc",
		"page and cursor": "/api/audit-logs?action=access&pageSize=10&page=3&cursor=" + cur,
	} {
		r := h.get(t, path, tok)
		p := r.problem(t)
		if r.status != http.StatusBadRequest || len(p.Errors) == 0 {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
	}
	if r := h.get(t, "/api/audit-logs?action=access&pageSize=10&cursor="+cur, tok); r.status != http.StatusOK {
		t.Fatalf("the cursor with its own query: %d", r.status)
	}
}

func TestPageNumbersStopAtTheWindow(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	tok := token(t, "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b", audit.RoleAdmin, "")
	r := h.get(t, "/api/audit-logs?page=11&pageSize=1000", tok)
	p := r.problem(t)
	if r.status != http.StatusBadRequest || len(p.Errors) != 1 || p.Errors[0].Field != "page" || !strings.Contains(p.Errors[0].Message, "cursor") {
		t.Fatalf("past the window: %d %s", r.status, r.body)
	}
	if r := h.get(t, "/api/audit-logs?page=10&pageSize=1000", tok); r.status != http.StatusOK {
		t.Fatalf("the last page in the window: %d %s", r.status, r.body)
	}
}

func TestBadParametersAreAllListed(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	tok := token(t, "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b", audit.RoleAdmin, "")
	r := h.get(t, "/api/audit-logs?"+qs("from", "yesterday", "action", "publish", "pageSize", "5000", "sort", "tenant", "crossTenant", "maybe",
		"actorId", "bob", "resourceType", "Queue", "order", "up", "resource_type", "queue"), tok)
	p := r.problem(t)
	var fields []string
	for _, f := range p.Errors {
		fields = append(fields, f.Field)
	}
	want := []string{"action", "actorId", "crossTenant", "from", "order", "pageSize", "resourceType", "resource_type", "sort"}
	if r.status != http.StatusBadRequest || !slices.Equal(fields, want) || p.Code != audit.EINVALID || p.RequestID == "" {
		t.Fatalf("got %d %v, want 400 listing %v", r.status, fields, want)
	}
	// A near miss of a known parameter names it (issue 57); a far one does not guess.
	for param, says := range map[string]string{"pagesize": "is not a known parameter (did you mean pageSize?)", "colour": "is not a known parameter"} {
		r := h.get(t, "/api/audit-logs?"+qs(param, "5"), tok)
		if p := r.problem(t); r.status != http.StatusBadRequest || len(p.Errors) != 1 || p.Errors[0].Message != says {
			t.Errorf("?%s=5: %d %+v, want 400 saying %q", param, r.status, p.Errors, says)
		}
	}
}

// TestCursorWalkOverOneHundredThousandEvents: each event exactly once, in
// order, although many share a timestamp.
func TestCursorWalkOverOneHundredThousandEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 100,000-event walk runs in make test")
	}
	h := newHarness(t, harnessOpts{})
	const n = 100000
	g := gen.New(gen.Config{Seed: 5, Tenants: 1, WithIDs: true}, n)
	tenant := &g.Tenants()[0]
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	events := make([]audit.Event, n)
	for i := range events {
		// 500 distinct instants: 200 events share each.
		events[i] = g.NextFor(tenant, base.Add(time.Duration(i%500)*time.Second))
	}
	h.load(t, events)
	tok := token(t, tenant.ID, audit.RoleAdmin, "")
	got := walk(t, h, tok, "", 1000)
	want := expected(events, func(*audit.Event) bool { return true }, audit.SortTimestamp, true)
	if len(got) != n || !slices.Equal(got, want) {
		t.Fatalf("walked %d events, want %d in order (first difference at %d)", len(got), n, firstDiff(got, want))
	}
}

func TestGetEventAndNotFoundAreIndistinguishable(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	d := loadDataset(t, h)
	tok := token(t, d.A, audit.RoleAdmin, "")
	var full audit.Event
	for _, e := range d.Events {
		if len(e.Before) > 0 {
			full = e
			break
		}
	}
	r := h.get(t, "/api/audit-logs/"+full.ID, tok)
	var got audit.Event
	r.json(t, &got)
	if r.status != 200 || got.ID != full.ID || string(got.Before) != string(full.Before) || string(got.After) != string(full.After) || len(got.Diff) != len(full.Diff) {
		t.Fatalf("detail: %d %s", r.status, r.body)
	}
	foreign := h.get(t, "/api/audit-logs/"+d.Others[0].ID, tok)
	missing := h.get(t, "/api/audit-logs/"+audit.NewID(), tok)
	pf, pm := foreign.problem(t), missing.problem(t)
	if foreign.status != 404 || missing.status != 404 || pf.Title != pm.Title || pf.Code != pm.Code ||
		strings.Replace(pf.Detail, d.Others[0].ID, "X", 1) != strings.Replace(pm.Detail, pm.Detail[strings.LastIndex(pm.Detail, " ")+1:], "X", 1) {
		t.Fatalf("foreign %d %s vs missing %d %s", foreign.status, foreign.body, missing.status, missing.body)
	}
}

func TestStatsMatchTheEvents(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	d := loadDataset(t, h)
	tok := token(t, d.A, audit.RoleAdmin, "")
	want := map[string]int64{}
	for _, e := range d.Events {
		if e.Category == "security" {
			want[string(e.Action)]++
		}
	}
	r := h.get(t, "/api/audit-logs/stats?groupBy=action&category=security", tok)
	var st stats.Stats
	r.json(t, &st)
	got := map[string]int64{}
	var sum int64
	for _, g := range st.Groups {
		got[g.Key] = g.Count
		sum += g.Count
	}
	if r.status != 200 || fmt.Sprint(got) != fmt.Sprint(want) || st.Total != sum {
		t.Fatalf("stats %d %s; want %v", r.status, r.body, want)
	}
	r = h.get(t, "/api/audit-logs/stats?interval=1d&groupBy=outcome&"+qs("from", "2026-10-01T00:00:00Z", "to", "2026-11-01T00:00:00Z"), tok)
	r.json(t, &st)
	var hsum int64
	for _, b := range st.Histogram {
		hsum += b.Count
		var gs int64
		for _, g := range b.Groups {
			gs += g.Count
		}
		if gs != b.Count {
			t.Fatalf("bucket %s: groups add to %d of %d", b.Start, gs, b.Count)
		}
	}
	if r.status != 200 || len(st.Histogram) != 31 || hsum != int64(len(d.Events)) || st.Total != hsum {
		t.Fatalf("histogram: %d buckets adding to %d of %d", len(st.Histogram), hsum, len(d.Events))
	}
	if r := h.get(t, "/api/audit-logs/stats", tok); r.status != 400 {
		t.Fatalf("stats without groupBy or interval: %d", r.status)
	}
	// An open range is the matching events' span: a month of one-minute
	// buckets (44,640) is a 400 naming interval with a round one that fits,
	// hourly buckets (744) are answered and add up to the total.
	r = h.get(t, "/api/audit-logs/stats?interval=1m&groupBy=actor.email", tok)
	if p := r.problem(t); r.status != 400 || len(p.Errors) != 1 || p.Errors[0].Field != "interval" || !strings.Contains(p.Errors[0].Message, "at least 30m") {
		t.Fatalf("open-range 1m stats: %d %s", r.status, r.body)
	}
	r = h.get(t, "/api/audit-logs/stats?interval=1h&"+qs("from", "2026-10-15T00:00:00Z"), tok)
	r.json(t, &st)
	hsum = 0
	for _, b := range st.Histogram {
		hsum += b.Count
	}
	if r.status != 200 || len(st.Histogram) == 0 || len(st.Histogram) > stats.MaxBuckets || hsum != st.Total {
		t.Fatalf("open-to hourly stats: %d, %d buckets adding to %d of %d", r.status, len(st.Histogram), hsum, st.Total)
	}
	// A tenant with no events answers the same keys.
	empty := token(t, "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b", audit.RoleAdmin, "")
	r = h.get(t, "/api/audit-logs/stats?interval=1m&groupBy=action", empty)
	if r.status != 200 || string(r.body) != `{"total":0,"groups":[],"histogram":[]}` {
		t.Fatalf("empty tenant stats: %d %q", r.status, r.body)
	}
}
