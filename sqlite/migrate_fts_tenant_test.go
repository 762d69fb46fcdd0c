package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/sqlite"
)

// TestMigrationMarksTheWordsWithTheirTenant (issue 58): a database whose
// text index holds the words bare (before 0019) answers every word case,
// pages and totals, for each of two tenants with the same texts, once the
// store opens it again.
func TestMigrationMarksTheWordsWithTheirTenant(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	first, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	october := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	byTenant := map[string][]audit.Event{"t-words": storetest.WordEvents("t-words", 41, october), "t-words-b": storetest.WordEvents("t-words-b", 41, october)}
	for _, events := range byTenant {
		storetest.Write(t, first, events)
	}
	first.Close()

	// The index as 0017 left it: the same words, unmarked.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TEMP TABLE old_text AS SELECT seq, tenant_id, auditlog_search_text(body) AS search, auditlog_reason_text(body) AS reason FROM events`,
		`DROP TABLE events_fts`,
		`CREATE VIRTUAL TABLE events_fts USING fts5(search, reason, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 tokenchars '_'")`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for tenant := range byTenant {
		mark := "\uE001" + hex.EncodeToString([]byte(tenant)) + "\uE002"
		if _, err := db.Exec(`INSERT INTO events_fts (rowid, search, reason) SELECT seq, replace(search, ?, ''), replace(reason, ?, '') FROM temp.old_text WHERE tenant_id = ?`, mark, mark, tenant); err != nil {
			t.Fatal(err)
		}
	}
	var marked int
	if err := db.QueryRow(`SELECT count(*) FROM events_fts WHERE events_fts MATCH '"jose"'`).Scan(&marked); err != nil || marked == 0 {
		t.Fatalf("the old index finds %d bare words (%v): the test no longer builds the old layout", marked, err)
	}
	if _, err := db.Exec(`DELETE FROM schema_migrations WHERE name = 'migrations/0019_fts_tenant.sql'`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := openAt(t, path, accepttest.Acceptor)
	for tenant, events := range byTenant {
		for _, q := range storetest.WordCases {
			text, terms, err := search.Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			f := audit.Filter{TenantID: tenant, Q: text, Terms: terms}
			want := storetest.Expected(events, func(e *audit.Event) bool { return storetest.Matches(e, q) }, audit.DefaultSort)
			if got := storetest.Walk(t, s, f, audit.DefaultSort, 100); !slices.Equal(got, want) {
				t.Errorf("%s %q after the migration: %v, want %v", tenant, q, got, want)
			}
			res, err := s.SearchEvents(context.Background(), audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 50, Page: 1})
			if err != nil || res.Total.Value != int64(len(want)) {
				t.Errorf("%s %q after the migration: total %+v, want %d (%v)", tenant, q, res.Total, len(want), err)
			}
		}
	}
}
