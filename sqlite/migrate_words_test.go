package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/sqlite"
)

// TestMigrationBringsTheWordModel (issue 56): a database whose text index
// holds the texts as written (before 0017: FTS5's own folding, a phrase
// across two values, request ids in their case) answers every word case
// as the word model says once the store opens it again.
func TestMigrationBringsTheWordModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	first, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	events := storetest.WordEvents("t-words", 41, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC))
	storetest.Write(t, first, events)
	first.Close()

	// The index and the request ids' index as before 0017.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	sqlite.AsOf0020(t, db)
	for _, q := range []string{
		`DROP TABLE events_fts`,
		`CREATE VIRTUAL TABLE events_fts USING fts5(search, reason, content='', contentless_delete=1, tokenize="unicode61 tokenchars '_'")`,
		`DROP INDEX events_by_request`, `CREATE INDEX events_by_request ON events (tenant_id, request_id)`,
		`DELETE FROM schema_migrations WHERE name = 'migrations/0017_word_model.sql'`,
		// 0020 rebuilds the index that 0017 now leaves empty.
		`DELETE FROM schema_migrations WHERE name = 'migrations/0020_tenant_numbers.sql'`, `DROP TABLE tenant_numbers`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, e := range events {
		changed := e.ChangedFields()
		old := strings.Join(e.AppendSearchValues(append(e.TextValues(), changed...), changed), " ")
		if _, err := db.Exec(`INSERT INTO events_fts (rowid, search, reason) SELECT seq, ?, ? FROM events WHERE id = ?`, old, e.Reason, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s := openAt(t, path, accepttest.Acceptor)
	for _, q := range storetest.WordCases {
		text, terms, err := search.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		f := audit.Filter{TenantID: "t-words", Q: text, Terms: terms}
		want := storetest.Expected(events, func(e *audit.Event) bool { return storetest.Matches(e, q) }, audit.DefaultSort)
		if got := storetest.Walk(t, s, f, audit.DefaultSort, 100); !slices.Equal(got, want) {
			t.Errorf("%q after the migration: %v, want %v", q, got, want)
		}
	}
}
