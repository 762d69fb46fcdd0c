package sqlite

import (
	"crypto/sha256"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"sync"
	"sync/atomic"

	msqlite "modernc.org/sqlite"
)

// auditlog_fts_digest(docs, term, doc, col, offset) is an aggregate: the
// SHA-256 of the fts5vocab instance rows it is given, in the order given,
// each encoded unambiguously (lengths before strings), of the documents
// in the docSet registered under the handle docs (0: every document).
// The text index check digests both vocabularies inside SQLite, one call
// a row, instead of streaming tens of millions of rows through
// database/sql (each a lock, a copy and a conversion per column: most of
// what the check cost); equal digests mean equal instance lists. Only
// when they differ are the rows streamed, to name the documents.
func init() {
	msqlite.MustRegisterFunction("auditlog_fts_digest", &msqlite.FunctionImpl{
		NArgs:        5,
		VolatileArgs: true, // the terms are hashed, never kept
		MakeAggregate: func(msqlite.FunctionContext) (msqlite.AggregateFunction, error) {
			return &instanceDigest{h: sha256.New()}, nil
		},
	})
}

// docSets are the document sets the running checks registered.
var (
	docSets    sync.Map // int64 → *docSet
	docSetLast atomic.Int64
)

// register makes d the set of a new handle; release forgets it.
func (d *docSet) register() (handle int64, release func()) {
	h := docSetLast.Add(1)
	docSets.Store(h, d)
	return h, func() { docSets.Delete(h) }
}

type instanceDigest struct {
	h      hash.Hash
	docs   *docSet
	loaded bool
	buf    []byte
}

func (d *instanceDigest) Step(_ *msqlite.FunctionContext, args []driver.Value) error {
	if !d.loaded {
		if h, _ := args[0].(int64); h != 0 {
			v, ok := docSets.Load(h)
			if !ok {
				return fmt.Errorf("auditlog_fts_digest: no document set %d", h)
			}
			d.docs = v.(*docSet)
		}
		d.loaded = true
	}
	doc, _ := args[2].(int64)
	if d.docs != nil && !d.docs.has(doc) {
		return nil
	}
	term, _ := args[1].(string)
	col, _ := args[3].(string)
	off, _ := args[4].(int64)
	b := binary.AppendUvarint(d.buf[:0], uint64(len(term)))
	b = append(b, term...)
	b = binary.AppendVarint(b, doc)
	b = binary.AppendUvarint(b, uint64(len(col)))
	b = append(b, col...)
	b = binary.AppendVarint(b, off)
	d.h.Write(b)
	d.buf = b
	return nil
}

func (d *instanceDigest) WindowInverse(*msqlite.FunctionContext, []driver.Value) error {
	return errors.New("auditlog_fts_digest is no window function")
}

func (d *instanceDigest) WindowValue(*msqlite.FunctionContext) (driver.Value, error) {
	return d.h.Sum(nil), nil
}

func (d *instanceDigest) Final(*msqlite.FunctionContext) {}

// docSet is a set of rowids, as a bitmap from the lowest one added: the
// rows of a tenant, one bit each between its first and its last.
type docSet struct {
	base int64
	bits []uint64
	n    int
}

func (s *docSet) add(doc int64) {
	if s.n == 0 {
		s.base = doc
	}
	if doc < s.base { // the scan reads by seq, so only if that changes
		words := (s.base - doc + 63) / 64
		s.bits = append(make([]uint64, words), s.bits...)
		s.base -= words * 64
	}
	i := (doc - s.base) / 64
	for int64(len(s.bits)) <= i {
		s.bits = append(s.bits, 0)
	}
	s.bits[i] |= 1 << ((doc - s.base) % 64)
	s.n++
}

func (s *docSet) has(doc int64) bool {
	if doc < s.base {
		return false
	}
	i := (doc - s.base) / 64
	return i < int64(len(s.bits)) && s.bits[i]&(1<<((doc-s.base)%64)) != 0
}
