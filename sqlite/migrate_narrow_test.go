package sqlite_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/sqlite"
)

// TestMigrationNarrowsTheRows (issue 58, 0021): a sealed store in the
// layout 0020 left (ids as text, the tenant by id, whole bodies as JSON,
// every leaf with its hash) reads the same once the store opens it
// again: every event as it was written, the same pages for filters on
// the columns that became keys (the actor, the resource and its prefix,
// the address block, event ids) and every sort, and a verification with
// no finding; the bodies are compressed without the ids, the leaves
// keep no hash their entry gives, and the file holds fewer pages. A row
// edited behind the service before the upgrade is left as it is, and
// named after it.
func TestMigrationNarrowsTheRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	g := gen.New(gen.Config{Seed: 21, Tenants: 2, WithIDs: true}, 120)
	var events []audit.Event
	for range 120 {
		events = append(events, g.Next())
	}
	storetest.Write(t, s, events)
	sealer, v := storetest.NewSealer(t, s, 0)
	storetest.SealAll(t, sealer)
	tenant := events[0].TenantID
	var victim audit.Event // of the other tenant, edited behind the service
	var mine []audit.Event
	for _, e := range events {
		if e.TenantID == tenant {
			mine = append(mine, e)
		} else if victim.ID == "" {
			victim = e
		}
	}
	e7 := mine[7]
	queries := []audit.Filter{
		{TenantID: tenant},
		{TenantID: tenant, ActorID: e7.Actor.ID},
		{TenantID: tenant, ResourceID: e7.Resource.ID},
		{TenantID: tenant, EventIDs: []string{mine[3].ID, mine[9].ID, e7.ID}},
		{TenantID: tenant, Terms: []audit.Term{{Field: audit.SearchResource, Values: []audit.TermValue{{Text: e7.Resource.ID[:5], Prefix: true}}}}},
		{TenantID: tenant, Terms: []audit.Term{{Field: audit.SearchIP, Values: []audit.TermValue{{Text: "0.0.0.0/1"}}}}},
		{TenantID: tenant, Terms: []audit.Term{{Field: audit.SearchActorID, Values: []audit.TermValue{{Text: e7.Actor.ID}}}}},
	}
	sorts := []audit.Sort{audit.DefaultSort, {Field: audit.SortActorEmail}, {Field: audit.SortAction, Desc: true}, {Field: audit.SortResourceType}}
	pages := func() [][]string {
		var out [][]string
		for _, f := range queries {
			for _, so := range sorts {
				out = append(out, storetest.Walk(t, s, f, so, 7))
			}
		}
		return out
	}
	before := pages()
	for i, p := range before[1:7] {
		if len(p) == 0 {
			t.Fatalf("query %d finds nothing before the migration: the test checks nothing", i+1)
		}
	}
	s.Close()

	db := openFile(t, path)
	sqlite.AsOf0020(t, db)
	var plain int
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE hex(substr(body, 1, 1)) = '7B'`).Scan(&plain); err != nil || plain != len(events) {
		t.Fatalf("%d of %d bodies as JSON before the migration (%v)", plain, len(events), err)
	}
	// A row edited behind the service: another tenant's event in its body.
	if _, err := db.Exec(`UPDATE events SET body = CAST(json_set(CAST(body AS TEXT), '$.tenantId', '00000000-0000-4000-8000-000000000009') AS BLOB) WHERE id = ?`, victim.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`VACUUM`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	pagesBefore := pageCount(t, path)

	if s, err = sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: path}); err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.ID == victim.ID {
			continue
		}
		got, err := s.GetEvent(ctx, e.TenantID, e.ID)
		if err != nil || !audit.SameEvent(&got, &e) {
			t.Fatalf("%s after the migration: %+v %v", e.ID, got, err)
		}
	}
	if _, err := s.GetEvent(ctx, victim.TenantID, victim.ID); err == nil || !strings.Contains(err.Error(), "another tenant") {
		t.Errorf("the row edited before the upgrade: %v, want it unreadable", err)
	}
	after := pages()
	for i := range before {
		if !slices.Equal(after[i], before[i]) {
			t.Errorf("query %d, sort %d after the migration: %v, want %v", i/len(sorts), i%len(sorts), after[i], before[i])
		}
	}
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil || len(rep.Findings) != 0 || rep.Events != int64(len(mine)) {
		t.Fatalf("after the migration: %+v %v", rep, err)
	}
	if rep, err = seal.Verify(ctx, s, s, victim.TenantID, v); err != nil {
		t.Fatal(err)
	}
	dropRollupFindings(&rep)
	storetest.WantFindings(t, rep, map[string]string{victim.ID: "malformed"}, s, s, victim.TenantID)

	s.Close()
	db = openFile(t, path)
	var packed, hashes int
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE substr(body, 1, 1) = x'01' AND instr(auditlog_event_json(body), auditlog_id_of(id)) = 0`).Scan(&packed); err != nil || packed != len(events)-1 {
		t.Errorf("%d of %d bodies compressed without their id (%v)", packed, len(events)-1, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM tlog_leaves WHERE hash IS NOT NULL`).Scan(&hashes); err != nil || hashes != 0 {
		t.Errorf("%d leaves keep the hash their entry gives (%v)", hashes, err)
	}
	if _, err := db.Exec(`VACUUM`); err != nil {
		t.Fatal(err)
	}
	if after := pageCount(t, path); after >= pagesBefore {
		t.Errorf("%d pages after the migration, %d before", after, pagesBefore)
	}
}

// pageCount is the pages of the database at path in use.
func pageCount(t *testing.T, path string) int {
	t.Helper()
	db := openFile(t, path)
	var pages, free int
	if err := db.QueryRow(`SELECT (SELECT page_count FROM pragma_page_count()), (SELECT freelist_count FROM pragma_freelist_count())`).Scan(&pages, &free); err != nil {
		t.Fatal(err)
	}
	return pages - free
}
