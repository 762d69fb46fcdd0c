package seal

import (
	"context"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// nameDiffering names the leaves whose listed hash is not the signed
// tree's at their index: reordered when the signed tree has that hash at
// another index (leaves moved), rewritten otherwise. The signed tree's
// hashes come from the source's tiles, each checked against cp's root; a
// tile that does not verify means the tree's stored hashes were rewritten
// too, and no leaf can be named.
func (c *checker) nameDiffering(ctx context.Context, cp audit.Checkpoint, ts TileSource) {
	thr := tlog.TileHashReader(tlog.Tree{N: cp.Size, Hash: cp.Root}, tileReader{ctx, ts})
	listedAt := make(map[tlog.Hash]int64, cp.Size)
	for i := range cp.Size {
		listedAt[(*c.mem)[tlog.StoredHashIndex(0, i)]] = i
	}
	ids := map[int64]string{}
	for id, e := range c.stored {
		if e.leaf >= 0 {
			ids[e.leaf] = id
		}
	}
	for i := int64(0); i < cp.Size; i += 1 << TileHeight {
		idx := make([]int64, 0, 1<<TileHeight)
		for j := i; j < min(i+1<<TileHeight, cp.Size); j++ {
			idx = append(idx, tlog.StoredHashIndex(0, j))
		}
		signed, err := thr.ReadHashes(idx)
		if err != nil {
			c.rep.Findings = append(c.rep.Findings, Finding{Kind: "tree", Index: -1,
				Detail: fmt.Sprintf("the tree's stored hashes do not verify against the signed root either (%v): they were rewritten too, and the changed leaves cannot be named", err)})
			return
		}
		for k, h := range signed {
			j := i + int64(k)
			if h == (*c.mem)[idx[k]] {
				continue
			}
			f := Finding{Kind: "rewritten", Index: j, EventID: ids[j], Detail: "the leaf's hash is not the signed tree's"}
			if o, ok := listedAt[h]; ok && o != j {
				f.Kind, f.Detail = "reordered", fmt.Sprintf("the signed tree has here the leaf now listed at #%d", o)
			}
			c.rep.Findings = append(c.rep.Findings, f)
		}
	}
}

// tileReader reads a TileSource's tiles for tlog.TileHashReader.
type tileReader struct {
	ctx context.Context
	ts  TileSource
}

func (r tileReader) Height() int { return TileHeight }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := r.ts.ReadTile(r.ctx, t)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (r tileReader) SaveTiles([]tlog.Tile, [][]byte) {}
