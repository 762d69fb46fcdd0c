package seal

import (
	"context"
	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// hashes reads a tenant's stored tree hashes (tlog.HashReader).
type hashes struct {
	ctx    context.Context
	store  vlog.Store
	tenant string
}

func (h hashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	return h.store.ReadLogHashes(h.ctx, h.tenant, indexes)
}

// Inclusion is an event's place in its tenant's log: its leaf, a tree
// size and that tree's root, and the proof that the leaf is in it.
type Inclusion struct {
	Leaf  vlog.Leaf
	Size  int64
	Root  tlog.Hash
	Proof tlog.RecordProof
	// State is the log's state the proof was made from: its Checkpoint
	// is the signed tree of Size when no size was asked (a state read
	// again could be a later round's, whose checkpoint the proof is not
	// for).
	State vlog.State
}

// ProveInclusion proves that the event is in the tenant's tree of size
// (0: the latest, the size of the last checkpoint). Errors: ENOTFOUND
// when the event is no leaf yet; EINVALID when size is beyond the log or
// not after the leaf.
func ProveInclusion(ctx context.Context, st vlog.Store, tenant, eventID string, size int64) (Inclusion, error) {
	// The leaf first: a leaf is stored with (SQLite) or after (Elasticsearch)
	// the state that holds it, so the state read next has it.
	leaf, err := st.LeafOf(ctx, tenant, eventID)
	if err != nil {
		return Inclusion{}, err
	}
	ls, err := st.LogState(ctx, tenant)
	if err != nil {
		return Inclusion{}, err
	}
	if size == 0 {
		size = ls.Size
	}
	if size > ls.Size || size <= leaf.Index {
		return Inclusion{}, &audit.Error{Code: audit.EINVALID, Message: "no such tree", Fields: []audit.FieldError{{Field: "size",
			Message: "must be after the event's leaf and at most the log's size"}}}
	}
	hr := hashes{ctx, st, tenant}
	root, err := tlog.TreeHash(size, hr)
	if err != nil {
		return Inclusion{}, audit.Wrap(audit.EINTERNAL, err, "the root of the log of %s at %d", tenant, size)
	}
	proof, err := tlog.ProveRecord(size, leaf.Index, hr)
	if err != nil {
		return Inclusion{}, audit.Wrap(audit.EINTERNAL, err, "proving leaf %d of %s", leaf.Index, tenant)
	}
	return Inclusion{Leaf: leaf, Size: size, Root: root, Proof: proof, State: ls}, nil
}

// Consistency is the proof that the tree of size To extends the tree of
// size From, with both roots.
type Consistency struct {
	From, To         int64
	FromRoot, ToRoot tlog.Hash
	Proof            tlog.TreeProof
}

// ProveConsistency proves that the tenant's tree of size to (0: the
// latest) extends its tree of size from. Errors: EINVALID naming from or
// to when they are not 1 ≤ from ≤ to ≤ the log's size.
func ProveConsistency(ctx context.Context, st vlog.Store, tenant string, from, to int64) (Consistency, error) {
	ls, err := st.LogState(ctx, tenant)
	if err != nil {
		return Consistency{}, err
	}
	if to == 0 {
		to = ls.Size
	}
	var fe []audit.FieldError
	if to > ls.Size || to < 1 {
		fe = append(fe, audit.FieldError{Field: "to", Message: "must be a tree size from 1 to the log's size"})
	}
	if from < 1 || from > to {
		fe = append(fe, audit.FieldError{Field: "from", Message: "must be a tree size from 1 to to"})
	}
	if len(fe) > 0 {
		return Consistency{}, &audit.Error{Code: audit.EINVALID, Message: "no such trees", Fields: fe}
	}
	hr := hashes{ctx, st, tenant}
	c := Consistency{From: from, To: to}
	if c.FromRoot, err = tlog.TreeHash(from, hr); err == nil {
		if c.ToRoot, err = tlog.TreeHash(to, hr); err == nil {
			c.Proof, err = tlog.ProveTree(to, from, hr)
		}
	}
	if err != nil {
		return Consistency{}, audit.Wrap(audit.EINTERNAL, err, "proving %d extends %d in the log of %s", to, from, tenant)
	}
	return c, nil
}

// TileHeight is the height of the tiles the API serves (C2SP
// tlog-tiles: 256 hashes a tile).
const TileHeight = 8

// ReadTile returns the hashes of tile t of the tenant's latest tree (C2SP
// tlog-tiles; t.H must be TileHeight, t.L ≥ 0: hash tiles, no entry
// bundles). Errors: ENOTFOUND when the tile reaches past the latest
// checkpoint.
func ReadTile(ctx context.Context, st vlog.Store, tenant string, t tlog.Tile) ([]byte, error) {
	ls, err := st.LogState(ctx, tenant)
	if err != nil {
		return nil, err
	}
	if t.H != TileHeight || t.L < 0 || t.L > 7 || t.W < 1 || t.W > 1<<TileHeight {
		return nil, audit.Errorf(audit.EINVALID, "tile %s is not a hash tile of height %d", t.Path(), TileHeight)
	}
	// The tile holds the complete subtrees N·256 to N·256+W-1 of 2^(8L)
	// leaves each: there must be that many in the tree (units of them), a
	// comparison that cannot overflow (N·256 ≤ units, 2^62 at most).
	units := ls.Size >> (TileHeight * t.L)
	if t.N < 0 || t.N > units>>TileHeight || t.N<<TileHeight+int64(t.W) > units {
		return nil, audit.Errorf(audit.ENOTFOUND, "tile %s reaches past the latest checkpoint (%d leaves)", t.Path(), ls.Size)
	}
	data, err := tlog.ReadTileData(t, hashes{ctx, st, tenant})
	if err != nil {
		return nil, audit.Wrap(audit.EINTERNAL, err, "tile %s of the log of %s", t.Path(), tenant)
	}
	return data, nil
}
