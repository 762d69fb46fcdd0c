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
// text index holds the words bare (before 0019), or marked with the
// tenant id in hex (0019, before 0020), answers every word case, pages
// and totals, for each of two tenants with the same texts, once the store
// opens it again; the tenants have numbers and the words their marks.
func TestMigrationMarksTheWordsWithTheirTenant(t *testing.T) {
	for _, layout := range []struct {
		name   string
		mark   func(tenant string) string
		redone []string
	}{
		{"bare words (before 0019)", func(string) string { return "" }, []string{"0019_fts_tenant", "0020_tenant_numbers"}},
		{"the id in hex (0019)", func(tenant string) string { return "\uE001" + hex.EncodeToString([]byte(tenant)) + "\uE002" }, []string{"0020_tenant_numbers"}},
	} {
		t.Run(layout.name, func(t *testing.T) {
			path, byTenant := oldTextIndex(t, layout.mark, layout.redone)
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
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var numbered, marked int
			if err := db.QueryRow(`SELECT count(*) FROM tenant_numbers`).Scan(&numbered); err != nil || numbered != len(byTenant) {
				t.Errorf("%d tenants numbered (%v), want %d", numbered, err, len(byTenant))
			}
			if err := db.QueryRow(`SELECT count(*) FROM events_fts WHERE events_fts MATCH '"jose"'`).Scan(&marked); err != nil || marked != 0 {
				t.Errorf("the index still finds %d bare words (%v)", marked, err)
			}
		})
	}
}

// oldTextIndex is a database of two tenants with the same texts whose
// text index holds the words after mark(tenant) as an earlier version
// wrote them, with the migrations redone forgotten.
func oldTextIndex(t *testing.T, mark func(string) string, redone []string) (string, map[string][]audit.Event) {
	t.Helper()
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
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sqlite.AsOf0020(t, db)
	for _, q := range []string{
		// The words as the current version marks them with no number (0),
		// each mark then replaced by the earlier one.
		`CREATE TEMP TABLE old_text AS SELECT seq, tenant_id, auditlog_tenant_search_text(body, 0) AS search, auditlog_tenant_reason_text(body, 0) AS reason FROM events`,
		`DROP TABLE events_fts`,
		`DROP TABLE tenant_numbers`,
		`CREATE VIRTUAL TABLE events_fts USING fts5(search, reason, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 tokenchars '_'")`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for tenant := range byTenant {
		if _, err := db.Exec(`INSERT INTO events_fts (rowid, search, reason) SELECT seq, replace(search, ?, ?), replace(reason, ?, ?) FROM temp.old_text WHERE tenant_id = ?`,
			"\uE0010\uE002", mark(tenant), "\uE0010\uE002", mark(tenant), tenant); err != nil {
			t.Fatal(err)
		}
	}
	var found int
	if err := db.QueryRow(`SELECT count(*) FROM events_fts WHERE events_fts MATCH ?`, `"`+mark("t-words")+`jose"`).Scan(&found); err != nil || found == 0 {
		t.Fatalf("the old index finds %d of its words (%v): the test no longer builds the old layout", found, err)
	}
	for _, name := range redone {
		if _, err := db.Exec(`DELETE FROM schema_migrations WHERE name = ?`, "migrations/"+name+".sql"); err != nil {
			t.Fatal(err)
		}
	}
	return path, byTenant
}
