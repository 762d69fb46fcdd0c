package seal

import "golang.org/x/mod/sumdb/tlog"

// rootRange computes the RFC 6962 root of leaf hashes appended in order,
// keeping only the roots of the perfect subtrees the leaves so far split
// into: at most log2(n) hashes, where rebuilding the tree's stored hashes
// (tlog.StoredHashes) would hold two for every leaf. It is the compact
// range of the Merkle tree literature; x/mod's tlog has no incremental
// root, only one read back from stored hashes, hence these few lines.
type rootRange struct {
	n     int64
	stack []tlog.Hash
}

// append adds the next leaf's hash.
func (r *rootRange) append(h tlog.Hash) {
	r.stack = append(r.stack, h)
	for k := r.n; k&1 == 1; k >>= 1 { // each trailing 1 bit of n completes a subtree
		l := len(r.stack)
		r.stack = append(r.stack[:l-2], tlog.NodeHash(r.stack[l-2], r.stack[l-1]))
	}
	r.n++
}

// root is the tree hash of the leaves appended, as tlog.TreeHash gives it.
func (r *rootRange) root() tlog.Hash {
	if len(r.stack) == 0 {
		h, _ := tlog.TreeHash(0, nil)
		return h
	}
	h := r.stack[len(r.stack)-1]
	for i := len(r.stack) - 2; i >= 0; i-- {
		h = tlog.NodeHash(r.stack[i], h)
	}
	return h
}
