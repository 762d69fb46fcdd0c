package seal

import (
	"context"
	"fmt"

	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/tlog"
)

// nameDiffering names the leaves whose listed hash is not the signed
// tree's at their index: reordered when the signed tree has that hash at
// another index (leaves moved), rewritten otherwise. The signed tree's
// hashes come from the source's tiles, each checked against cp's root; a
// tile that does not verify means the tree's stored hashes were rewritten
// too, and no leaf can be named.
func (c *checker) nameDiffering(ctx context.Context, cp vlog.Checkpoint, ts TileSource) error {
	thr := SignedHashes(ctx, ts, cp)
	listed := c.leaves.hashes[:cp.Size]
	listedAt := make(map[tlog.Hash]int64, cp.Size)
	for i, h := range listed {
		listedAt[h] = int64(i)
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
			return nil
		}
		var ids []vlog.Leaf // read again, for the event ids, when a leaf of this tile differs
		for k, h := range signed {
			j := i + int64(k)
			if h == listed[j] {
				continue
			}
			if ids == nil {
				if ids, err = c.src.Leaves(ctx, i, len(idx)); err != nil {
					return err
				}
			}
			f := Finding{Kind: "rewritten", Index: j, Detail: "the leaf's hash is not the signed tree's"}
			if k < len(ids) && ids[k].Index == j {
				f.EventID = ids[k].EventID
			}
			if o, ok := listedAt[h]; ok && o != j {
				f.Kind, f.Detail = "reordered", fmt.Sprintf("the signed tree has here the leaf now listed at #%d", o)
			}
			c.rep.Findings = append(c.rep.Findings, f)
		}
	}
	return nil
}

// SignedHashes reads the hashes of cp's tree from ts's tiles, each
// checked against cp's root (tlog.TileHashReader): a hash it returns is
// the signed tree's.
func SignedHashes(ctx context.Context, ts TileSource, cp vlog.Checkpoint) tlog.HashReader {
	return tlog.TileHashReader(tlog.Tree{N: cp.Size, Hash: cp.Root}, tileReader{ctx, ts})
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
