package sqlite

import (
	"context"
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
