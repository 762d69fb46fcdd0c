package sqlite

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// TestMigrationToHashBlocks: 0018 packs the tree's stored hashes, one row
// each before, into blocks of 64, whatever the order the rows come in;
// every hash reads back at its index afterwards, an index past the tree
// is not found, and the next round's hashes extend the last block.
func TestMigrationToHashBlocks(t *testing.T) {
	ctx := context.Background()
	path, db, mustExec := oldDatabase(t, "migrations/0018_tlog_hash_blocks.sql")
	r := rand.New(rand.NewPCG(3, 4))
	counts := map[string]int64{"t-big": 3*hashBlock + 17, "t-small": 3, "t-full": hashBlock}
	want := map[string][]tlog.Hash{}
	for tenant, n := range counts {
		want[tenant] = make([]tlog.Hash, n)
		for i := range want[tenant] {
			for j := range want[tenant][i] {
				want[tenant][i][j] = byte(r.UintN(256))
			}
		}
		for _, i := range r.Perm(int(n)) { // the rows in no particular order
			mustExec(`INSERT INTO tlog_hashes (tenant_id, idx, hash) VALUES (?, ?, ?)`, tenant, i, want[tenant][i][:])
		}
	}
	db.Close()
	s, err := Open(ctx, Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for tenant, n := range counts {
		idxs := make([]int64, n)
		for i := range idxs {
			idxs[i] = int64(n) - 1 - int64(i) // asked in any order
		}
		got, err := s.ReadLogHashes(ctx, tenant, idxs)
		if err != nil {
			t.Fatalf("%s: %v", tenant, err)
		}
		for i, idx := range idxs {
			if got[i] != want[tenant][idx] {
				t.Fatalf("%s: hash %d is %x, want %x", tenant, idx, got[i], want[tenant][idx])
			}
		}
		if _, err := s.ReadLogHashes(ctx, tenant, []int64{0, n}); audit.ErrorCode(err) != audit.ENOTFOUND {
			t.Fatalf("%s: hash %d past the tree: %v", tenant, n, err)
		}
	}
	// The next hashes extend the blocks; one that would leave a gap is refused.
	tx, _ := s.w.BeginTx(ctx, nil)
	defer tx.Rollback()
	next := tlog.Hash{1, 2, 3}
	if err := writeHashes(ctx, tx, "t-big", map[int64]tlog.Hash{counts["t-big"]: next}); err != nil {
		t.Fatal(err)
	}
	if err := writeHashes(ctx, tx, "t-small", map[int64]tlog.Hash{5: next}); audit.ErrorCode(err) != audit.EINTERNAL {
		t.Fatalf("a gap: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := s.ReadLogHashes(ctx, "t-big", []int64{counts["t-big"], 5})
	if err != nil || got[0] != next || got[1] != want["t-big"][5] {
		t.Fatalf("after extending: %x %v", got, errors.Unwrap(err))
	}
}
