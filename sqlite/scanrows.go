package sqlite

import (
	"context"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// ScanRows implements audit.RowScanner: every row of the tenant's events,
// in the order they were written, each decoded on its own
// (audit.DecodeStoredRow), so a malformed body is that row's Err and the
// reading goes on; a row whose index columns differ from what its body
// implies has them in Misindexed (indexColumns).
func (s *Store) ScanRows(ctx context.Context, tenantID string, fn func([]audit.StoredRow) error) error {
	rows, err := s.r.QueryContext(ctx, `SELECT `+strings.Join(indexColumns, ", ")+`, body FROM events WHERE tenant_id = ? ORDER BY seq`, tenantID)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
	}
	defer rows.Close()
	batch := make([]audit.StoredRow, 0, scanBatch)
	cols := make([]any, len(indexColumns))
	dest := make([]any, len(indexColumns)+1)
	for i := range cols {
		dest[i] = &cols[i]
	}
	for rows.Next() {
		var body []byte
		dest[len(cols)] = &body
		if err := rows.Scan(dest...); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
		}
		id, _ := normalCell(cols[0]).(string)
		row := audit.DecodeStoredRow(id, tenantID, body)
		if row.Err == nil {
			row.Misindexed = misindexed(&row.Event, cols)
		}
		batch = append(batch, row)
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
