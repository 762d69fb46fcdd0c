package vlog

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit"

	"golang.org/x/mod/sumdb/tlog"
)

// The verifiable log: every stored event of a tenant is a leaf of that
// tenant's append-only Merkle tree (RFC 6962 hashing, as
// golang.org/x/mod/sumdb/tlog computes it), appended in sealing order,
// once. A signed checkpoint (C2SP tlog-checkpoint: origin, size, root)
// commits to the tree after each sealing round; inclusion and consistency
// proofs show that an event is in it and that a later tree extends an
// earlier one. docs/design.md ("The verifiable log") has the why.

// LeafFormat names the leaf encoding of LeafData; a change of encoding
// gets a new name, and the old one keeps verifying the leaves it made.
const LeafFormat = "auditlog-event-v1"

// The leaf's entry (auditlog-event-v2, issue 41). A leaf's hash is the
// RFC 6962 leaf hash of its entry, the bytes a C2SP tlog-tiles client
// reads in the entry bundles:
//
//	auditlog-event-v2\n
//	<event id>\n
//	<base64 (standard, padded) of SHA-256 of the event's canonical encoding (LeafData)>\n
//
// Small (about 110 bytes, within the format's 64 KiB whatever the event's
// size), it commits to the event byte for byte without holding it, so
// witnesses and mirrors of the log hold no event content, and an entry
// stays servable after retention deletes its event. A third party checks
// an event fetched from the API against its entry by computing the digest
// of its canonical encoding. Leaves sealed before this format
// (auditlog-event-v1) are the leaf hash of the canonical encoding itself:
// verifiers accept an event whose v1 or v2 leaf hash is the leaf's.
const EntryFormat = "auditlog-event-v2"

// EventDigest is SHA-256 of the event's canonical encoding (LeafData).
func EventDigest(e *audit.Event) [32]byte {
	b := leafBuffers.Get().(*[]byte)
	*b = appendLeafData((*b)[:0], e)
	d := sha256.Sum256(*b)
	if cap(*b) <= 64<<10 {
		leafBuffers.Put(b)
	}
	return d
}

// LeafEntry is the entry of an event's leaf: its id and digest.
func LeafEntry(id string, digest [32]byte) []byte {
	b := make([]byte, 0, len(EntryFormat)+len(id)+48)
	b = append(b, EntryFormat+"\n"...)
	b = append(b, id...)
	b = append(b, '\n')
	b = base64.StdEncoding.AppendEncode(b, digest[:])
	return append(b, '\n')
}

// EntryHash is the leaf hash of the entry of an event id and digest: a
// leaf of the entry format's hash, which a store may therefore keep
// without it.
func EntryHash(id string, digest [32]byte) tlog.Hash {
	return tlog.RecordHash(LeafEntry(id, digest))
}

// ParseLeafEntry reads an entry of the v2 format. Errors: EINVALID.
func ParseLeafEntry(entry []byte) (id string, digest [32]byte, err error) {
	lines := strings.Split(string(entry), "\n")
	if len(lines) != 4 || lines[0] != EntryFormat || lines[3] != "" || !audit.ValidID(lines[1]) {
		return "", digest, audit.Errorf(audit.EINVALID, "not an %s entry", EntryFormat)
	}
	raw, derr := base64.StdEncoding.DecodeString(lines[2])
	if derr != nil || len(raw) != len(digest) {
		return "", digest, audit.Errorf(audit.EINVALID, "the entry's digest is not a base64 SHA-256 hash")
	}
	copy(digest[:], raw)
	return lines[1], digest, nil
}

// LeafData is the canonical encoding of an event, the bytes whose RFC 6962
// leaf hash (tlog.RecordHash: SHA-256 of 0x00 then the bytes) is the
// event's leaf: the event as the API returns it (docs/schemas/
// data-line-v1.json), as JSON with every object's keys sorted by their
// UTF-8 bytes, no white space, strings escaped as Go's encoding/json does
// without HTML escaping, and numbers as stored. Both stores return an
// event exactly as it was written, so the bytes are the same whatever the
// store.
//
// It is written directly (leafdata.go), in one pass and without
// reflection, byte for byte what decoding the event's JSON and encoding it
// again with sorted keys gives (a fuzz test compares the two).
func LeafData(e audit.Event) []byte {
	return appendLeafData(make([]byte, 0, 1024), &e)
}

// LeafHash is the event's leaf hash (auditlog-event-v2: the leaf hash
// of its entry), as every leaf sealed now has.
func LeafHash(e audit.Event) tlog.Hash {
	return EntryHash(e.ID, EventDigest(&e))
}

// LeafHashV1 is the event's leaf hash as leaves sealed before the entry
// format had it (auditlog-event-v1: the leaf hash of the canonical
// encoding).
func LeafHashV1(e audit.Event) tlog.Hash {
	b := leafBuffers.Get().(*[]byte)
	*b = appendLeafData((*b)[:0], &e)
	h := tlog.RecordHash(*b)
	if cap(*b) <= 64<<10 { // a buffer grown by a large event is let go
		leafBuffers.Put(b)
	}
	return h
}

// LeafHashes are the event's leaf hashes in every format (v2, v1): a
// leaf holds the event when its hash is either.
func LeafHashes(e audit.Event) [2]tlog.Hash {
	h, _ := LeafHashesAndDigest(e)
	return h
}

// LeafHashesAndDigest is LeafHashes and the event's digest (EventDigest),
// from one encoding.
func LeafHashesAndDigest(e audit.Event) ([2]tlog.Hash, [32]byte) {
	b := leafBuffers.Get().(*[]byte)
	*b = appendLeafData((*b)[:0], &e)
	v1, d := tlog.RecordHash(*b), sha256.Sum256(*b)
	if cap(*b) <= 64<<10 {
		leafBuffers.Put(b)
	}
	return [2]tlog.Hash{EntryHash(e.ID, d), v1}, d
}

// leafBuffers are LeafHash's encoding buffers, reused: hashing an event
// allocates nothing for its encoding.
var leafBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// Leaf is one leaf of a tenant's log: its index, the event it holds, its
// hash, and the event's digest (EventDigest) for a leaf of the entry
// format (nil: a v1 leaf, whose entry is the event's canonical encoding).
type Leaf struct {
	Index   int64
	EventID string
	Hash    tlog.Hash
	Digest  *[32]byte
}

// Entry is the leaf's entry in the C2SP tlog-tiles entry bundles, for a
// leaf of the entry format (ok false for a v1 leaf).
func (l Leaf) Entry() ([]byte, bool) {
	if l.Digest == nil {
		return nil, false
	}
	return LeafEntry(l.EventID, *l.Digest), true
}

// PendingLeaf is a stored event not sealed yet: its tenant, its id, its
// digest (EventDigest of the event as stored), its leaf hash (the leaf
// hash of its entry) and the acceptance tag stored with it (Acceptor).
// A nil Digest is a v1 leaf (queued by a version before the entry
// format, its Hash LeafHashV1's). Unreadable, when set, says why the
// stored row gives no event (it does not decode): the sealer names it
// unaccepted, as any row whose tag does not verify.
type PendingLeaf struct {
	TenantID   string
	EventID    string
	Digest     *[32]byte
	Hash       tlog.Hash
	Tag        []byte
	Unreadable string
}

// NewPendingLeaf is e's pending leaf, with the tag stored beside it.
func NewPendingLeaf(e *audit.Event, tag []byte) PendingLeaf {
	d := EventDigest(e)
	return PendingLeaf{TenantID: e.TenantID, EventID: e.ID, Digest: &d, Hash: EntryHash(e.ID, d), Tag: tag}
}

// CheckAccepted reports whether p may be sealed: its row decoded and its
// tag verifies against its digest under a. Errors: EUNAUTHORIZED naming
// why not.
func (p PendingLeaf) CheckAccepted(a *Acceptor) error {
	switch {
	case p.Unreadable != "":
		return audit.Errorf(audit.EUNAUTHORIZED, "the stored row is no event: %s", p.Unreadable)
	case p.Digest == nil:
		return audit.Errorf(audit.EUNAUTHORIZED, "no acceptance tag: queued by a version before acceptance tags, and not sealed by it")
	case a == nil:
		return audit.Errorf(audit.EUNAUTHORIZED, "no acceptance key is configured: nothing can be sealed")
	}
	return a.Check(p.TenantID, p.EventID, *p.Digest, p.Tag)
}

// State is a tenant's log: its size and root after the last sealing
// round, and the signed checkpoint of that tree.
type State struct {
	TenantID   string    `json:"tenantId"`
	Size       int64     `json:"size"`
	Root       tlog.Hash `json:"root"`
	Checkpoint string    `json:"checkpoint"` // signed note text; "" before the first round
	SealedAt   time.Time `json:"sealedAt"`
}

// Checkpoint is the body of a C2SP tlog-checkpoint: the log's origin, its
// size and its root hash (base64), one per line.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
}

// Origin is the origin line of a tenant's log under the deployment's
// name (a schema-less URL: "auditlog.example.com/tenants/<uuid>").
func Origin(deployment, tenantID string) string { return deployment + "/tenants/" + tenantID }

// Text is the checkpoint's note text.
func (c Checkpoint) Text() string {
	return fmt.Sprintf("%s\n%d\n%s\n", c.Origin, c.Size, base64.StdEncoding.EncodeToString(c.Root[:]))
}

// ParseCheckpoint reads a checkpoint's note text (extension lines after
// the root are allowed and ignored). Errors: EINVALID.
func ParseCheckpoint(text string) (Checkpoint, error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 || lines[0] == "" {
		return Checkpoint{}, audit.Errorf(audit.EINVALID, "a checkpoint is an origin, a size and a root hash, one per line")
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != lines[1] {
		return Checkpoint{}, audit.Errorf(audit.EINVALID, "checkpoint size %q is not a decimal count", lines[1])
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return Checkpoint{}, audit.Errorf(audit.EINVALID, "checkpoint root %q is not a base64 SHA-256 hash", lines[2])
	}
	c := Checkpoint{Origin: lines[0], Size: n}
	copy(c.Root[:], root)
	return c, nil
}

// SealBatch is what one sealing round adds to the logs: per tenant the
// new leaves, the tree hashes they make (tlog stored-hash index → hash)
// and the new state, and the store's sealing position after them.
type SealBatch struct {
	Leaves   map[string][]Leaf
	Hashes   map[string]map[int64]tlog.Hash
	States   map[string]State
	Position string
	// Rev is the revision of the position the round started from.
	Rev string
}

// Store keeps the tenants' logs.
type Store interface {
	// SealPosition is where the next round starts in the store's sealing
	// order, and its revision. Errors: EUNAVAILABLE.
	SealPosition(ctx context.Context) (pos, rev string, err error)
	// PendingLeaves returns the leaves of at most limit stored events
	// after pos, in the store's sealing order (every stored event comes
	// once, in an order that never changes), and the position after the
	// last. Errors: EUNAVAILABLE.
	PendingLeaves(ctx context.Context, pos string, limit int) ([]PendingLeaf, string, error)
	// LogState returns a tenant's log (zero, Size 0, when it has none).
	LogState(ctx context.Context, tenantID string) (State, error)
	// ReadLogHashes returns the stored hashes of a tenant's tree at the
	// tlog stored-hash indexes. Errors: ENOTFOUND for an index not stored.
	ReadLogHashes(ctx context.Context, tenantID string, indexes []int64) ([]tlog.Hash, error)
	// CommitSeal stores b, atomically: its leaves, hashes, states and
	// position, or nothing. Errors: ECONFLICT when the position changed
	// since b.Rev (another sealer committed), EUNAVAILABLE.
	CommitSeal(ctx context.Context, b SealBatch) error
	// LeafOf returns the leaf of an event of the tenant. Errors:
	// ENOTFOUND when the event is no leaf (not stored, or not sealed yet).
	LeafOf(ctx context.Context, tenantID, eventID string) (Leaf, error)
	// LeafAt returns the tenant's leaf at index. Errors: ENOTFOUND.
	LeafAt(ctx context.Context, tenantID string, index int64) (Leaf, error)
	// Leaves returns the tenant's leaves from index start, in order, at
	// most n, none past the last checkpoint. Errors: EUNAVAILABLE.
	Leaves(ctx context.Context, tenantID string, start int64, n int) ([]Leaf, error)
}
