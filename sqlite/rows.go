package sqlite

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/auditlog/auditlog/audit"
)

// scanAll reads every row of a query that selects (body, rev) with scan;
// what names the read in errors.
func scanAll[T any](rows *sql.Rows, scan func(interface{ Scan(...any) error }) (T, error), what string) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: %s", what)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: %s", what)
	}
	return out, nil
}

// updateIfUnchanged runs stmt, an UPDATE that sets rev = rev + 1 and ends
// with "AND rev = ?", with args and the revision rev, and returns the new
// revision: compare-and-set. When no row matched it returns what exists
// says (ENOTFOUND for a missing row), else ECONFLICT: the row changed.
func (s *Store) updateIfUnchanged(ctx context.Context, stmt string, args []any, rev, what string, exists func() error) (string, error) {
	n, err := strconv.ParseInt(rev, 10, 64)
	if err != nil {
		return "", audit.Errorf(audit.ECONFLICT, "%s: unknown revision %q", what, rev)
	}
	res, err := s.w.ExecContext(ctx, stmt, append(args, n)...)
	if err != nil {
		return "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: updating %s", what)
	}
	if affected, _ := res.RowsAffected(); affected == 0 {
		if err := exists(); err != nil {
			return "", err
		}
		return "", audit.Errorf(audit.ECONFLICT, "%s changed since it was read", what)
	}
	return strconv.FormatInt(n+1, 10), nil
}
