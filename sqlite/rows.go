package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/auditlog/auditlog/audit"
)

// The small revisioned tables (export_jobs, restores, periodic_state,
// keys) keep each entity as a JSON body with an integer revision, and
// change it by compare-and-set. These helpers are the one way they do it:
// scanRevisioned and getRevisioned read, insertOnce creates,
// updateIfUnchanged changes.

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

// scanRevisioned reads a row of (body, rev): the JSON body into a T, and
// the revision, which setRev stores on it.
func scanRevisioned[T any](row scanner, setRev func(*T, string), what string) (T, error) {
	var v T
	var body []byte
	var rev int64
	if err := row.Scan(&body, &rev); err != nil {
		return v, err
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return v, audit.Wrap(audit.EINTERNAL, err, "sqlite: a stored %s does not decode", what)
	}
	setRev(&v, strconv.FormatInt(rev, 10))
	return v, nil
}

// getRevisioned reads the one row of query (body, rev), or found false
// when there is none.
func getRevisioned[T any](ctx context.Context, s *Store, setRev func(*T, string), what, query string, args ...any) (v T, found bool, err error) {
	v, err = scanRevisioned(s.r.QueryRowContext(ctx, query, args...), setRev, what)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return v, false, nil
	case err != nil && audit.ErrorCode(err) != audit.EINTERNAL:
		return v, false, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading %s", what)
	}
	return v, err == nil, err
}

// insertOnce runs stmt, an INSERT … ON CONFLICT DO NOTHING, and reports
// whether it inserted the row (false: one with that key exists).
func (s *Store) insertOnce(ctx context.Context, what, stmt string, args ...any) (bool, error) {
	res, err := s.w.ExecContext(ctx, stmt, args...)
	if err != nil {
		return false, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: creating %s", what)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// scanAll reads every row of a query that selects (body, rev) with scan;
// what names the read in errors.
func scanAll[T any](rows *sql.Rows, scan func(scanner) (T, error), what string) ([]T, error) {
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
// (nil: not asked) says (ENOTFOUND for a missing row), else ECONFLICT:
// the row changed.
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
		if exists == nil {
			return "", audit.Errorf(audit.ECONFLICT, "%s changed since it was read", what)
		}
		if err := exists(); err != nil {
			return "", err
		}
		return "", audit.Errorf(audit.ECONFLICT, "%s changed since it was read", what)
	}
	return strconv.FormatInt(n+1, 10), nil
}
