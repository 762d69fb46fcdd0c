package sqlite_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/sqlite"
)

// TestAReadOnlyDatabaseIsNamedAtOpen (issue 57): a database the service
// cannot write stops Open with an error that names its path and what to
// check, rather than opening and failing the first ingest with SQLite's
// bare "attempt to write a readonly database". Two ways to be read-only:
// a file the process may not write (made immutable with chattr, since
// root ignores file modes; a non-root run uses chmod 0444) and a
// connection that refuses writes (PRAGMA query_only).
func TestAReadOnlyDatabaseIsNamedAtOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteEvents(ctx, storetest.NewDataset(3).All); err != nil {
		t.Fatal(err)
	}
	s.Close()
	named := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("a read-only database opened")
		}
		if audit.ErrorCode(err) != audit.EUNAVAILABLE || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "cannot be written") {
			t.Fatalf("error %q (%s) does not name %s as read-only", err, audit.ErrorCode(err), path)
		}
	}
	t.Run("query_only", func(t *testing.T) {
		_, err := sqlite.Open(ctx, sqlite.Config{Path: path, Tune: []string{"PRAGMA query_only = ON"}})
		named(t, err)
	})
	t.Run("file", func(t *testing.T) {
		if os.Geteuid() != 0 {
			if err := os.Chmod(path, 0o444); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(path, 0o600) })
		} else {
			if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
				t.Fatalf("chattr +i (root writes any file whatever its mode; an immutable file is read-only even to root): %v: %s", err, out)
			}
			t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
		}
		_, err := sqlite.Open(ctx, sqlite.Config{Path: path})
		named(t, err)
	})
}
