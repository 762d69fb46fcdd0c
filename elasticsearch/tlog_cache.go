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
// are bounded: past the bound, half the entries go. It also keeps the
// state documents this process committed, by their revision (states),
// and those it last read without their leaves (heads).
type logCache struct {
	mu     sync.Mutex
	trees  map[string]tlog.Tree
	tiles  map[string][]byte
	states map[string]cachedState
	leaves int // of the states kept
	heads  map[string]cachedState
	// bundles holds, per tenant, the last id bundle this process wrote
	// (a bundle's leaves, once in a committed tree, never change).
	bundles map[string]bundleDoc
}

// cachedState is a state document as this process wrote it, at the
// revision Elasticsearch answered the write with: a read that finds the
// document still at that revision finds these bytes (a revision names
// one version of a document), so it need not read the round's leaves
// again. Any other revision (another sealer committed, or the document
// was edited) is read in full.
type cachedState struct {
	rev string
	st  logState
}

const (
	maxCachedTrees   = 100_000 // a tree is 40 bytes and a tenant id
	maxCachedTiles   = 4096    // at most 8 KiB each: 32 MiB
	maxCachedLeaves  = 50_000  // in the states kept: about 8 MiB
	maxCachedBundles = 512     // at most 256 ids and digests each: about 16 MiB
	maxCachedHeads   = 10_000  // a state without its leaves: under 1 KiB
)

// bundle returns the bundle n of tenant as this process last wrote it
// when it holds at least need leaves; with need 0 none is needed, and
// ok is true with a nil bundle.
func (c *logCache) bundle(tenant string, n, need int64) (*bundleDoc, bool) {
	if need == 0 {
		return nil, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.bundles[tenant]
	if !ok || b.N != n || int64(len(b.IDs)) < need {
		return nil, false
	}
	return &b, true
}

// savedBundle keeps b, written, as the tenant's last bundle.
func (c *logCache) savedBundle(tenant string, b bundleDoc) {
	if b.IDs == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bundles == nil || len(c.bundles) >= maxCachedBundles {
		c.bundles = halve(c.bundles)
	}
	c.bundles[tenant] = b
}

// state returns the state this process committed for tenant, if kept.
func (c *logCache) state(tenant string) (cachedState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs, ok := c.states[tenant]
	return cs, ok
}

// savedState keeps st, committed at rev, in place of the tenant's last.
func (c *logCache) savedState(tenant, rev string, st logState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.leaves -= len(c.states[tenant].st.Leaves)
	if c.states == nil || c.leaves+len(st.Leaves) > maxCachedLeaves {
		c.states, c.leaves = map[string]cachedState{}, 0
	}
	if len(st.Leaves) <= maxCachedLeaves {
		c.states[tenant] = cachedState{rev: rev, st: st}
		c.leaves += len(st.Leaves)
	}
}

// head returns the state without leaves this process last read for
// tenant, if kept.
func (c *logCache) head(tenant string) (cachedState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs, ok := c.heads[tenant]
	return cs, ok
}

// savedHead keeps st, read without its leaves at rev.
func (c *logCache) savedHead(tenant, rev string, st logState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.heads == nil || len(c.heads) >= maxCachedHeads {
		c.heads = halve(c.heads)
	}
	c.heads[tenant] = cachedState{rev: rev, st: st}
}

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
