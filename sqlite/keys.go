package sqlite

import (
	"context"

	"github.com/auditlog/auditlog/audit"
)

// KeyRows implements audit.KeyRows: the names in the keys table, which
// versions before issue 53 read keys from and this one never does.
func (s *Store) KeyRows(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name FROM keys ORDER BY name`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading the keys table")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading the keys table")
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading the keys table")
	}
	return out, nil
}
