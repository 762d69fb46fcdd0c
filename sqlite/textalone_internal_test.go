package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestFreeTextCountsFromTheIndexOnlyWhenTheBoundsExcludeNothing (issue
// 58): a bare word's total comes from the text index alone when the
// filter's time bounds, like the retention bound the API puts on every
// read, exclude none of the tenant's events; bounds that exclude some
// count them over the table, and every total is the number of events
// with the word inside the bounds, counted here from the events.
func TestFreeTextCountsFromTheIndexOnlyWhenTheBoundsExcludeNothing(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := gen.New(gen.Config{Seed: 58, Tenants: 2, WithIDs: true}, 2000)
	var events []audit.Event
	for i := 0; i < 2000; i++ {
		e := g.Next()
		if i%3 == 0 {
			e.Actor.UserAgent = "Kestrel/1.0"
		}
		events = append(events, e)
	}
	if _, err := s.WriteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	tenant := g.Tenants()[0].ID
	var mine []audit.Event
	for _, e := range events {
		if e.TenantID == tenant {
			mine = append(mine, e)
		}
	}
	first, last := mine[0].Timestamp.Time, mine[len(mine)-1].Timestamp.Time
	at := func(d time.Time) *time.Time { return &d }
	cases := []struct {
		name     string
		from, to *time.Time
		alone    bool
	}{
		{"no bounds", nil, nil, true},
		{"retention's bound", at(first.Add(-365 * 24 * time.Hour)), nil, true},
		{"both around every event", at(first), at(last.Add(time.Millisecond)), true},
		{"from after the first event", at(first.Add(time.Millisecond)), nil, false},
		{"to at the last event", nil, at(last), false},
		{"a window inside", at(mine[len(mine)/3].Timestamp.Time), at(mine[2*len(mine)/3].Timestamp.Time), false},
	}
	for _, c := range cases {
		f := audit.Filter{TenantID: tenant, Q: "kestrel", From: c.from, To: c.to}
		if got := s.textAlone(ctx, f) != ""; got != c.alone {
			t.Errorf("%s: counted from the text index alone: %v, want %v", c.name, got, c.alone)
		}
		want := 0
		for _, e := range mine {
			if e.Actor.UserAgent == "Kestrel/1.0" && (c.from == nil || !e.Timestamp.Before(*c.from)) && (c.to == nil || e.Timestamp.Before(*c.to)) {
				want++
			}
		}
		res, err := s.SearchEvents(ctx, audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 50, Page: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Total.Value != int64(want) || len(res.Events) != min(50, want) {
			t.Errorf("%s: total %d and a page of %d, the events make %d", c.name, res.Total.Value, len(res.Events), want)
		}
	}
	// Another filter beside the text: never the index alone.
	if s.textAlone(ctx, audit.Filter{TenantID: tenant, Q: "kestrel", Actions: []audit.Action{audit.ActionUpdate}}) != "" {
		t.Error("free text with an action counted from the text index alone")
	}
}
