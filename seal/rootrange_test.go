package seal

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// TestRootRangeIsTheTreeHash: the root kept leaf by leaf is x/mod's
// tlog.TreeHash of the same leaves, read back from the stored hashes
// tlog.StoredHashes makes, at every size up to 600 (every shape of the
// last subtrees, a few levels deep).
func TestRootRangeIsTheTreeHash(t *testing.T) {
	var stored hashSlice
	var r rootRange
	if empty, _ := tlog.TreeHash(0, stored); r.root() != empty {
		t.Fatalf("empty tree: %x, want %x", r.root(), empty)
	}
	for n := int64(0); n < 600; n++ {
		leaf := tlog.RecordHash(fmt.Appendf(nil, "leaf %d", n))
		hs, err := tlog.StoredHashesForRecordHash(n, leaf, stored)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, hs...)
		r.append(leaf)
		want, err := tlog.TreeHash(n+1, stored)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.root(); got != want {
			t.Fatalf("size %d: root %x, tlog.TreeHash %x", n+1, got, want)
		}
	}
	if len(r.stack) > 10 {
		t.Fatalf("600 leaves keep %d hashes, want at most 10", len(r.stack))
	}
	if r.root() == tlog.Hash(sha256.Sum256(nil)) {
		t.Fatal("a tree of 600 leaves has the empty root")
	}
}

type hashSlice []tlog.Hash

func (s hashSlice) ReadHashes(ix []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(ix))
	for i, x := range ix {
		out[i] = s[x]
	}
	return out, nil
}
