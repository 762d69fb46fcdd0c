package sqlite

import (
	"context"
	"encoding/json"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

func setStreamRev(st *stream.Stream, rev string) { st.Rev = rev }

// Streams implements stream.Store.
func (s *Store) Streams(ctx context.Context, tenantID string) ([]stream.Stream, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT body, rev FROM streams WHERE tenant_id = ? ORDER BY created_at, id`, tenantID)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: listing streams")
	}
	out, err := scanAll(rows, func(r scanner) (stream.Stream, error) { return scanRevisioned(r, setStreamRev, "stream") }, "listing streams")
	if out == nil && err == nil {
		out = []stream.Stream{}
	}
	return out, err
}

// Stream implements stream.Store.
func (s *Store) Stream(ctx context.Context, tenantID, id string) (stream.Stream, error) {
	st, found, err := getRevisioned(ctx, s, setStreamRev, "stream "+id, `SELECT body, rev FROM streams WHERE tenant_id = ? AND id = ?`, tenantID, id)
	if err == nil && !found {
		err = audit.Errorf(audit.ENOTFOUND, "no stream %s", id)
	}
	return st, err
}

// SaveProgress implements stream.Store: PutStream, whose writes every
// read sees at once.
func (s *Store) SaveProgress(ctx context.Context, st *stream.Stream) error {
	return s.PutStream(ctx, st)
}

// PutStream implements stream.Store.
func (s *Store) PutStream(ctx context.Context, st *stream.Stream) error {
	what := "stream " + st.ID
	body, err := json.Marshal(st)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding %s", what)
	}
	if st.Rev == "" {
		created, err := s.insertOnce(ctx, what, `INSERT INTO streams (tenant_id, id, created_at, rev, body) VALUES (?, ?, ?, 1, ?) ON CONFLICT DO NOTHING`,
			st.TenantID, st.ID, st.CreatedAt.UnixNano(), body)
		if err != nil {
			return err
		}
		if !created {
			return audit.Errorf(audit.ECONFLICT, "%s exists", what)
		}
		st.Rev = "1"
		return nil
	}
	rev, err := s.updateIfUnchanged(ctx, `UPDATE streams SET rev = rev + 1, body = ? WHERE tenant_id = ? AND id = ? AND rev = ?`,
		[]any{body, st.TenantID, st.ID}, st.Rev, what, func() error { _, err := s.Stream(ctx, st.TenantID, st.ID); return err })
	if err != nil {
		return err
	}
	st.Rev = rev
	return nil
}

// DeleteStream implements stream.Store.
func (s *Store) DeleteStream(ctx context.Context, tenantID, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM streams WHERE tenant_id = ? AND id = ?`, tenantID, id)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: deleting stream %s", id)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return audit.Errorf(audit.ENOTFOUND, "no stream %s", id)
	}
	return nil
}

// StreamsAfter implements stream.Store.
func (s *Store) StreamsAfter(ctx context.Context, after stream.Key, limit int) ([]stream.Stream, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT body, rev FROM streams WHERE tenant_id > ? OR (tenant_id = ? AND id > ?) ORDER BY tenant_id, id LIMIT ?`,
		after.TenantID, after.TenantID, after.ID, limit)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: listing streams")
	}
	return scanAll(rows, func(r scanner) (stream.Stream, error) { return scanRevisioned(r, setStreamRev, "stream") }, "listing streams")
}
