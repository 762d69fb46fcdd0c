package sqlite

import (
	"context"
	"fmt"
	"github.com/auditlog/auditlog/audit/search"
	"path/filepath"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestIndexHintNamesTheNarrowestTerm: with two indexed search terms, the
// hint names the index of the one with fewer rows, whichever comes
// first; with one such term, or with a negated one, none.
func TestIndexHintNamesTheNarrowestTerm(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := gen.New(gen.Config{Seed: 6, Tenants: 1, WithIDs: true}, 3000)
	var events []audit.Event
	for i := 0; i < 3000; i++ {
		e := g.Next()
		e.Actor.IP = "198.51.100.7" // every event from one network
		if i%100 == 0 {
			e.Actor.Email = fmt.Sprintf("zed.%d@x.example", i) // 30 events of zed*
		}
		events = append(events, e)
	}
	if _, err := s.WriteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	hint := func(q string) string {
		text, terms, err := search.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		return s.indexHint(ctx, audit.Filter{TenantID: events[0].TenantID, Q: text, Terms: terms})
	}
	for q, want := range map[string]string{
		"ip:198.0.0.0/8 actor:zed*":  " INDEXED BY events_by_email",
		"actor:zed* ip:198.0.0.0/8":  " INDEXED BY events_by_email",
		"actor:zed*":                 "",
		"-actor:zed* ip:198.0.0.0/8": "",
	} {
		if got := hint(q); got != want {
			t.Errorf("%s: hint %q, want %q", q, got, want)
		}
	}
	res, err := s.SearchEvents(ctx, audit.Query{Filter: func() audit.Filter {
		text, terms, _ := search.Parse("ip:198.0.0.0/8 actor:zed*")
		return audit.Filter{TenantID: events[0].TenantID, Q: text, Terms: terms}
	}(), Sort: audit.DefaultSort, PageSize: 50, Page: 1})
	if err != nil || len(res.Events) != 30 || res.Total.Value != 30 {
		t.Fatalf("the hinted search: %d events, total %+v, %v", len(res.Events), res.Total, err)
	}
}
