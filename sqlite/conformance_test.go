package sqlite_test

import (
	"context"
	"database/sql"
	"github.com/auditlog/auditlog/audit/vlog"
	"path/filepath"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/sqlite"
)

func open(t testing.TB) *sqlite.Store {
	return openAt(t, filepath.Join(t.TempDir(), "audit.db"), accepttest.Acceptor)
}

// execSQL runs one statement on the database file, behind the store.
func execSQL(t testing.TB, path, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

// openAt opens the store of path, tagging with accept.
func openAt(t testing.TB, path string, accept *vlog.Acceptor) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accept, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		path := filepath.Join(t.TempDir(), "audit.db")
		s := openAt(t, path, accepttest.Acceptor)
		return storetest.Backend{Writer: s, Reader: s, Tenants: s, Scanner: s, Jobs: s, Keys: s, Restores: s, Periodic: s, Saved: s, Streams: s,
			PlantKey: func(t testing.TB, name string, value []byte) {
				execSQL(t, path, `INSERT INTO keys (name, value, created_at) VALUES (?, ?, 0)`, name, value)
			},
			Visible: func(testing.TB) {}, // a committed write is visible at once
			EnforceRetention: func(t testing.TB) {
				if _, err := s.Purge(context.Background()); err != nil {
					t.Fatal(err)
				}
			}}
	})
}

func TestLogConformance(t *testing.T) {
	storetest.RunLog(t, func(t *testing.T) storetest.LogBackend {
		path := filepath.Join(t.TempDir(), "audit.db")
		s := openAt(t, path, accepttest.Acceptor)
		return storetest.LogBackend{Log: s, Backend: storetest.Backend{Writer: s, Reader: s, Visible: func(testing.TB) {}},
			WriterWith: func(t *testing.T, a *vlog.Acceptor) audit.EventWriter { return openAt(t, path, a) }}
	})
}
