package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"github.com/auditlog/auditlog/audit/vlog"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// CosignedCheckpoint implements vlog.CosignStore.
func (s *Store) CosignedCheckpoint(ctx context.Context, tenantID string) (vlog.CosignedCheckpoint, error) {
	var c vlog.CosignedCheckpoint
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT size, note, at FROM tlog_cosigned WHERE tenant_id = ?`, tenantID).Scan(&c.Size, &c.Note, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return vlog.CosignedCheckpoint{}, nil
	case err != nil:
		return c, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading the cosigned checkpoint of %s", tenantID)
	}
	c.At = time.UnixMilli(at).UTC()
	return c, nil
}

// SaveCosigned implements vlog.CosignStore: the stored row is read and
// replaced in one write transaction.
func (s *Store) SaveCosigned(ctx context.Context, tenantID string, c vlog.CosignedCheckpoint) error {
	tx, err := s.w.BeginTx(ctx, nil) // the one writer connection: no other write in between
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: saving the cosigned checkpoint of %s", tenantID)
	}
	defer func() { _ = tx.Rollback() }()
	var old vlog.CosignedCheckpoint
	err = tx.QueryRowContext(ctx, `SELECT size, note FROM tlog_cosigned WHERE tenant_id = ?`, tenantID).Scan(&old.Size, &old.Note)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading the cosigned checkpoint of %s", tenantID)
	}
	if !c.Replaces(old) {
		return nil
	}
	if _, err = tx.ExecContext(ctx, `INSERT INTO tlog_cosigned (tenant_id, size, note, at) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id) DO UPDATE SET size = excluded.size, note = excluded.note, at = excluded.at`, tenantID, c.Size, c.Note, c.At.UnixMilli()); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: saving the cosigned checkpoint of %s", tenantID)
	}
	if err := tx.Commit(); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: saving the cosigned checkpoint of %s", tenantID)
	}
	return nil
}
