package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"

	"github.com/auditlog/auditlog/audit"
)

// Backup writes a consistent copy of the database at path into to (which
// must not exist), while a server may be writing it: VACUUM INTO reads
// one snapshot of the WAL database and writes a compact file of it. The
// copy is created owner-only, as the store's own file.
func Backup(ctx context.Context, path, to string) error {
	if _, err := os.Stat(path); err != nil {
		return audit.Wrap(audit.ENOTFOUND, err, "sqlite: no database at %s", path)
	}
	if _, err := os.Stat(to); !errors.Is(err, fs.ErrNotExist) {
		return audit.Errorf(audit.ECONFLICT, "sqlite: %s already exists: a backup is written into a new file", to)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: opening %s", path)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: copying %s into %s", path, to)
	}
	return os.Chmod(to, 0o600)
}
