package sqlite

import (
	"context"
	"encoding/json"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
)

func setStateRev(st *periodic.State, rev string) { st.Rev = rev }

// PeriodicState implements periodic.Store.
func (s *Store) PeriodicState(ctx context.Context, tenantID string) (periodic.State, error) {
	st, found, err := getRevisioned(ctx, s, setStateRev, "the periodic state of "+tenantID,
		`SELECT body, rev FROM periodic_state WHERE tenant_id = ?`, tenantID)
	if err != nil || !found {
		return periodic.State{TenantID: tenantID}, err
	}
	return st, nil
}

// PutPeriodicState implements periodic.Store.
func (s *Store) PutPeriodicState(ctx context.Context, st *periodic.State) error {
	what := "the periodic state of tenant " + st.TenantID
	body, err := json.Marshal(st)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding %s", what)
	}
	if st.Rev == "" {
		created, err := s.insertOnce(ctx, what, `INSERT INTO periodic_state (tenant_id, rev, body) VALUES (?, 1, ?) ON CONFLICT DO NOTHING`, st.TenantID, body)
		if err != nil {
			return err
		}
		if !created {
			return audit.Errorf(audit.ECONFLICT, "%s changed meanwhile", what)
		}
		st.Rev = "1"
		return nil
	}
	rev, err := s.updateIfUnchanged(ctx, `UPDATE periodic_state SET rev = rev + 1, body = ? WHERE tenant_id = ? AND rev = ?`,
		[]any{body, st.TenantID}, st.Rev, what, nil)
	if err != nil {
		return err
	}
	st.Rev = rev
	return nil
}

// PutPeriodicRecord implements periodic.Store.
func (s *Store) PutPeriodicRecord(ctx context.Context, r periodic.Record) error {
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

// PeriodicRecords implements periodic.Store.
func (s *Store) PeriodicRecords(ctx context.Context, tenantID, cursor string, limit int) ([]periodic.Record, string, error) {
	start, late, err := periodic.ParseRecordCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	q := `SELECT body FROM periodic_records WHERE tenant_id = ?`
	args := []any{tenantID}
	if cursor != "" {
		q += ` AND (window_start < ? OR (window_start = ? AND late > ?))`
		args = append(args, start, start, late)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY window_start DESC, late ASC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: periodic records")
	}
	defer rows.Close()
	var out []periodic.Record
	for rows.Next() {
		var body []byte
		var r periodic.Record
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
	return out, periodic.RecordCursor(out, limit), nil
}
