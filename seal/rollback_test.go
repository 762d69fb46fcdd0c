package seal_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/seal"
)

// TestATruncatedTreeIsNamed (issue 53): a log whose leaves stop short of
// its checkpoint (the tail of the leaf table removed, the checkpoint
// kept) is a named finding, truncated, and the rest is still checked;
// before, the verification stopped on an internal error.
func TestATruncatedTreeIsNamed(t *testing.T) {
	m, keys := newMemLog(t)
	for _, e := range events(30) {
		m.add(e, true)
	}
	m.sign(t)
	m.leaves = m.leaves[:25]
	rep, err := seal.Check(context.Background(), m, m.tenant, keys, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kinds(rep), "truncated") || !strings.Contains(kinds(rep), "from #25 on were removed") || rep.Events != 25 {
		t.Fatalf("events %d, findings:\n%s\nwant truncated after #25", rep.Events, kinds(rep))
	}
}

// TestAVerifierThatKeptACheckpointRefusesARollback (issue 53): a
// verifier that kept a checkpoint refuses, by name (rollback), a log
// shown smaller, one of the same size with another root, and a larger one
// that does not extend it; a larger one that extends it verifies. Memory
// keeps the largest checkpoint verified, 0600, and never a smaller one.
func TestAVerifierThatKeptACheckpointRefusesARollback(t *testing.T) {
	evs := events(40)
	build := func(n int, edit func(*memLog)) (*memLog, vlog.Keys) {
		m, keys := newMemLog(t)
		for _, e := range evs[:n] {
			m.add(e, true)
		}
		if edit != nil {
			edit(m)
		}
		m.sign(t)
		return m, keys
	}
	kept := func(n int) vlog.Checkpoint {
		m, keys := build(n, nil)
		cp, err := keys.Open(m.signed)
		if err != nil {
			t.Fatal(err)
		}
		return cp
	}
	for _, c := range []struct {
		name     string
		shown    int
		kept     int
		edit     func(*memLog)
		rollback bool
	}{
		{"an extension", 40, 30, nil, false},
		{"the same tree", 30, 30, nil, false},
		{"a smaller tree (an older copy of the store)", 28, 30, nil, true},
		{"the same size, another root (a fork)", 30, 30, func(m *memLog) { m.leaves[3].Hash[0] ^= 1; m.events[3].Reason = "x" }, true},
		{"a larger tree that does not extend the kept one", 40, 30, func(m *memLog) {
			m.leaves[7], m.leaves[8] = m.leaves[8], m.leaves[7]
			m.leaves[7].Index, m.leaves[8].Index = 7, 8
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, keys := build(c.shown, c.edit)
			k := kept(c.kept)
			k.Origin = vlog.Origin("auditlog.test", m.tenant)
			rep, err := seal.CheckKept(context.Background(), m, m.tenant, keys, 0, &k)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(kinds(rep), "rollback"); got != c.rollback {
				t.Fatalf("findings:\n%s\nwant a rollback: %v", kinds(rep), c.rollback)
			}
		})
	}
	// One log, signed at 10 and at 20 leaves.
	m, keys := newMemLog(t)
	signedAt := func(m *memLog, keys vlog.Keys, n int) (vlog.Checkpoint, []byte) {
		for _, e := range evs[len(m.leaves):n] {
			m.add(e, true)
		}
		m.sign(t)
		cp, err := keys.Open(m.signed)
		if err != nil {
			t.Fatal(err)
		}
		return cp, m.signed
	}
	small, smallSigned := signedAt(m, keys, 10)
	large, largeSigned := signedAt(m, keys, 20)
	mem := seal.Memory{Dir: t.TempDir()}
	if err := mem.Keep(large, largeSigned, keys); err != nil {
		t.Fatal(err)
	}
	if err := mem.Keep(small, smallSigned, keys); err != nil {
		t.Fatal(err)
	}
	got, ok, err := mem.Kept(large.Origin, keys)
	if err != nil || !ok || got != large {
		t.Fatalf("kept %+v %v %v, want the larger checkpoint", got, ok, err)
	}
	entries, _ := os.ReadDir(mem.Dir)
	if st, _ := entries[0].Info(); len(entries) != 1 || st.Mode().Perm() != 0o600 {
		t.Fatalf("memory files %v", entries)
	}
	// Another log of the same origin under another key (a deployment
	// started afresh): what is kept is not its, and it replaces it, even
	// smaller; the first log's keys then find nothing of theirs.
	other, otherKeys := newMemLog(t)
	fresh, freshSigned := signedAt(other, otherKeys, 5)
	if _, ok, err := mem.Kept(fresh.Origin, otherKeys); ok || err != nil {
		t.Fatalf("another log's keys find the first log's checkpoint: %v %v", ok, err)
	}
	if err := mem.Keep(fresh, freshSigned, otherKeys); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := mem.Kept(fresh.Origin, otherKeys); !ok || got != fresh {
		t.Fatalf("kept %+v %v, want the other log's checkpoint", got, ok)
	}
	if _, ok, _ := mem.Kept(large.Origin, keys); ok {
		t.Fatal("the first log's keys find the other log's checkpoint")
	}
	if _, ok, _ := (seal.Memory{}).Kept(large.Origin, keys); ok {
		t.Fatal("the zero memory kept something")
	}
}
