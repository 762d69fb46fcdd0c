package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
	msqlite "modernc.org/sqlite"

	"github.com/auditlog/auditlog/audit"
)

// The tree's stored hashes (tlog's stored-hash indexes, dense from 0 per
// tenant: a seal round appends the hashes of its leaves after the last)
// are kept in blocks of hashBlock consecutive hashes, one row per block,
// its hashes concatenated (32 bytes each, the block's last row growing
// until it is full). One row per hash took about 80 bytes a hash (the
// tenant id, the index and the row's overhead beside the 32-byte hash),
// 177 bytes an event. A block of 120 hashes (3,840 bytes) is one row that
// fills a 4 KB page on its own (the largest row a 4 KB table page keeps
// without overflow is 4,061 bytes; two per 8 KB page, and so on): about
// 34 bytes a hash. Blocks of 64 (2 KB) measured 130 bytes an event: two
// of them do not fit in a 4 KB page, so each took one, half empty.
const hashBlock = 120

// ReadLogHashes implements vlog.Store, reading the blocks that hold the
// indexes, 500 blocks a query. Errors: ENOTFOUND for an index the tenant's
// tree does not store, EUNAVAILABLE.
func (s *Store) ReadLogHashes(ctx context.Context, tenantID string, indexes []int64) ([]tlog.Hash, error) {
	var blocks []int64
	for _, idx := range indexes {
		blocks = append(blocks, idx/hashBlock)
	}
	slices.Sort(blocks)
	blocks = slices.Compact(blocks)
	found := make(map[int64][]byte, len(blocks))
	for start := 0; start < len(blocks); start += 500 {
		part := blocks[start:min(start+500, len(blocks))]
		args := make([]any, 0, len(part)+1)
		args = append(args, tenantID)
		for _, b := range part {
			args = append(args, b)
		}
		if err := readBlocks(ctx, s.r, args, found); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading log hashes")
		}
	}
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		b, at := found[idx/hashBlock], int(idx%hashBlock)*tlog.HashSize
		if idx < 0 || at+tlog.HashSize > len(b) {
			return nil, audit.Errorf(audit.ENOTFOUND, "no hash %d in the log of %s", idx, tenantID)
		}
		copy(out[i][:], b[at:])
	}
	return out, nil
}

func readBlocks(ctx context.Context, db *sql.DB, args []any, into map[int64][]byte) error {
	rows, err := db.QueryContext(ctx, `SELECT block, hashes FROM tlog_hash_blocks WHERE tenant_id = ? AND block IN (?`+strings.Repeat(",?", len(args)-2)+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var block int64
		var b []byte
		if err := rows.Scan(&block, &b); err != nil {
			return err
		}
		into[block] = b
	}
	return rows.Err()
}

// writeHashes adds a round's stored hashes of a tenant to its blocks, in
// the sealing transaction: each block the hashes fall in is read, the
// hashes put at their places, and written back. A hash may only extend
// its block (or replace one it holds): a gap would leave the tree
// unreadable, and is an internal error.
func writeHashes(ctx context.Context, tx *sql.Tx, tenant string, hashes map[int64]tlog.Hash) error {
	idxs := make([]int64, 0, len(hashes))
	for idx := range hashes {
		idxs = append(idxs, idx)
	}
	slices.Sort(idxs)
	for len(idxs) > 0 {
		block := idxs[0] / hashBlock
		n := 0
		for n < len(idxs) && idxs[n]/hashBlock == block {
			n++
		}
		var b []byte
		err := tx.QueryRowContext(ctx, `SELECT hashes FROM tlog_hash_blocks WHERE tenant_id = ? AND block = ?`, tenant, block).Scan(&b)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: sealing the log of %s", tenant)
		}
		for _, idx := range idxs[:n] {
			if b, err = putHash(b, idx, hashes[idx]); err != nil {
				return audit.Wrap(audit.EINTERNAL, err, "sqlite: sealing the log of %s", tenant)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tlog_hash_blocks (tenant_id, block, hashes) VALUES (?, ?, ?)
			ON CONFLICT (tenant_id, block) DO UPDATE SET hashes = excluded.hashes`, tenant, block, b); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: sealing the log of %s", tenant)
		}
		idxs = idxs[n:]
	}
	return nil
}

// putHash puts the stored hash idx into its block b (the hashes before
// it in the block present).
func putHash(b []byte, idx int64, h tlog.Hash) ([]byte, error) {
	at := int(idx%hashBlock) * tlog.HashSize
	switch {
	case at < len(b):
		copy(b[at:], h[:])
		return b, nil
	case at == len(b):
		return append(b, h[:]...), nil
	default:
		return nil, fmt.Errorf("stored hash %d would leave a gap after the %d its block holds", idx, len(b)/tlog.HashSize)
	}
}

// hashBlockAgg is auditlog_hash_block(idx, hash), the aggregate with
// which the migration 0018 packs (idx / 120 there: hashBlock) the rows of one block: each hash at its
// place, whatever the order the rows come in (a missing hash would be
// zeros, and the tree's verification names it).
type hashBlockAgg struct{ b []byte }

func init() {
	msqlite.MustRegisterFunction("auditlog_hash_block", &msqlite.FunctionImpl{NArgs: 2, Deterministic: true,
		MakeAggregate: func(msqlite.FunctionContext) (msqlite.AggregateFunction, error) { return &hashBlockAgg{}, nil }})
}

func (a *hashBlockAgg) Step(_ *msqlite.FunctionContext, args []driver.Value) error {
	idx, _ := args[0].(int64)
	h := argBytes(args[1])
	at := int(idx%hashBlock) * tlog.HashSize
	if idx < 0 || len(h) != tlog.HashSize {
		return fmt.Errorf("auditlog_hash_block: stored hash %d is not a 32-byte hash", idx)
	}
	if len(a.b) < at+tlog.HashSize {
		a.b = append(a.b, make([]byte, at+tlog.HashSize-len(a.b))...)
	}
	copy(a.b[at:], h)
	return nil
}

func (a *hashBlockAgg) WindowInverse(*msqlite.FunctionContext, []driver.Value) error {
	return errors.New("auditlog_hash_block: not a window function")
}
func (a *hashBlockAgg) WindowValue(*msqlite.FunctionContext) (driver.Value, error) { return a.b, nil }
func (a *hashBlockAgg) Final(*msqlite.FunctionContext)                             {}
