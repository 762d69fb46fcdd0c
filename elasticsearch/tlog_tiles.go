package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// materialize writes the tiles and id bundles of st's last round, unless
// they are written already (its last bundle holds its last leaf). It is
// idempotent and safe to run anywhere at any time: it writes only what
// the committed state determines, each document with an external version
// (its width), so a document already wider is left alone (409). The
// write refreshes the index, so bundles are searchable when it returns.
func (s *Store) materialize(ctx context.Context, st *logState) error {
	var buf bytes.Buffer
	if err := s.appendMaterialized(ctx, st, &buf); err != nil || buf.Len() == 0 {
		return err
	}
	return s.bulkVersioned(ctx, buf.Bytes())
}

// appendMaterialized appends to buf the writes that materialize st's last
// round (none when they are written already), for one bulk request.
func (s *Store) appendMaterialized(ctx context.Context, st *logState, buf *bytes.Buffer) error {
	if st.Size == st.Base {
		return nil
	}
	last := (st.Size - 1) / leavesPerTile
	first := st.Base / leavesPerTile
	bundles := make([]string, 0, last-first+1)
	for n := first; n <= last; n++ {
		bundles = append(bundles, bundleID(st.TenantID, n))
	}
	have, err := mgetDocs[bundleDoc](ctx, s, s.TlogIndex(), bundles)
	if err != nil {
		return err
	}
	if b := have[len(have)-1]; b != nil && int64(len(b.IDs)) >= st.Size-last*leavesPerTile {
		return nil
	}
	if st.Leaves == nil { // read without its leaves: read them
		full, _, found, err := getDoc[logState](ctx, s, s.TlogIndex(), stateID(st.TenantID), "the log state of "+st.TenantID)
		if err != nil || !found {
			return err
		}
		if full.Size != st.Size {
			// A later round committed: materializing it covers this one
			// (it was materialized before that round committed).
			return s.appendMaterialized(ctx, &full, buf)
		}
		st = &full
	}
	_, err = s.appendRound(ctx, buf, st, have[0])
	return err
}

// appendCommitted is appendMaterialized of a round this process just
// committed (none of it written yet): the bundle the round's first leaf
// falls in is the one this process wrote last for the tenant when it
// holds the leaves before the round (logCache.bundle), else it is read.
// It returns the round's last bundle, to keep once written.
func (s *Store) appendCommitted(ctx context.Context, buf *bytes.Buffer, st *logState) (bundleDoc, error) {
	if st.Size == st.Base {
		return bundleDoc{}, nil
	}
	first := st.Base / leavesPerTile
	prior, ok := s.logs.bundle(st.TenantID, first, st.Base-first*leavesPerTile)
	if !ok {
		have, err := mgetDocs[bundleDoc](ctx, s, s.TlogIndex(), []string{bundleID(st.TenantID, first)})
		if err != nil {
			return bundleDoc{}, err
		}
		prior = have[0]
	}
	return s.appendRound(ctx, buf, st, prior)
}

// appendRound appends the tiles and id bundles of st's last round; prior
// is the stored bundle its first leaf falls in (its leaves before the
// round are kept). It returns the round's last bundle.
func (s *Store) appendRound(ctx context.Context, buf *bytes.Buffer, st *logState, prior *bundleDoc) (bundleDoc, error) {
	if err := s.appendTiles(ctx, buf, st); err != nil {
		return bundleDoc{}, err
	}
	var b bundleDoc
	for n := st.Base / leavesPerTile; n <= (st.Size-1)/leavesPerTile; n++ {
		var ids []string
		var digests [][]byte
		if start := n * leavesPerTile; start < st.Base {
			if prior == nil || int64(len(prior.IDs)) < st.Base-start {
				return bundleDoc{}, audit.Errorf(audit.EINTERNAL, "the leaf bundle %d of %s is short of the tree before the last round", n, st.TenantID)
			}
			ids = append(ids, prior.IDs[:st.Base-start]...)
			for k := int64(0); k < st.Base-start; k++ {
				digests = append(digests, digestBytes(prior.digest(k)))
			}
		}
		for j := max(n*leavesPerTile, st.Base); j < min((n+1)*leavesPerTile, st.Size); j++ {
			ids = append(ids, st.Leaves[j-st.Base].ID)
			digests = append(digests, st.Leaves[j-st.Base].Digest)
		}
		b = bundleDoc{Kind: "ids", TenantID: st.TenantID, N: n, IDs: ids, Digests: digests}
		appendVersioned(buf, s.TlogIndex(), bundleID(st.TenantID, n), len(ids), b)
	}
	return b, nil
}

// appendTiles appends the tiles that st's last round added or widened
// (tlog.NewTiles), computed from the tree before it (its tiles) and the
// round's leaf hashes.
func (s *Store) appendTiles(ctx context.Context, buf *bytes.Buffer, st *logState) error {
	hr := overlay{added: map[int64]tlog.Hash{}, base: s.treeReader(ctx, st.TenantID, tlog.Tree{N: st.Base, Hash: st.BaseRoot})}
	for i, l := range st.Leaves {
		n := st.Base + int64(i)
		hs, err := tlog.StoredHashesForRecordHash(n, l.Hash, hr)
		if err != nil {
			return audit.Wrap(audit.EINTERNAL, err, "the tree hashes of leaf %d of %s", n, st.TenantID)
		}
		for j, h := range hs {
			hr.added[tlog.StoredHashIndex(0, n)+int64(j)] = h
		}
	}
	if root, err := tlog.TreeHash(st.Size, hr); err != nil || root != st.Root {
		return audit.Errorf(audit.EINTERNAL, "the last round of the log of %s does not make its signed root (%v)", st.TenantID, err)
	}
	for _, t := range tlog.NewTiles(tileHeight, st.Base, st.Size) {
		data, err := tlog.ReadTileData(t, hr)
		if err != nil {
			return audit.Wrap(audit.EINTERNAL, err, "tile %s of %s", t.Path(), st.TenantID)
		}
		appendVersioned(buf, s.TlogIndex(), tileID(st.TenantID, t), t.W, tileDoc{Kind: "tile", TenantID: st.TenantID, W: t.W, Data: data})
	}
	return nil
}

// overlay reads the hashes a round added, and the rest from base.
type overlay struct {
	added map[int64]tlog.Hash
	base  tlog.HashReader
}

func (o overlay) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	var missing []int64
	for _, x := range indexes {
		if _, ok := o.added[x]; !ok {
			missing = append(missing, x)
		}
	}
	var stored []tlog.Hash
	if len(missing) > 0 {
		var err error
		if stored, err = o.base.ReadHashes(missing); err != nil {
			return nil, err
		}
	}
	for i, j := 0, 0; i < len(indexes); i++ {
		if h, ok := o.added[indexes[i]]; ok {
			out[i] = h
		} else {
			out[i] = stored[j]
			j++
		}
	}
	return out, nil
}

// appendVersioned appends the index of doc at id with an external
// version: Elasticsearch keeps the higher version.
func appendVersioned(buf *bytes.Buffer, index, id string, version int, doc any) {
	meta, _ := json.Marshal(map[string]any{"index": map[string]any{"_index": index, "_id": id, "version": version, "version_type": "external"}})
	buf.Write(meta)
	buf.WriteByte('\n')
	buf.Write(mustJSON(doc))
	buf.WriteByte('\n')
}

// bulkVersioned sends versioned writes, refreshing the index: each item
// written, or refused as older than the stored one (409), is done.
func (s *Store) bulkVersioned(ctx context.Context, body []byte) error {
	var out struct {
		Items []map[string]struct {
			Status int             `json:"status"`
			Error  json.RawMessage `json:"error"`
		} `json:"items"`
	}
	res, err := s.c.Do(ctx, http.MethodPost, "/_bulk?refresh=true&filter_path=items.*.status,items.*.error", body)
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK {
		return audit.Wrap(audit.EUNAVAILABLE, StatusError(http.MethodPost, "/_bulk", res), "writing the log's tiles")
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "decoding the bulk answer")
	}
	for _, it := range out.Items {
		for _, r := range it {
			if r.Status != http.StatusOK && r.Status != http.StatusCreated && r.Status != http.StatusConflict {
				return audit.Errorf(audit.EUNAVAILABLE, "writing the log's tiles: status %d %s", r.Status, r.Error)
			}
		}
	}
	return nil
}
