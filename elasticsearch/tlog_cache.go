package elasticsearch

import (
	"strconv"
	"sync"

	"golang.org/x/mod/sumdb/tlog"
)

// logCache keeps, per process, what the verifiable log never changes once
// committed: each tenant's latest tree seen (and materialized), whose
// hashes stay those of every later tree; and the tiles tlog verified
// against a signed tree (a tile of a given width never changes). Both
// are bounded: past the bound, half the entries go.
type logCache struct {
	mu    sync.Mutex
	trees map[string]tlog.Tree
	tiles map[string][]byte
}

const (
	maxCachedTrees = 100_000 // a tree is 40 bytes and a tenant id
	maxCachedTiles = 4096    // at most 8 KiB each: 32 MiB
)

func (c *logCache) tree(tenant string) tlog.Tree {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.trees[tenant]
}

// sawTree records a tenant's committed, materialized tree, unless a
// larger one was seen.
func (c *logCache) sawTree(tenant string, t tlog.Tree) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trees == nil || len(c.trees) >= maxCachedTrees {
		c.trees = halve(c.trees)
	}
	if c.trees[tenant].N <= t.N {
		c.trees[tenant] = t
	}
}

func tileKey(tenant string, t tlog.Tile) string {
	return tenant + "/" + strconv.Itoa(t.L) + "/" + strconv.FormatInt(t.N, 10) + "/" + strconv.Itoa(t.W)
}

func (c *logCache) tile(tenant string, t tlog.Tile) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tiles[tileKey(tenant, t)]
}

func (c *logCache) saveTile(tenant string, t tlog.Tile, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tiles == nil || len(c.tiles) >= maxCachedTiles {
		c.tiles = halve(c.tiles)
	}
	c.tiles[tileKey(tenant, t)] = data
}

// halve returns m with about half its entries (a new map when nil).
func halve[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m)/2+1)
	i := 0
	for k, v := range m {
		if i%2 == 0 {
			out[k] = v
		}
		i++
	}
	return out
}
