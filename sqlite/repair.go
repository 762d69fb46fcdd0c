package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// RepairIndex implements vlog.IndexRepairer in one transaction: each
// event's columns and text index row are written again from its body, as
// the insert writes them (indexValues, searchText); with aggregates, the
// tenant's hourly rollups are counted again from every stored body.
func (s *Store) RepairIndex(ctx context.Context, tenantID string, eventIDs []string, aggregates bool) (int, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
	}
	defer tx.Rollback()
	set := make([]string, len(indexColumns))
	for i, c := range indexColumns {
		set[i] = c + " = ?"
	}
	no, err := tenantNumber(ctx, tx, tenantID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range eventIDs {
		var seq int64
		var k keyedRow
		err := tx.QueryRowContext(ctx, `SELECT seq, `+keyedBody+` FROM events WHERE tenant_no = ? AND id = ?`, no, idKey(id)).Scan(append([]any{&seq}, k.dest()...)...)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return n, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
		}
		row := k.decode(tenantID)
		if row.Err != nil {
			continue // a malformed body is nothing to index from
		}
		e := &row.Event
		if _, err := tx.ExecContext(ctx, `UPDATE events SET `+strings.Join(set, ", ")+` WHERE seq = ?`, append(indexValues(e, no), seq)...); err != nil {
			return n, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM events_fts WHERE rowid = ?`, seq); err != nil {
			return n, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO events_fts (rowid, search, reason) VALUES (?, ?, ?)`, seq, searchText(e, no), reasonText(e, no)); err != nil {
			return n, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
		}
		n++
	}
	if aggregates && !s.cfg.SkipRollup {
		if err := recountRollups(ctx, tx, tenantID); err != nil {
			return n, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
	}
	return n, nil
}

// recountRollups replaces the tenant's rollups with the counts of its
// stored events, counted as ScanRows counts them (rollup.addRow).
func recountRollups(ctx context.Context, tx *sql.Tx, tenantID string) error {
	for _, q := range []string{`DELETE FROM event_rollup WHERE tenant_id = ?`, `DELETE FROM event_rollup_actor WHERE tenant_id = ?`} {
		if _, err := tx.ExecContext(ctx, q, tenantID); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+indexedRowColumns+` FROM events WHERE `+tenantIs, tenantID)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
	}
	counts := rollup{}
	r := newIndexedRow()
	for rows.Next() {
		row, err := r.scan(rows, tenantID)
		if err != nil {
			rows.Close()
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
		}
		counts.addRow(&row, r.cols, tenantID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: repair")
	}
	return counts.flush(ctx, tx)
}
