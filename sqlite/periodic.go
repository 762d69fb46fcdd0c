package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// PeriodicState implements audit.PeriodicStore.
func (s *Store) PeriodicState(ctx context.Context, tenantID string) (audit.PeriodicState, error) {
	st := audit.PeriodicState{TenantID: strings.ToLower(tenantID)}
	var body []byte
	var rev int64
	err := s.r.QueryRowContext(ctx, `SELECT body, rev FROM periodic_state WHERE tenant_id = ?`, st.TenantID).Scan(&body, &rev)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: periodic state")
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return st, audit.Wrap(audit.EINTERNAL, err, "sqlite: a periodic state does not decode")
	}
	st.Rev = strconv.FormatInt(rev, 10)
	return st, nil
}

// PutPeriodicState implements audit.PeriodicStore.
func (s *Store) PutPeriodicState(ctx context.Context, st *audit.PeriodicState) error {
	st.TenantID = strings.ToLower(st.TenantID)
	body, err := json.Marshal(st)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding periodic state")
	}
	var res sql.Result
	if st.Rev == "" {
		res, err = s.w.ExecContext(ctx, `INSERT INTO periodic_state (tenant_id, rev, body) VALUES (?, 1, ?) ON CONFLICT DO NOTHING`, st.TenantID, body)
	} else {
		res, err = s.w.ExecContext(ctx, `UPDATE periodic_state SET rev = rev + 1, body = ? WHERE tenant_id = ? AND rev = ?`, body, st.TenantID, st.Rev)
	}
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: periodic state")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return audit.Errorf(audit.ECONFLICT, "the periodic state of tenant %s changed meanwhile", st.TenantID)
	}
	rev, _ := strconv.ParseInt(st.Rev, 10, 64)
	st.Rev = strconv.FormatInt(rev+1, 10)
	return nil
}

// PutPeriodicRecord implements audit.PeriodicStore.
func (s *Store) PutPeriodicRecord(ctx context.Context, r audit.PeriodicRecord) error {
	r.TenantID = strings.ToLower(r.TenantID)
	body, err := json.Marshal(r)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding periodic record")
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO periodic_records (tenant_id, window_start, late, body) VALUES (?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET body = excluded.body`, r.TenantID, r.WindowStart.UnixMilli(), r.Late, body)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: periodic record")
	}
	return nil
}

// PeriodicRecords implements audit.PeriodicStore.
func (s *Store) PeriodicRecords(ctx context.Context, tenantID, cursor string, limit int) ([]audit.PeriodicRecord, string, error) {
	start, late, err := audit.ParseRecordCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	q := `SELECT body FROM periodic_records WHERE tenant_id = ?`
	args := []any{strings.ToLower(tenantID)}
	if cursor != "" {
		q += ` AND (window_start < ? OR (window_start = ? AND late > ?))`
		args = append(args, start, start, late)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY window_start DESC, late ASC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: periodic records")
	}
	defer rows.Close()
	var out []audit.PeriodicRecord
	for rows.Next() {
		var body []byte
		var r audit.PeriodicRecord
		if err := rows.Scan(&body); err != nil {
			return nil, "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: periodic records")
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, "", audit.Wrap(audit.EINTERNAL, err, "sqlite: a periodic record does not decode")
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: periodic records")
	}
	return out, audit.RecordCursor(out, limit), nil
}
