package seal

import (
	"crypto/sha256"
	"encoding/binary"

	"golang.org/x/mod/sumdb/tlog"
)

// leafTable is the leaves of the log read so far, kept small enough that
// a log of millions of leaves is checked in tens of megabytes: per leaf
// its hash and how its event was judged (no event ids, no pointers, so
// the collector has nothing to scan), an index from each event id's key
// to the first leaf of it, and the tree's root kept as the leaves come.
// The stored rows are then read once and judged each against its leaf
// as it is read; only rows in no leaf yet are held (checker.pending).
type leafTable struct {
	keys   []idKey // by leaf
	hashes []tlog.Hash
	state  []leafState
	slots  []uint32 // open addressing by key: 1 + the first leaf of the key, 0 free
	root   rootRange
}

// idKey is an event id's key: the first 16 bytes of its SHA-256. Two ids
// with one key could only make a false finding, never hide one: a row
// found under another event's leaf is compared with that leaf's hash,
// which commits to the other id, and named altered.
type idKey [16]byte

func keyOf(id string) idKey {
	s := sha256.Sum256([]byte(id))
	return idKey(s[:16])
}

// maxLeaves is the most leaves one verification holds (slots count
// them in 32 bits): at about 60 bytes a leaf, 240 GB of memory.
const maxLeaves = 1<<32 - 2

// leafState is what the check made of a leaf's event.
type leafState uint8

const (
	unjudged   leafState = iota // no row of its event read (yet)
	intact                      // the row has the leaf's hash
	misindexed                  // intact, and what queries see of it differs
	altered                     // the row has another hash
	malformed                   // the row is no well-formed event
	repeated                    // a later leaf of an event an earlier leaf holds
)

func newLeafTable(size int64) *leafTable {
	return &leafTable{keys: make([]idKey, 0, size), hashes: make([]tlog.Hash, 0, size), state: make([]leafState, 0, size),
		slots: make([]uint32, slotsFor(size))}
}

// slotsFor is the slot count for n leaves: a power of two at least 2n,
// so that probes stay short.
func slotsFor(n int64) int {
	s := 1024
	for int64(s) < 2*n {
		s *= 2
	}
	return s
}

// size is the number of leaves read.
func (t *leafTable) size() int64 { return int64(len(t.hashes)) }

// find returns the first leaf of the event keyed k, and its slot (where
// it would go when there is none).
func (t *leafTable) find(k idKey) (leaf int64, slot int, ok bool) {
	mask := len(t.slots) - 1
	for i := int(binary.LittleEndian.Uint64(k[:8])) & mask; ; i = (i + 1) & mask {
		switch at := t.slots[i]; {
		case at == 0:
			return 0, i, false
		case t.keys[at-1] == k:
			return int64(at - 1), i, true
		}
	}
}

// at returns the first leaf of the event keyed k.
func (t *leafTable) at(k idKey) (int64, bool) {
	leaf, _, ok := t.find(k)
	return leaf, ok
}

// add appends the next leaf, of the event keyed k; it returns the
// earlier leaf of the same event, if any (the new one is then repeated).
// A verification holds up to maxLeaves.
func (t *leafTable) add(k idKey, h tlog.Hash) (int64, bool) {
	i := t.size()
	t.keys = append(t.keys, k)
	t.hashes = append(t.hashes, h)
	t.root.append(h)
	earlier, slot, seen := t.find(k)
	if seen {
		t.state = append(t.state, repeated)
		return earlier, true
	}
	t.slots[slot] = uint32(i + 1)
	t.state = append(t.state, unjudged)
	if 2*(i+1) > int64(len(t.slots)) { // a later checkpoint's leaves
		t.grow()
	}
	return 0, false
}

// grow doubles the slots and places every first leaf again.
func (t *leafTable) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	for i, k := range t.keys {
		if t.state[i] == repeated {
			continue
		}
		_, slot, _ := t.find(k)
		t.slots[slot] = uint32(i + 1)
	}
}

// judged reports whether leaf i's event was found intact (misindexed
// included): the leaves a retention record may excuse are those of
// records judged so.
func (t *leafTable) judged(i int64) bool {
	return t.state[i] == intact || t.state[i] == misindexed
}
