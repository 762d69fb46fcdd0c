package seal

import (
	"context"
	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Source is what a verification reads of one tenant's log: its latest
// signed checkpoint, its leaves, and the tenant's events that remain.
// The configured store is one (StoreSource); the service's public API
// (logapi.Client) and a saved copy of what it answered (logapi.Dir) are
// the others, so that one algorithm checks all three.
type Source interface {
	// SignedCheckpoint returns the latest checkpoint, as signed note
	// text; with cosigned, the latest one witnesses cosigned, with their
	// cosignatures. Errors: ENOTFOUND when the log has none.
	SignedCheckpoint(ctx context.Context, cosigned bool) ([]byte, error)
	// Leaves returns the leaves from index start, in order, at most n
	// (fewer, or none, past the end).
	Leaves(ctx context.Context, start int64, n int) ([]vlog.Leaf, error)
	// Events calls fn with every event of the tenant that remains, in
	// batches.
	Events(ctx context.Context, fn func([]audit.Event) error) error
}

// StoreSource is the tenant's log as the store keeps it.
func StoreSource(st vlog.Store, scan audit.EventScanner, tenant string) Source {
	return storeSource{st, scan, tenant}
}

type storeSource struct {
	st     vlog.Store
	scan   audit.EventScanner
	tenant string
}

func (s storeSource) SignedCheckpoint(ctx context.Context, cosigned bool) ([]byte, error) {
	if cosigned {
		cs, ok := s.st.(vlog.CosignStore)
		if !ok {
			return nil, audit.Errorf(audit.ENOTFOUND, "this store keeps no cosigned checkpoints")
		}
		c, err := cs.CosignedCheckpoint(ctx, s.tenant)
		if err == nil && c.Size == 0 {
			err = audit.Errorf(audit.ENOTFOUND, "no checkpoint of the log of %s is cosigned yet", s.tenant)
		}
		return []byte(c.Note), err
	}
	ls, err := s.st.LogState(ctx, s.tenant)
	if err != nil {
		return nil, err
	}
	if ls.Checkpoint == "" {
		return nil, audit.Errorf(audit.ENOTFOUND, "the log of %s has no checkpoint yet", s.tenant)
	}
	return []byte(ls.Checkpoint), nil
}

func (s storeSource) Leaves(ctx context.Context, start int64, n int) ([]vlog.Leaf, error) {
	return s.st.Leaves(ctx, s.tenant, start, n)
}

// Events reads the events as they are now: a store that makes writes
// visible after a refresh is refreshed first.
func (s storeSource) Events(ctx context.Context, fn func([]audit.Event) error) error {
	if r, ok := s.scan.(audit.Refresher); ok {
		if err := r.Refresh(ctx, s.tenant); err != nil {
			return err
		}
	}
	return s.scan.ScanEvents(ctx, audit.Filter{TenantID: s.tenant}, audit.DefaultSort, fn)
}

// RowSource is a Source that reads the stored rows themselves, a row that
// is no well-formed event included (with its Err): the store
// (StoreSource). Check names each such row instead of stopping.
type RowSource interface {
	Rows(ctx context.Context, fn func([]vlog.StoredRow) error) ([]vlog.IndexFinding, error)
}

// Rows reads the tenant's rows as the store keeps them
// (vlog.RowScanner), after the refresh Events makes; a store without
// RowScanner gives its decoded events as rows.
func (s storeSource) Rows(ctx context.Context, fn func([]vlog.StoredRow) error) ([]vlog.IndexFinding, error) {
	rs, ok := s.scan.(vlog.RowScanner)
	if !ok {
		return nil, eventRows(ctx, s, fn)
	}
	if r, ok := s.scan.(audit.Refresher); ok {
		if err := r.Refresh(ctx, s.tenant); err != nil {
			return nil, err
		}
	}
	return rs.ScanRows(ctx, s.tenant, fn)
}

// eventRows reads src's decoded events as rows, each filed under its own
// id: what a source that reads no rows of its own gives (the API, a saved
// copy, a store without RowScanner).
func eventRows(ctx context.Context, src Source, fn func([]vlog.StoredRow) error) error {
	return src.Events(ctx, func(batch []audit.Event) error {
		rows := make([]vlog.StoredRow, len(batch))
		for i, e := range batch {
			rows[i] = vlog.StoredRow{Key: e.ID, Event: e}
		}
		return fn(rows)
	})
}

// AcceptSource is a Source that knows the acceptance key of what it
// reads: the store, opened with the service's configuration. Check then
// tells a row in no leaf that the service accepted (unsealed, not yet)
// from one it never did (unaccepted).
type AcceptSource interface {
	Acceptor() *vlog.Acceptor
}

// acceptorOf is src's acceptance key, nil when it has none.
func acceptorOf(src Source) *vlog.Acceptor {
	if as, ok := src.(AcceptSource); ok {
		return as.Acceptor()
	}
	return nil
}

// Acceptor is the store's acceptance key, when it has one.
func (s storeSource) Acceptor() *vlog.Acceptor {
	if as, ok := s.st.(AcceptSource); ok {
		return as.Acceptor()
	}
	return nil
}

// keyRows names each row of the store's keys table (audit.KeyRows):
// the service reads no key from the store, so such a row is one an
// earlier version left or one planted, and a verifier must not take a
// key from there either.
func (c *checker) keyRows(ctx context.Context) error {
	ss, ok := c.src.(storeSource)
	if !ok {
		return nil
	}
	kr, ok := ss.st.(vlog.KeyRows)
	if !ok {
		return nil
	}
	names, err := kr.KeyRows(ctx)
	if err != nil {
		return err
	}
	for _, n := range names {
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "storedkey", Index: -1, EventID: n,
			Detail: "a row of the store's keys: ignored, never used nor published (no key is read from the store); left by an earlier version, or planted"})
	}
	return nil
}

// TileSource is a Source that also reads the tree's hash tiles (C2SP
// tlog-tiles of height TileHeight: the store's stored hashes, or the
// API's tiles). When the leaves do not make the signed root, Check reads
// the signed tree's leaf hashes from them, each checked against the root
// (tlog.TileHashReader), and names each leaf that differs.
type TileSource interface {
	ReadTile(ctx context.Context, t tlog.Tile) ([]byte, error)
}

// ReadTile reads a tile of the store's tree.
func (s storeSource) ReadTile(ctx context.Context, t tlog.Tile) ([]byte, error) {
	return ReadTile(ctx, s.st, s.tenant, t)
}
