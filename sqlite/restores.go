package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// CreateRestore implements audit.RestoreStore.
func (s *Store) CreateRestore(ctx context.Context, r audit.RestoreRecord) (audit.RestoreRecord, bool, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return r, false, audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding restore")
	}
	res, err := s.w.ExecContext(ctx, `INSERT INTO restores (tenant_id, request_id, delivered, next_attempt_at, created_at, rev, body)
		VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (tenant_id, request_id) DO NOTHING`,
		strings.ToLower(r.TenantID), r.RequestID, boolInt(r.DeliveredAt != nil), r.NextAttemptAt.UnixMilli(), r.CreatedAt.UnixMilli(), body)
	if err != nil {
		return r, false, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: creating restore")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		stored, err := s.GetRestore(ctx, r.TenantID, r.RequestID)
		return stored, false, err
	}
	r.Rev = "1"
	return r, true, nil
}

func scanRestore(row interface{ Scan(...any) error }) (audit.RestoreRecord, error) {
	var body []byte
	var rev int64
	if err := row.Scan(&body, &rev); err != nil {
		return audit.RestoreRecord{}, err
	}
	var r audit.RestoreRecord
	if err := json.Unmarshal(body, &r); err != nil {
		return r, audit.Wrap(audit.EINTERNAL, err, "sqlite: a stored restore does not decode")
	}
	r.Rev = strconv.FormatInt(rev, 10)
	return r, nil
}

// GetRestore implements audit.RestoreStore.
func (s *Store) GetRestore(ctx context.Context, tenantID, requestID string) (audit.RestoreRecord, error) {
	r, err := scanRestore(s.r.QueryRowContext(ctx, `SELECT body, rev FROM restores WHERE tenant_id = ? AND request_id = ?`, strings.ToLower(tenantID), requestID))
	if errors.Is(err, sql.ErrNoRows) {
		return r, audit.Errorf(audit.ENOTFOUND, "no restore request %s", requestID)
	}
	if err != nil && audit.ErrorCode(err) != audit.EINTERNAL {
		return r, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading restore")
	}
	return r, err
}

// DueRestores implements audit.RestoreStore.
func (s *Store) DueRestores(ctx context.Context, now time.Time, limit int) ([]audit.RestoreRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT body, rev FROM restores WHERE delivered = 0 AND next_attempt_at <= ? ORDER BY next_attempt_at, created_at LIMIT ?`,
		now.UnixMilli(), limit)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: listing due restores")
	}
	return scanAll(rows, scanRestore, "listing due restores")
}

// UpdateRestore implements audit.RestoreStore.
func (s *Store) UpdateRestore(ctx context.Context, r *audit.RestoreRecord) error {
	body, err := json.Marshal(r)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding restore")
	}
	rev, err := s.updateIfUnchanged(ctx, `UPDATE restores SET delivered = ?, next_attempt_at = ?, rev = rev + 1, body = ? WHERE tenant_id = ? AND request_id = ? AND rev = ?`,
		[]any{boolInt(r.DeliveredAt != nil), r.NextAttemptAt.UnixMilli(), body, strings.ToLower(r.TenantID), r.RequestID}, r.Rev, "restore "+r.RequestID,
		func() error { _, err := s.GetRestore(ctx, r.TenantID, r.RequestID); return err })
	if err != nil {
		return err
	}
	r.Rev = rev
	return nil
}
