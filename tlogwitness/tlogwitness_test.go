package tlogwitness_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"testing"

	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/tlogwitness"
)

// memTree is a tree in memory: its stored hashes and its size.
type memTree struct {
	hashes []tlog.Hash
	size   int64
	prefix string
}

func (m *memTree) ReadHashes(ix []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(ix))
	for i, x := range ix {
		out[i] = m.hashes[x]
	}
	return out, nil
}

// grow appends n leaves.
func (m *memTree) grow(t *testing.T, n int64) {
	for i := int64(0); i < n; i++ {
		h, err := tlog.StoredHashes(m.size, []byte(fmt.Sprint(m.prefix, m.size)), m)
		if err != nil {
			t.Fatal(err)
		}
		m.hashes, m.size = append(m.hashes, h...), m.size+1
	}
}

// TestAgainstLitewitness: against a real litewitness, a log it does not
// know is refused; a wrong old size answers the size it knows; the first
// checkpoint and one that extends it are cosigned, each cosignature
// checked with the witness's key; a tree that does not extend the last is
// refused; a witness key that is not the witness's finds no cosignature.
func TestAgainstLitewitness(t *testing.T) {
	ctx := context.Background()
	lw := testenv.StartLitewitness(t, "witness.test/unit")
	key, err := vlog.ParseWitnessKey(lw.Key)
	if err != nil {
		t.Fatal(err)
	}
	w := tlogwitness.Witness{URL: lw.URL, Key: key}
	pub, priv, _ := ed25519.GenerateKey(nil)
	origin := "log.test/tenants/t1"
	logSigner, _, err := seal.NewSigner(origin, priv)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(m *memTree) []byte {
		size := m.size
		root, err := tlog.TreeHash(size, m)
		if err != nil {
			t.Fatal(err)
		}
		n, err := note.Sign(&note.Note{Text: vlog.Checkpoint{Origin: origin, Size: size, Root: root}.Text()}, logSigner)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	tree := &memTree{}
	tree.grow(t, 5)
	first := sign(tree)
	if _, err := w.AddCheckpoint(ctx, 0, nil, first); !errors.Is(err, tlogwitness.ErrRefused) {
		t.Fatalf("an unknown log: %v", err)
	}
	lw.AddLog(origin, vlog.VerifierKey(origin, pub))
	var conflict *tlogwitness.ConflictError
	if _, err := w.AddCheckpoint(ctx, 3, nil, first); !errors.As(err, &conflict) || conflict.Known != 0 {
		t.Fatalf("a wrong old size: %v", err)
	}
	if line, err := w.AddCheckpoint(ctx, 0, nil, first); err != nil || len(line) == 0 {
		t.Fatalf("the first checkpoint: %q %v", line, err)
	}
	tree.grow(t, 4)
	proof, err := tlog.ProveTree(9, 5, tree)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddCheckpoint(ctx, 5, proof, sign(tree)); err != nil {
		t.Fatalf("a tree that extends it: %v", err)
	}
	if lw.Size(origin) != 9 {
		t.Fatalf("the witness keeps size %d", lw.Size(origin))
	}
	forked := &memTree{prefix: "fork "} // other leaves
	forked.grow(t, 12)
	fproof, _ := tlog.ProveTree(12, 9, forked)
	if _, err := w.AddCheckpoint(ctx, 9, fproof, sign(forked)); !errors.Is(err, tlogwitness.ErrRefused) {
		t.Fatalf("a fork: %v", err)
	}
	other, _ := vlog.ParseWitnessKey(testenv.OtherWitnessKey(t))
	tree.grow(t, 1)
	p2, _ := tlog.ProveTree(10, 9, tree)
	if _, err := (tlogwitness.Witness{URL: lw.URL, Key: other}).AddCheckpoint(ctx, 9, p2, sign(tree)); err == nil {
		t.Fatal("a cosignature checked with another witness's key")
	}
}
