package sqlite

import (
	"context"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/restorejob"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// CreateRestore implements restorejob.Store.
func (s *Store) CreateRestore(ctx context.Context, r restorejob.Record) (restorejob.Record, bool, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return r, false, audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding restore")
	}
	created, err := s.insertOnce(ctx, "restore", `INSERT INTO restores (tenant_id, request_id, delivered, next_attempt_at, created_at, rev, body)
		VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (tenant_id, request_id) DO NOTHING`,
		r.TenantID, r.RequestID, boolInt(r.DeliveredAt != nil), r.NextAttemptAt.UnixMilli(), r.CreatedAt.UnixMilli(), body)
	if err != nil {
		return r, false, err
	}
	if !created {
		stored, err := s.GetRestore(ctx, r.TenantID, r.RequestID)
		return stored, false, err
	}
	r.Rev = "1"
	return r, true, nil
}

func setRestoreRev(r *restorejob.Record, rev string) { r.Rev = rev }

func scanRestore(row scanner) (restorejob.Record, error) {
	return scanRevisioned(row, setRestoreRev, "restore")
}

// GetRestore implements restorejob.Store.
func (s *Store) GetRestore(ctx context.Context, tenantID, requestID string) (restorejob.Record, error) {
	r, found, err := getRevisioned(ctx, s, setRestoreRev, "restore "+requestID,
		`SELECT body, rev FROM restores WHERE tenant_id = ? AND request_id = ?`, tenantID, requestID)
	if err == nil && !found {
		err = audit.Errorf(audit.ENOTFOUND, "no restore request %s", requestID)
	}
	return r, err
}

// DueRestores implements restorejob.Store.
func (s *Store) DueRestores(ctx context.Context, now time.Time, limit int) ([]restorejob.Record, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT body, rev FROM restores WHERE delivered = 0 AND next_attempt_at <= ? ORDER BY next_attempt_at, created_at LIMIT ?`,
		now.UnixMilli(), limit)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: listing due restores")
	}
	return scanAll(rows, scanRestore, "listing due restores")
}

// UpdateRestore implements restorejob.Store.
func (s *Store) UpdateRestore(ctx context.Context, r *restorejob.Record) error {
	body, err := json.Marshal(r)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding restore")
	}
	rev, err := s.updateIfUnchanged(ctx, `UPDATE restores SET delivered = ?, next_attempt_at = ?, rev = rev + 1, body = ? WHERE tenant_id = ? AND request_id = ? AND rev = ?`,
		[]any{boolInt(r.DeliveredAt != nil), r.NextAttemptAt.UnixMilli(), body, r.TenantID, r.RequestID}, r.Rev, "restore "+r.RequestID,
		func() error { _, err := s.GetRestore(ctx, r.TenantID, r.RequestID); return err })
	if err != nil {
		return err
	}
	r.Rev = rev
	return nil
}
