package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Key implements audit.KeyStore: the first value stored under name wins.
func (s *Store) Key(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	if _, err := s.insertOnce(ctx, "key "+name, `INSERT INTO keys (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		name, fresh, time.Now().UnixMilli()); err != nil {
		return nil, err
	}
	var v []byte
	if err := s.w.QueryRowContext(ctx, `SELECT value FROM keys WHERE name = ?`, name).Scan(&v); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading key %s", name)
	}
	return v, nil
}

// StoredKey implements audit.KeyStore.
func (s *Store) StoredKey(ctx context.Context, name string) ([]byte, bool, error) {
	var v []byte
	err := s.w.QueryRowContext(ctx, `SELECT value FROM keys WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading key %s", name)
	}
	return v, true, nil
}

// DeleteKey implements audit.KeyStore.
func (s *Store) DeleteKey(ctx context.Context, name string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM keys WHERE name = ?`, name); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: deleting key %s", name)
	}
	return nil
}
