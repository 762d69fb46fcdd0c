package sqlite

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

// TestBoundedWalksReadTheFirstMatches: a search whose matches a bounded
// walk finds (one event in five from a network), one whose matches are
// the tenant's oldest (the walk from the newest finds none within its
// bound and the page is read the usual way), and each within time
// bounds, sorted by time and by user both ways, answer every page (by
// number and through cursors) with the matching events in order, as
// the events themselves say; and the walk answered the first and not
// the second.
func TestBoundedWalksReadTheFirstMatches(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := gen.New(gen.Config{Seed: 61, Tenants: 1, WithIDs: true}, 6000)
	events := make([]audit.Event, 6000)
	for i := range events {
		events[i] = g.Next()
		events[i].Actor.IP = fmt.Sprintf("10.1.%d.%d", i/250, i%250)
		if i%5 == 0 {
			events[i].Actor.IP = fmt.Sprintf("203.0.113.%d", i%250)
		}
	}
	oldest := slices.Clone(events)
	slices.SortFunc(oldest, func(a, b audit.Event) int { return a.Timestamp.Compare(b.Timestamp.Time) })
	old := map[string]bool{}
	for _, e := range oldest[:700] {
		old[e.ID] = true
	}
	for i := range events {
		if old[events[i].ID] {
			events[i].Actor.IP = fmt.Sprintf("192.0.2.%d", i%250)
		}
	}
	storetest.Write(t, s, events)
	tenant := events[0].TenantID
	mid := oldest[3000].Timestamp.Add(time.Second / 3)
	sorts := []audit.Sort{audit.DefaultSort, {Field: audit.SortTimestamp}, {Field: audit.SortActorEmail}, {Field: audit.SortActorEmail, Desc: true}}
	for _, c := range []struct {
		q        string
		from, to *time.Time
		walks    bool // the first page of the time and user sorts is walked
	}{
		{q: "ip:203.0.113.0/24", walks: true},
		{q: "ip:203.0.113.0/24", from: &mid},
		{q: "ip:203.0.113.0/24", to: &mid},
		{q: "ip:192.0.2.0/24"},
		{q: "ip:192.0.2.0/24", to: &mid},
	} {
		text, terms, err := search.Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		f := audit.Filter{TenantID: tenant, Q: text, Terms: terms, From: c.from, To: c.to}
		for _, sort := range sorts {
			name := fmt.Sprintf("%s from %v to %v by %s desc %v", c.q, c.from != nil, c.to != nil, sort.Field, sort.Desc)
			want := walkOracle(events, f, sort)
			checkWalkPages(t, s, name, audit.Query{Filter: f, Sort: sort, PageSize: 50}, want)
			// Walked: the first case, in every sort; not: the oldest
			// events, newest first.
			if c.walks || c.q == "ip:192.0.2.0/24" && c.to == nil && sort == audit.DefaultSort {
				q := audit.Query{Filter: f, Sort: sort, PageSize: 50, Page: 1}
				_, _, ok, err := s.walkPage(ctx, q, audit.Total{Value: int64(len(want)), Relation: audit.TotalExact}, 0, 50)
				if err != nil || ok != c.walks {
					t.Errorf("%s: the walk answered %v (%v), want %v", name, ok, err, c.walks)
				}
			}
		}
	}
}

// checkWalkPages reads q's pages by number (the first three) and through
// cursors (all of them), and compares each with want's.
func checkWalkPages(t *testing.T, s *Store, name string, q audit.Query, want []string) {
	t.Helper()
	ctx := context.Background()
	for page := 1; page <= 3; page++ {
		q.Page = page
		res, err := s.SearchEvents(ctx, q)
		if err != nil {
			t.Fatalf("%s, page %d: %v", name, page, err)
		}
		lo, hi := min((page-1)*50, len(want)), min(page*50, len(want))
		if got := eventIDs(res.Events); !slices.Equal(got, want[lo:hi]) {
			t.Errorf("%s, page %d: %d events %v…, want %d %v…", name, page, len(got), head(got), hi-lo, head(want[lo:hi]))
		}
	}
	q.Page = 1
	var all []string
	for i := 0; ; i++ {
		res, err := s.SearchEvents(ctx, q)
		if err != nil || i > len(want)/50+1 {
			t.Fatalf("%s, cursor page %d: %v", name, i, err)
		}
		all = append(all, eventIDs(res.Events)...)
		if res.Next == nil {
			break
		}
		q.After, q.Counted = res.Next, &res.Total
	}
	if !slices.Equal(all, want) {
		t.Errorf("%s: the cursor pages hold %d events, want %d", name, len(all), len(want))
	}
}

// walkOracle is the ids of the events f matches (f's tenant, time bounds
// and address blocks, read from the events' fields), in sort's order.
func walkOracle(events []audit.Event, f audit.Filter, sort audit.Sort) []string {
	var out []audit.Event
	for _, e := range events {
		ip := netip.MustParseAddr(e.Actor.IP)
		in := true
		for _, term := range f.Terms {
			in = in && netip.MustParsePrefix(term.Values[0].Text).Contains(ip)
		}
		if e.TenantID == f.TenantID && in && (f.From == nil || e.Timestamp.UnixMilli() >= f.From.UnixMilli()) &&
			(f.To == nil || e.Timestamp.UnixMilli() < f.To.UnixMilli()) {
			out = append(out, e)
		}
	}
	key := func(e audit.Event) string {
		if sort.Field == audit.SortTimestamp {
			return fmt.Sprintf("%016d %s", e.Timestamp.UnixMilli(), e.ID)
		}
		return strings.ToLower(e.Actor.Email) + "\x00" + e.ID
	}
	slices.SortFunc(out, func(a, b audit.Event) int {
		if sort.Desc {
			return strings.Compare(key(b), key(a))
		}
		return strings.Compare(key(a), key(b))
	})
	return eventIDs(out)
}

func eventIDs(events []audit.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

func head(ids []string) []string { return ids[:min(3, len(ids))] }
