package sqlite

import (
	"context"

	"github.com/auditlog/auditlog/audit"
)

// ScanRows implements audit.RowScanner: every row of the tenant's events,
// in the order they were written, each decoded on its own
// (audit.DecodeStoredRow), so a malformed body is that row's Err and the
// reading goes on.
func (s *Store) ScanRows(ctx context.Context, tenantID string, fn func([]audit.StoredRow) error) error {
	rows, err := s.r.QueryContext(ctx, `SELECT id, body FROM events WHERE tenant_id = ? ORDER BY seq`, tenantID)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
	}
	defer rows.Close()
	batch := make([]audit.StoredRow, 0, scanBatch)
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
		}
		batch = append(batch, audit.DecodeStoredRow(id, tenantID, body))
		if len(batch) == scanBatch {
			if err := fn(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}
