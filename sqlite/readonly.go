package sqlite

import (
	"context"
	"errors"
	"fmt"

	"github.com/auditlog/auditlog/audit"
	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// checkWritable takes the write lock once and gives it back, so that a
// database the service cannot write (the file or its directory read-only
// to the service's user, a read-only mount) stops Open with its path and
// the likely causes, rather than surfacing as "attempt to write a
// readonly database" at the first ingest. SQLite opens a file it may not
// write read-only without saying so, and reads work, so nothing else
// notices before a write.
//
// Taking the write lock is not enough (in WAL mode BEGIN IMMEDIATE
// succeeds on a file opened read-only): it rewrites the header's
// user_version with its own value, in a transaction it rolls back.
func (s *Store) checkWritable(ctx context.Context) error {
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock=immediate)
	if err != nil {
		return s.readOnly(audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: taking the write lock on %s", s.cfg.Path))
	}
	defer tx.Rollback()
	var v int64
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading %s", s.cfg.Path)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v)); err != nil {
		return s.readOnly(audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: writing %s", s.cfg.Path))
	}
	return nil
}

// readOnly names the database's path and what to check when err is
// SQLite's "attempt to write a readonly database"; any other error is
// returned as it is.
func (s *Store) readOnly(err error) error {
	var se *msqlite.Error
	if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_READONLY {
		return err
	}
	return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the database %s cannot be written: the service's user must be able to write the file, its -wal and -shm files and their directory, on a mount that is not read-only (it is audit.db under AUDITLOG_DATA_DIR)", s.cfg.Path)
}
