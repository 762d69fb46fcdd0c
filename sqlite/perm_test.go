package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/sqlite"
)

// TestTheDatabaseIsItsOwnersAlone (issue 53): a new database, its WAL and
// its shared memory are created 0600; an existing one that others may
// read is narrowed to 0600 when the store opens it.
func TestTheDatabaseIsItsOwnersAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.db")
	s, err := sqlite.Open(context.Background(), sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteEvents(context.Background(), storetest.NewDataset(3).All); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			st, err := os.Stat(p)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("%s: %s is %v (%v), want 0600", when, p, st.Mode().Perm(), err)
			}
		}
	}
	check("new")
	s.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		_ = os.Chmod(p, 0o644)
	}
	if s, err = sqlite.Open(context.Background(), sqlite.Config{Path: path}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("reopened")
}
