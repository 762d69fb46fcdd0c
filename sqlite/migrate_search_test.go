package sqlite

import (
	"context"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/search"
	"net/netip"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestMigrationFillsTheSearchColumns opens a database made by the schema
// before 0008, with events in it, and checks that role:, ip: (an address
// and a block) and request: find them afterwards.
func TestMigrationFillsTheSearchColumns(t *testing.T) {
	ctx := context.Background()
	path, db, mustExec := oldDatabase(t, "migrations/0008_search_columns.sql")
	g := gen.New(gen.Config{Seed: 8, Tenants: 1, WithIDs: true}, 200)
	var events []audit.Event
	for range 200 {
		e := g.Next()
		body, _ := json.Marshal(e)
		mustExec(`INSERT INTO events (id, tenant_id, ts, actor_id, actor_email_lc, action, resource_type, resource_id, cross_tenant, category, outcome, body)
			VALUES (?, ?, ?, ?, lower(?), ?, ?, ?, ?, ?, ?, ?)`, e.ID, e.TenantID, e.Timestamp.UnixMilli(), e.Actor.ID, e.Actor.Email,
			string(e.Action), e.Resource.Type, e.Resource.ID, boolInt(e.CrossTenant), string(e.Category), string(e.Outcome), body)
		events = append(events, e)
	}
	db.Close()

	s, err := Open(ctx, Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	probe := events[3]
	block := netip.PrefixFrom(netip.MustParseAddr(probe.Actor.IP), 8).Masked()
	if netip.MustParseAddr(probe.Actor.IP).Is6() {
		block = netip.PrefixFrom(netip.MustParseAddr(probe.Actor.IP), 32).Masked()
	}
	for q, keep := range map[string]func(e audit.Event) bool{
		"ip:" + probe.Actor.IP:       func(e audit.Event) bool { return e.Actor.IP == probe.Actor.IP },
		"ip:" + block.String():       func(e audit.Event) bool { return block.Contains(netip.MustParseAddr(e.Actor.IP)) },
		"role:" + probe.Actor.Role:   func(e audit.Event) bool { return e.Actor.Role == probe.Actor.Role },
		"request:" + probe.RequestID: func(e audit.Event) bool { return e.RequestID == probe.RequestID },
	} {
		text, terms, err := search.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: probe.TenantID, Q: text, Terms: terms}, Sort: audit.DefaultSort, PageSize: 1000, Page: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, e := range events {
			if keep(e) {
				want++
			}
		}
		if len(res.Events) != want || want == 0 {
			t.Errorf("%s after the migration: %d events, want %d", q, len(res.Events), want)
		}
	}
}
