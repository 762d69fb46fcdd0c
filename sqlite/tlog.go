package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Acceptor is the acceptance key the store tags with (nil: none).
func (s *Store) Acceptor() *vlog.Acceptor { return s.cfg.Accept }

// SealPosition implements vlog.Store: the seq of the last sealed
// event ("0" before the first round).
func (s *Store) SealPosition(ctx context.Context) (string, string, error) {
	var seq, rev int64
	err := s.r.QueryRowContext(ctx, `SELECT seq, rev FROM tlog_position WHERE id = 1`).Scan(&seq, &rev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading the seal position")
	}
	return strconv.FormatInt(seq, 10), strconv.FormatInt(rev, 10), nil
}

// PendingLeaves implements vlog.Store: the events after seq pos, in
// seq order (the order of their insertion; a seq is never reused).
func (s *Store) PendingLeaves(ctx context.Context, pos string, limit int) ([]vlog.PendingLeaf, string, error) {
	after, err := strconv.ParseInt(pos, 10, 64)
	if err != nil {
		return nil, "", audit.Errorf(audit.EINVALID, "sqlite: seal position %q is not a seq", pos)
	}
	// The readers' pool: a round's reading and decoding never holds the
	// writer's connection, which ingest waits for.
	rows, err := s.r.QueryContext(ctx, `SELECT e.seq, e.body, e.id, e.actor_id, e.resource_id, n.tenant_id, e.accept, e.tenant_no
		FROM events e LEFT JOIN tenant_numbers n ON n.no = e.tenant_no WHERE e.seq > ? ORDER BY e.seq LIMIT ?`, after, limit)
	if err != nil {
		return nil, "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: pending events")
	}
	defer rows.Close()
	var out []vlog.PendingLeaf
	for rows.Next() {
		var k keyedRow
		var tenant sql.NullString
		var tag []byte
		var no any
		if err := rows.Scan(append(append([]any{&after}, k.dest()...), &tenant, &tag, &no)...); err != nil {
			return nil, "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: pending events")
		}
		// A row that is no event of its tenant under its own id, or of
		// no tenant, is pending too, unreadable: the sealer names it and
		// goes on.
		row := k.decode(audit.NormalizeTenantID(tenant.String))
		if !tenant.Valid {
			row.Err = audit.Errorf(audit.EINVALID, "the row's tenant number %v is no tenant's", no)
		}
		if row.Err != nil {
			out = append(out, vlog.PendingLeaf{TenantID: tenant.String, EventID: row.Key, Unreadable: audit.ErrorMessage(row.Err)})
			continue
		}
		out = append(out, vlog.NewPendingLeaf(&row.Event, tag))
	}
	if err := rows.Err(); err != nil {
		return nil, "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: pending events")
	}
	return out, strconv.FormatInt(after, 10), nil
}

// LogState implements vlog.Store.
func (s *Store) LogState(ctx context.Context, tenantID string) (vlog.State, error) {
	var body []byte
	err := s.r.QueryRowContext(ctx, `SELECT body FROM tlog_state WHERE tenant_id = ?`, tenantID).Scan(&body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return vlog.State{TenantID: tenantID}, nil
	case err != nil:
		return vlog.State{}, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading the log of %s", tenantID)
	}
	var st vlog.State
	if err := json.Unmarshal(body, &st); err != nil {
		return vlog.State{}, audit.Wrap(audit.EINTERNAL, err, "sqlite: the log state of %s does not decode", tenantID)
	}
	return st, nil
}

// CommitSeal implements vlog.Store in one transaction.
func (s *Store) CommitSeal(ctx context.Context, b vlog.SealBatch) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: sealing")
	}
	defer func() { _ = tx.Rollback() }()
	if err := commitPosition(ctx, tx, b.Position, b.Rev); err != nil {
		return err
	}
	leafIns, err := tx.PrepareContext(ctx, `INSERT INTO tlog_leaves (tenant_no, leaf, event_id, hash, digest) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: sealing")
	}
	for tenant, leaves := range b.Leaves {
		no, err := tenantNumber(ctx, tx, tenant)
		if err != nil {
			return err
		}
		for _, l := range leaves {
			var digest []byte // NULL: a v1 leaf
			hash := l.Hash[:]
			if l.Digest != nil {
				digest = l.Digest[:]
				if vlog.EntryHash(l.EventID, *l.Digest) == l.Hash {
					hash = nil // the entry's hash (leafHash)
				}
			}
			if _, err := leafIns.ExecContext(ctx, no, l.Index, idKey(l.EventID), hash, digest); err != nil {
				return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: sealing %s", l.EventID)
			}
		}
		if err := writeHashes(ctx, tx, tenant, b.Hashes[tenant]); err != nil {
			return err
		}
	}
	for tenant, st := range b.States {
		body, _ := json.Marshal(st)
		if _, err := tx.ExecContext(ctx, `INSERT INTO tlog_state (tenant_id, body) VALUES (?, ?) ON CONFLICT (tenant_id) DO UPDATE SET body = excluded.body`, tenant, body); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: sealing the log of %s", tenant)
		}
	}
	if err := tx.Commit(); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: sealing")
	}
	return nil
}

// commitPosition moves the seal position from revision rev to pos.
func commitPosition(ctx context.Context, tx *sql.Tx, pos, rev string) error {
	seq, err1 := strconv.ParseInt(pos, 10, 64)
	r, err2 := strconv.ParseInt(rev, 10, 64)
	if err1 != nil || err2 != nil {
		return audit.Errorf(audit.EINVALID, "sqlite: seal position %q at revision %q", pos, rev)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO tlog_position (id, seq, rev) VALUES (1, ?, 1)
		ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, rev = tlog_position.rev + 1 WHERE tlog_position.rev = ?`, seq, r)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: sealing")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return audit.Errorf(audit.ECONFLICT, "the seal position moved since revision %d: another sealer committed", r)
	}
	return nil
}

// LeafOf implements vlog.Store.
func (s *Store) LeafOf(ctx context.Context, tenantID, eventID string) (vlog.Leaf, error) {
	return s.leaf(ctx, eventID, `SELECT leaf, event_id, hash, digest FROM tlog_leaves WHERE `+tenantIs+` AND event_id = ?`, tenantID, idKey(eventID))
}

// LeafAt implements vlog.Store.
func (s *Store) LeafAt(ctx context.Context, tenantID string, index int64) (vlog.Leaf, error) {
	return s.leaf(ctx, index, `SELECT leaf, event_id, hash, digest FROM tlog_leaves WHERE `+tenantIs+` AND leaf = ?`, tenantID, index)
}

func (s *Store) leaf(ctx context.Context, of any, query string, args ...any) (vlog.Leaf, error) {
	var l vlog.Leaf
	var id any
	var h, d []byte
	err := s.r.QueryRowContext(ctx, query, args...).Scan(&l.Index, &id, &h, &d)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return l, audit.Errorf(audit.ENOTFOUND, "no leaf of %v in the log", of)
	case err != nil:
		return l, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading a leaf")
	}
	return readLeaf(l.Index, id, h, d), nil
}

// readLeaf is a leaf as read back: its event id from its key, and its
// hash from its entry when the row keeps none (leafHash).
func readLeaf(index int64, id any, h, d []byte) vlog.Leaf {
	l := vlog.Leaf{Index: index, EventID: idOfKey(id), Digest: digestOf(d)}
	l.Hash, _ = leafHash(l.EventID, h, d)
	return l
}

// leafHash is a leaf's hash as its row keeps it: the stored hash, or,
// for a leaf of the entry format that keeps none (0021), the hash of the
// entry its event id and digest make. ok false: no leaf (a row of
// neither).
func leafHash(eventID string, h, d []byte) (tlog.Hash, bool) {
	switch {
	case len(h) == tlog.HashSize:
		return tlog.Hash(h), true
	case h == nil && len(d) == 32:
		return vlog.EntryHash(eventID, [32]byte(d)), true
	}
	return tlog.Hash{}, false
}

// digestOf is a stored digest (nil for a v1 leaf).
func digestOf(d []byte) *[32]byte {
	if len(d) != 32 {
		return nil
	}
	return (*[32]byte)(d)
}

// Leaves implements vlog.Store.
func (s *Store) Leaves(ctx context.Context, tenantID string, start int64, n int) ([]vlog.Leaf, error) {
	ls, err := s.LogState(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT leaf, event_id, hash, digest FROM tlog_leaves WHERE `+tenantIs+` AND leaf >= ? AND leaf < ? ORDER BY leaf LIMIT ?`,
		tenantID, start, ls.Size, n)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading leaves")
	}
	defer rows.Close()
	var out []vlog.Leaf
	for rows.Next() {
		var index int64
		var id any
		var h, d []byte
		if err := rows.Scan(&index, &id, &h, &d); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading leaves")
		}
		out = append(out, readLeaf(index, id, h, d))
	}
	if err := rows.Err(); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading leaves")
	}
	return out, nil
}

// FootprintPart is one part of the database file and its bytes on disk.
type FootprintPart struct {
	Name  string
	Bytes int64
}

// footprintParts names the parts of the file by their tables and
// indexes, in the order Footprint reports them: what each costs is what
// issue 58 cuts.
var footprintParts = []struct{ name, match string }{
	{"event rows (bodies and columns)", "events"},
	{"event indexes", "events_by_*,events_cross_tenant,sqlite_autoindex_events_*"},
	{"text index", "events_fts*"},
	{"rollups", "event_rollup*"},
	{"tree: hashes", "tlog_hash_blocks*,sqlite_autoindex_tlog_hash_blocks*"},
	{"tree: leaves", "tlog_leaves*,sqlite_autoindex_tlog_leaves*"},
}

// Footprint returns the bytes on disk of each part of the file (from
// SQLite's dbstat), and last "everything else" (tenants, jobs, states).
func (s *Store) Footprint(ctx context.Context) ([]FootprintPart, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, SUM(pgsize) FROM dbstat GROUP BY name`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: dbstat")
	}
	defer rows.Close()
	parts := make([]FootprintPart, len(footprintParts)+1)
	for i, p := range footprintParts {
		parts[i].Name = p.name
	}
	parts[len(footprintParts)].Name = "everything else"
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: dbstat")
		}
		i := slices.IndexFunc(footprintParts, func(p struct{ name, match string }) bool {
			return slices.ContainsFunc(strings.Split(p.match, ","), func(pat string) bool { ok, _ := path.Match(pat, name); return ok })
		})
		if i < 0 {
			i = len(footprintParts)
		}
		parts[i].Bytes += n
	}
	return parts, rows.Err()
}

// LogFootprint returns the bytes on disk of the verifiable log (its
// tables and indexes) and of everything else in the file (the events,
// their indexes, the full-text index, the rollups), from SQLite's dbstat.
func (s *Store) LogFootprint(ctx context.Context) (tree, rest int64, err error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, SUM(pgsize) FROM dbstat GROUP BY name`)
	if err != nil {
		return 0, 0, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: dbstat")
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return 0, 0, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: dbstat")
		}
		if strings.Contains(name, "tlog_") {
			tree += n
		} else {
			rest += n
		}
	}
	return tree, rest, rows.Err()
}

// retentionDeletions lists, per tenant, what deleting the events of cond
// deletes: how many, and the leaves that hold them.
func retentionDeletions(ctx context.Context, tx *sql.Tx, plan audit.Plan, before time.Time, cond string, args []any) ([]retention.Deletion, error) {
	byTenant := map[string]*retention.Deletion{}
	var order []string
	rows, err := tx.QueryContext(ctx, `SELECT n.tenant_id, COUNT(*) FROM events e JOIN tenant_numbers n ON n.no = e.tenant_no
		WHERE `+cond+` GROUP BY n.tenant_id ORDER BY n.tenant_id`, args...)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	for rows.Next() {
		d := &retention.Deletion{Plan: plan, Before: before}
		if err := rows.Scan(&d.TenantID, &d.Deleted); err != nil {
			rows.Close()
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
		}
		byTenant[d.TenantID], order = d, append(order, d.TenantID)
	}
	rows.Close()
	leaves := map[string][]int64{}
	rows, err = tx.QueryContext(ctx, `SELECT n.tenant_id, l.leaf FROM tlog_leaves l JOIN tenant_numbers n ON n.no = l.tenant_no
		WHERE (l.tenant_no, l.event_id) IN (SELECT tenant_no, id FROM events WHERE `+cond+`) ORDER BY n.tenant_id, l.leaf`, args...)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	defer rows.Close()
	for rows.Next() {
		var tenant string
		var leaf int64
		if err := rows.Scan(&tenant, &leaf); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
		}
		leaves[tenant] = append(leaves[tenant], leaf)
	}
	out := make([]retention.Deletion, 0, len(order))
	for _, t := range order {
		d := byTenant[t]
		d.Leaves = retention.LeafRanges(leaves[t])
		d.Unsealed = d.Deleted - int64(len(leaves[t]))
		out = append(out, *d)
	}
	return out, rows.Err()
}
