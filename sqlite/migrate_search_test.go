package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"net/netip"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestMigrationFillsTheSearchColumns opens a database made by the schema
// before 0008, with events in it, and checks that role:, ip: (an address
// and a block) and request: find them afterwards.
func TestMigrationFillsTheSearchColumns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	mustExec(`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`)
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	sort.Strings(names)
	for _, name := range names[:slices.Index(names, "migrations/0008_search_columns.sql")] {
		body, _ := migrations.ReadFile(name)
		mustExec(string(body))
		mustExec(`INSERT INTO schema_migrations (name, applied_at) VALUES (?, 0)`, name)
	}
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
		text, terms, err := audit.ParseSearch(q)
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
