package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestMigrationToIDsPerTenant opens a database made by the previous
// schema (ids unique across tenants), with events in it, and checks that
// 0003 keeps every event, its free-text row and its filters, and that
// another tenant may then store the same id.
func TestMigrationToIDsPerTenant(t *testing.T) {
	ctx := context.Background()
	path, db, mustExec := oldDatabase(t, "migrations/0003_event_ids_per_tenant.sql")
	g := gen.New(gen.Config{Seed: 5, Tenants: 2, WithIDs: true}, 50)
	var events []audit.Event
	for i := 0; i < 50; i++ {
		e := g.Next()
		body, _ := json.Marshal(e)
		mustExec(`INSERT INTO events (seq, id, tenant_id, ts, actor_id, actor_email_lc, action, resource_type, resource_id, cross_tenant, category, outcome, body)
			VALUES (?, ?, ?, ?, ?, lower(?), ?, ?, ?, ?, ?, ?, ?)`, i+1, e.ID, e.TenantID, e.Timestamp.UnixMilli(), e.Actor.ID, e.Actor.Email,
			string(e.Action), e.Resource.Type, e.Resource.ID, boolInt(e.CrossTenant), string(e.Category), string(e.Outcome), body)
		mustExec(`INSERT INTO events_fts (rowid, search) VALUES (?, ?)`, i+1, searchText(&e, 0))
		events = append(events, e)
	}
	db.Close()

	s, err := Open(ctx, Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, e := range events {
		got, err := s.GetEvent(ctx, e.TenantID, e.ID)
		if err != nil || !audit.SameEvent(&got, &e) {
			t.Fatalf("event %s after the migration: %+v %v", e.ID, got, err)
		}
	}
	// 0006 counted the events already there into the hourly rollup.
	perTenant := map[string]int64{}
	for _, e := range events {
		perTenant[e.TenantID]++
	}
	for tenant, n := range perTenant {
		st, err := s.EventStats(ctx, stats.Query{Filter: audit.Filter{TenantID: tenant}, GroupBy: stats.GroupAction})
		if err != nil || st.Total != n {
			t.Fatalf("stats after the migration: %d of %d events (%v)", st.Total, n, err)
		}
	}
	e := events[7]
	res, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: e.TenantID, Q: e.Actor.Email, ActorID: e.Actor.ID},
		Sort: audit.DefaultSort, PageSize: 50, Page: 1})
	if err != nil || res.Total.Value == 0 {
		t.Fatalf("free text and filters after the migration: %+v %v", res, err)
	}
	other := events[0]
	for _, x := range events {
		if x.TenantID != other.TenantID {
			other.TenantID = x.TenantID
			break
		}
	}
	other.Timestamp = audit.NewTimestamp(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	out, err := s.WriteEvents(ctx, []audit.Event{other, events[0]})
	if err != nil || out[0].Status != audit.WriteCreated || out[1].Status != audit.WriteDuplicate {
		t.Fatalf("after the migration another tenant may reuse an id: %+v %v", out, err)
	}
}

// oldDatabase makes a database with the migrations before the one named
// applied, as an older release left it, and returns its path, the open
// database and a statement runner that fails the test.
func oldDatabase(t *testing.T, before string) (string, *sql.DB, func(string, ...any)) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	mustExec(`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`)
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	sort.Strings(names)
	i := slices.Index(names, before)
	if i < 0 {
		t.Fatalf("no migration %s", before)
	}
	for _, name := range names[:i] {
		body, _ := migrations.ReadFile(name)
		mustExec(string(body))
		mustExec(`INSERT INTO schema_migrations (name, applied_at) VALUES (?, 0)`, name)
	}
	return path, db, mustExec
}
