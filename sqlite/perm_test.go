package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/seal"
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

// TestVerifyNamesAnOrphanTextRow (issue 53): a row of the text index that
// no event has, inserted straight into the file, is named by the store's
// verification (misindexed, "text index row"); the events still verify.
func TestVerifyNamesAnOrphanTextRow(t *testing.T) {
	ctx := context.Background()
	s, path, events, v := sealedStore(t, 21, 20)
	execSQL(t, path, `INSERT INTO events_fts (rowid, search, reason) VALUES (987654, 'planted words', '')`)
	rep, err := seal.Verify(ctx, s, s, events[0].TenantID, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != "misindexed" || !strings.Contains(rep.Findings[0].EventID, "text index row 987654") || rep.Events != 20 {
		t.Fatalf("findings %v, events %d: want the orphan row named", rep.Findings, rep.Events)
	}
}
