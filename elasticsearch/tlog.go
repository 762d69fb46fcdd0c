package elasticsearch

import (
	"context"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// The verifiable log on Elasticsearch (vlog.Store). Elasticsearch has
// no transaction across documents, so a tenant's log has one commit
// point: its state document, changed only by compare-and-set on _seq_no
// and _primary_term. It holds the tree (size, root, signed checkpoint)
// and the leaves of the last sealing round (event ids and leaf hashes).
// Everything else is derived from committed states and written
// idempotently afterwards ("materialized"): the C2SP tlog-tiles of the
// tree (height 8, one document per tile) and, per 256 leaves, the bundle
// of their event ids (an indexed keyword list: an event's leaf is found
// by a term query). A sealer that loses a compare-and-set wrote nothing
// but its failed attempt; tiles and bundles are written with external
// versions (their width), so a late writer never shrinks them, and only
// from committed states, so they never hold a loser's leaves. Before a
// round commits on a tenant it materializes the previous round (so every
// round but the last is in tiles and bundles, and the last is in the
// state). docs/design.md ("The verifiable log") has the why.

// tileHeight is the tiles' height: 256 hashes a tile (C2SP tlog-tiles).
const tileHeight = 8

const leavesPerTile = 1 << tileHeight

// TlogIndex holds the tenants' log states, tiles and id bundles.
func (s *Store) TlogIndex() string { return s.prefix() + "-tlog" }

// logState is a tenant's state document.
type logState struct {
	Kind       string    `json:"kind"`
	TenantID   string    `json:"tenantId"`
	Size       int64     `json:"size"`
	Root       tlog.Hash `json:"root"`
	Checkpoint string    `json:"checkpoint"`
	SealedAt   time.Time `json:"sealedAt"`
	// Base and BaseRoot are the tree before the last round, whose leaves
	// (indexes Base to Size-1) Leaves holds.
	Base     int64      `json:"base"`
	BaseRoot tlog.Hash  `json:"baseRoot"`
	Leaves   []leafBody `json:"leaves"`
}

type leafBody struct {
	ID     string    `json:"id"`
	Hash   tlog.Hash `json:"h"`
	Digest []byte    `json:"dg,omitempty"` // the event's digest; none for a v1 leaf
}

type tileDoc struct {
	Kind     string `json:"kind"`
	TenantID string `json:"tenantId"`
	W        int    `json:"w"`
	Data     []byte `json:"data"`
}

type bundleDoc struct {
	Kind     string   `json:"kind"`
	TenantID string   `json:"tenantId"`
	N        int64    `json:"n"`
	IDs      []string `json:"ids"`
	// Digests are the events' digests, one per id (null for a v1 leaf;
	// absent from a bundle written before the entry format).
	Digests [][]byte `json:"dg,omitempty"`
}

// digest is the digest of the bundle's i-th leaf (nil: a v1 leaf).
func (b *bundleDoc) digest(i int64) *[32]byte {
	if i >= int64(len(b.Digests)) || len(b.Digests[i]) != 32 {
		return nil
	}
	return (*[32]byte)(b.Digests[i])
}

func (l leafBody) digest() *[32]byte {
	if len(l.Digest) != 32 {
		return nil
	}
	return (*[32]byte)(l.Digest)
}

func digestBytes(d *[32]byte) []byte {
	if d == nil {
		return nil
	}
	return d[:]
}

func stateID(tenant string) string             { return "state:" + tenant }
func tileID(tenant string, t tlog.Tile) string { return fmt.Sprintf("tile:%s:%d:%d", tenant, t.L, t.N) }
func bundleID(tenant string, n int64) string   { return "ids:" + tenant + ":" + strconv.FormatInt(n, 10) }

func (st *logState) view() vlog.State {
	return vlog.State{TenantID: st.TenantID, Size: st.Size, Root: st.Root, Checkpoint: st.Checkpoint, SealedAt: st.SealedAt}
}

// readState reads a tenant's state and its revision ("" when it has no
// log yet), with the last round materialized. With leaves false the last
// round's leaves (hundreds of KiB for a big round) are not read: st.Leaves
// is nil.
func (s *Store) readState(ctx context.Context, tenant string, leaves bool) (logState, string, error) {
	path := "/" + s.TlogIndex() + "/_doc/" + url.PathEscape(stateID(tenant))
	st, rev, found, err := s.cachedState(ctx, tenant, path, leaves)
	if err == nil && !found {
		st, rev, found, err = s.readStateDoc(ctx, tenant, path, leaves)
	}
	if err != nil || !found {
		return logState{TenantID: tenant}, "", err
	}
	t := tlog.Tree{N: st.Size, Hash: st.Root}
	if s.logs.tree(tenant) == t {
		return st, rev, nil // materialized when it was seen
	}
	if err := s.materialize(ctx, &st); err != nil {
		return st, rev, err
	}
	s.logs.sawTree(tenant, t)
	return st, rev, nil
}

// cachedState is the tenant's state as this process committed it (or,
// without leaves, as it last read it), when the stored document is still
// at the revision that write or read answered: one read of the revision
// alone (no source) instead of the whole document. Elasticsearch keeps a
// document's source whole, compressed: leaving the leaves out of the
// answer still reads them all, which made a proof's two state reads
// about half its time (docs/design.md). found is false when none is kept
// or the revision differs.
func (s *Store) cachedState(ctx context.Context, tenant, path string, leaves bool) (logState, string, bool, error) {
	committed, okC := s.logs.state(tenant)
	head, okH := s.logs.head(tenant)
	if !okC && (leaves || !okH) {
		return logState{}, "", false, nil
	}
	_, rev, found, err := getPath[struct{}](ctx, s, path+"?_source=false", "the log state of "+tenant)
	switch {
	case err != nil || !found:
		return logState{}, "", false, err
	case okC && rev == committed.rev:
		st := committed.st
		if !leaves {
			st.Leaves = nil // as a read without them answers
		}
		return st, rev, true, nil
	case !leaves && okH && rev == head.rev:
		return head.st, rev, true, nil
	}
	return logState{}, "", false, nil
}

// readStateDoc reads the tenant's state document, with or without the
// leaves of its last round; one read without them is kept (savedHead).
func (s *Store) readStateDoc(ctx context.Context, tenant, path string, leaves bool) (logState, string, bool, error) {
	if !leaves {
		path += "?_source_excludes=leaves"
	}
	st, rev, found, err := getPath[logState](ctx, s, path, "the log state of "+tenant)
	if err == nil && found && !leaves {
		s.logs.savedHead(tenant, rev, st)
	}
	return st, rev, found, err
}

// LogState implements vlog.Store.
func (s *Store) LogState(ctx context.Context, tenantID string) (vlog.State, error) {
	st, _, err := s.readState(ctx, tenantID, false)
	return st.view(), err
}

// ReadLogHashes implements vlog.Store from the tiles, each checked
// against the signed tree (tlog.TileHashReader): a tile edited in the
// index fails the read instead of giving a wrong proof.
// The tree last seen serves every hash it holds: a later tree only adds
// to it.
func (s *Store) ReadLogHashes(ctx context.Context, tenantID string, indexes []int64) ([]tlog.Hash, error) {
	t := s.logs.tree(tenantID)
	if !holds(t, indexes) {
		st, _, err := s.readState(ctx, tenantID, false)
		if err != nil {
			return nil, err
		}
		t = tlog.Tree{N: st.Size, Hash: st.Root}
	}
	return s.treeReader(ctx, tenantID, t).ReadHashes(indexes)
}

// holds reports whether every stored-hash index is in the tree t.
func holds(t tlog.Tree, indexes []int64) bool {
	end := tlog.StoredHashIndex(0, t.N)
	for _, x := range indexes {
		if x >= end {
			return false
		}
	}
	return t.N > 0
}

func (s *Store) treeReader(ctx context.Context, tenant string, t tlog.Tree) tlog.HashReader {
	return tlog.TileHashReader(t, tileReader{ctx: ctx, s: s, tenant: tenant})
}

// tileReader reads a tenant's tiles (tlog.TileReader). A stored tile may
// be wider than asked (the tree grew since): its first W hashes are the
// tile asked for.
type tileReader struct {
	ctx    context.Context
	s      *Store
	tenant string
}

func (r tileReader) Height() int { return tileHeight }

// SaveTiles keeps the tiles tlog.TileHashReader verified.
func (r tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	for i, t := range tiles {
		r.s.logs.saveTile(r.tenant, t, data[i])
	}
}

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	var ids []string
	var at []int
	for i, t := range tiles {
		if out[i] = r.s.logs.tile(r.tenant, t); out[i] == nil {
			ids, at = append(ids, tileID(r.tenant, t)), append(at, i)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	docs, err := mgetDocs[tileDoc](r.ctx, r.s, r.s.TlogIndex(), ids)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		t, d := tiles[i], docs[j]
		if d == nil || d.W < t.W || len(d.Data) < t.W*tlog.HashSize {
			return nil, audit.Errorf(audit.EINTERNAL, "tile %s of the log of %s is missing or short", t.Path(), r.tenant)
		}
		out[i] = d.Data[:t.W*tlog.HashSize]
	}
	return out, nil
}

// mgetDocs reads documents by id in real time; nil for one not found.
func mgetDocs[T any](ctx context.Context, s *Store, index string, ids []string) ([]*T, error) {
	var out struct {
		Docs []struct {
			Found  bool `json:"found"`
			Source T    `json:"_source"`
		} `json:"docs"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+index+"/_mget?realtime=true", map[string]any{"ids": ids}, &out); err != nil {
		return nil, err
	}
	if len(out.Docs) != len(ids) {
		return nil, audit.Errorf(audit.EUNAVAILABLE, "mget answered %d documents for %d", len(out.Docs), len(ids))
	}
	res := make([]*T, len(ids))
	for i := range out.Docs {
		if out.Docs[i].Found {
			res[i] = &out.Docs[i].Source
		}
	}
	return res, nil
}

// LeafAt implements vlog.Store.
func (s *Store) LeafAt(ctx context.Context, tenantID string, index int64) (vlog.Leaf, error) {
	st, _, err := s.readState(ctx, tenantID, false)
	if err == nil && index >= st.Base {
		st, _, err = s.readState(ctx, tenantID, true)
	}
	if err != nil {
		return vlog.Leaf{}, err
	}
	if index < 0 || index >= st.Size {
		return vlog.Leaf{}, audit.Errorf(audit.ENOTFOUND, "no leaf %d in the log of %s", index, tenantID)
	}
	if index >= st.Base {
		l := st.Leaves[index-st.Base]
		return vlog.Leaf{Index: index, EventID: l.ID, Hash: l.Hash, Digest: l.digest()}, nil
	}
	b, _, found, err := getDoc[bundleDoc](ctx, s, s.TlogIndex(), bundleID(tenantID, index/leavesPerTile), "a leaf bundle of "+tenantID)
	if err != nil {
		return vlog.Leaf{}, err
	}
	if !found || int64(len(b.IDs)) <= index%leavesPerTile {
		return vlog.Leaf{}, audit.Errorf(audit.EINTERNAL, "the leaf bundle of leaf %d of %s is missing or short", index, tenantID)
	}
	l, err := s.leafWithHash(ctx, st, index, b.IDs[index%leavesPerTile])
	l.Digest = b.digest(index % leavesPerTile)
	return l, err
}

// leafWithHash completes leaf index (below st.Base) with its hash, read
// from its tile.
func (s *Store) leafWithHash(ctx context.Context, st logState, index int64, id string) (vlog.Leaf, error) {
	hs, err := s.treeReader(ctx, st.TenantID, tlog.Tree{N: st.Size, Hash: st.Root}).ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
	if err != nil {
		return vlog.Leaf{}, err
	}
	return vlog.Leaf{Index: index, EventID: id, Hash: hs[0]}, nil
}

// LeafOf implements vlog.Store: the last round's leaves, else the
// bundle that holds the id.
func (s *Store) LeafOf(ctx context.Context, tenantID, eventID string) (vlog.Leaf, error) {
	st, _, err := s.readState(ctx, tenantID, false)
	if err != nil {
		return vlog.Leaf{}, err
	}
	found, err := s.bundled(ctx, tenantID, []string{eventID})
	if err != nil {
		return vlog.Leaf{}, err
	}
	if index, ok := found[eventID]; ok && index < st.Size {
		return s.leafWithHash(ctx, st, index, eventID)
	}
	if st, _, err = s.readState(ctx, tenantID, true); err != nil {
		return vlog.Leaf{}, err
	}
	for i, l := range st.Leaves {
		if l.ID == eventID {
			return vlog.Leaf{Index: st.Base + int64(i), EventID: l.ID, Hash: l.Hash, Digest: l.digest()}, nil
		}
	}
	return vlog.Leaf{}, audit.Errorf(audit.ENOTFOUND, "no leaf of %s in the log", eventID)
}

// bundled returns the leaf index of each of ids found in the tenant's
// bundles (every materialized leaf; the writes that materialize refresh
// the index, so a search sees them).
func (s *Store) bundled(ctx context.Context, tenant string, ids []string) (map[string]int64, error) {
	// The bundles' ids and numbers alone: not their digests, a third
	// more of each answer.
	body := map[string]any{"size": 10000, "track_total_hits": false, "_source": []string{"n", "ids"}, "query": map[string]any{"bool": map[string]any{"filter": []any{
		map[string]any{"term": map[string]any{"kind": "ids"}},
		map[string]any{"term": map[string]any{"tenantId": tenant}},
		map[string]any{"terms": map[string]any{"ids": ids}},
	}}}}
	var res struct {
		Hits struct {
			Hits []struct {
				Source bundleDoc `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.TlogIndex()+"/_search", body, &res); err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	out := map[string]int64{}
	for _, h := range res.Hits.Hits {
		for i, id := range h.Source.IDs {
			if want[id] {
				out[id] = h.Source.N*leavesPerTile + int64(i)
			}
		}
	}
	return out, nil
}

// Leaves implements vlog.Store: the ids from the bundles (and the
// last round), the hashes from the tiles, checked against the tree.
func (s *Store) Leaves(ctx context.Context, tenantID string, start int64, n int) ([]vlog.Leaf, error) {
	st, _, err := s.readState(ctx, tenantID, false)
	if err == nil && start+int64(n) > st.Base {
		st, _, err = s.readState(ctx, tenantID, true)
	}
	if err != nil {
		return nil, err
	}
	end := min(st.Size, start+int64(n))
	if start < 0 || start >= end {
		return nil, nil
	}
	out := make([]vlog.Leaf, 0, end-start)
	if stop := min(end, st.Base); start < stop {
		var ids []string
		for b := start / leavesPerTile; b <= (stop-1)/leavesPerTile; b++ {
			ids = append(ids, bundleID(tenantID, b))
		}
		bundles, err := mgetDocs[bundleDoc](ctx, s, s.TlogIndex(), ids)
		if err != nil {
			return nil, err
		}
		idx := make([]int64, 0, stop-start)
		for i := start; i < stop; i++ {
			idx = append(idx, tlog.StoredHashIndex(0, i))
		}
		hashes, err := s.treeReader(ctx, tenantID, tlog.Tree{N: st.Size, Hash: st.Root}).ReadHashes(idx)
		if err != nil {
			return nil, err
		}
		for i := start; i < stop; i++ {
			b := bundles[i/leavesPerTile-start/leavesPerTile]
			if b == nil || int64(len(b.IDs)) <= i%leavesPerTile {
				return nil, audit.Errorf(audit.EINTERNAL, "the leaf bundle of leaf %d of %s is missing or short", i, tenantID)
			}
			out = append(out, vlog.Leaf{Index: i, EventID: b.IDs[i%leavesPerTile], Hash: hashes[i-start], Digest: b.digest(i % leavesPerTile)})
		}
	}
	for i := max(start, st.Base); i < end; i++ {
		l := st.Leaves[i-st.Base]
		out = append(out, vlog.Leaf{Index: i, EventID: l.ID, Hash: l.Hash, Digest: l.digest()})
	}
	return out, nil
}

// LogFootprint returns the bytes on disk (primaries) of the verifiable
// log (its index: states, tiles and id bundles; the sealing queue, whose
// tickets live seconds, is left out) and of the events' data streams,
// each flushed and with its deleted documents merged away: every round
// rewrites a tenant's state and its right-edge tiles and bundles, and
// deletes its tickets, which Elasticsearch reclaims as segments merge.
// A superseded version is kept (soft-deleted) until the shard's
// peer-recovery retention lease, renewed every 30 seconds, passes it,
// so right after sealing the log index holds about as many superseded
// edge documents as live ones: it merges again every few seconds until
// none is left or a minute and a half passed, and measures what is left.
func (s *Store) LogFootprint(ctx context.Context) (tree, events int64, err error) {
	if tree, err = s.reclaimedSize(ctx, s.TlogIndex(), 90*time.Second); err != nil {
		return 0, 0, err
	}
	events, err = s.reclaimedSize(ctx, s.AllStreamsPattern(), 90*time.Second)
	return tree, events, err
}

// reclaimedSize is the primaries' store size of the indices of pattern,
// after merging away their deleted documents (waiting up to wait for
// them to be reclaimable).
func (s *Store) reclaimedSize(ctx context.Context, pattern string, wait time.Duration) (int64, error) {
	deadline := time.Now().Add(wait)
	for {
		if err := s.c.DoJSON(ctx, http.MethodPost, "/"+pattern+"/_forcemerge?only_expunge_deletes=true&allow_no_indices=true", nil, nil); err != nil {
			return 0, err
		}
		if err := s.c.DoJSON(ctx, http.MethodPost, "/"+pattern+"/_flush?allow_no_indices=true", nil, nil); err != nil {
			return 0, err
		}
		var out struct {
			All struct {
				Primaries struct {
					Docs struct {
						Deleted int64 `json:"deleted"`
					} `json:"docs"`
					Store struct {
						Bytes int64 `json:"size_in_bytes"`
					} `json:"store"`
				} `json:"primaries"`
			} `json:"_all"`
		}
		if err := s.c.DoJSON(ctx, http.MethodGet, "/"+pattern+"/_stats/docs,store?allow_no_indices=true", nil, &out); err != nil {
			return 0, err
		}
		if out.All.Primaries.Docs.Deleted == 0 || time.Now().After(deadline) {
			return out.All.Primaries.Store.Bytes, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
}
