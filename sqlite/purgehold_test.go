package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/sqlite"
)

// TestPurgeKeepsWhatLegalHoldsKeep runs the legal hold scenario (issue
// 55) on the purge: each event goes at its own retention unless a hold
// in force keeps it. The purge reads the holds inside the transaction
// that deletes, so a hold's write either commits before it (and is
// honoured) or waits for it.
func TestPurgeKeepsWhatLegalHoldsKeep(t *testing.T) {
	storetest.RunLegalHolds(t, func(t *testing.T, clock func() time.Time) storetest.HoldBackend {
		path := filepath.Join(t.TempDir(), "audit.db")
		s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: path, Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return storetest.HoldBackend{Store: s,
			Retain: func(t testing.TB) retention.Pass {
				pass, err := s.Purge(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return pass
			},
			Visible: func(testing.TB) {},
			DeleteBehind: func(t testing.TB, _, id string) {
				execSQL(t, path, `DELETE FROM events WHERE id = auditlog_id_key(?)`, id)
			},
		}
	})
}
