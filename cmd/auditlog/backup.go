package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/auditlog/auditlog/sqlite"
)

const backupUsage = `Usage: auditlog backup --to <dir>

Copies the embedded store's data directory (AUDITLOG_DATA_DIR) into <dir>, a
new or empty directory, while serve runs: the database as one consistent
snapshot (SQLite's VACUUM INTO), then every other file (the key files that
are there, the development secret, export files, outboxes). To restore: stop
serve, and start it with AUDITLOG_DATA_DIR=<dir> (or the directory copied
back in place). Key files kept outside the data directory are not copied:
back them up apart, as docs/operations.md says. Elasticsearch is backed up
with the cluster's snapshot API.
`

// runBackup is auditlog backup (issue 57: a backup and a restore that a
// test carries out as the documentation says).
func runBackup(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var dataDir, to string
	b := newBinder("auditlog backup", getenv, stderr)
	b.str(&dataDir, "data-dir", "AUDITLOG_DATA_DIR", "./data", "data directory of the embedded store to back up")
	b.fs.StringVar(&to, "to", "", "directory to write the backup into, new or empty (required)")
	b.describe(stdout, backupUsage)
	if err := b.parse(args); err != nil {
		return err
	}
	if to == "" {
		return errors.New("--to is missing: the directory to write the backup into")
	}
	if entries, err := os.ReadDir(to); err == nil && len(entries) > 0 {
		return fmt.Errorf("--to %s is not empty: a backup goes into a new or empty directory", to)
	}
	absData, _ := filepath.Abs(dataDir)
	absTo, _ := filepath.Abs(to)
	if absTo == absData || strings.HasPrefix(absTo, absData+string(filepath.Separator)) {
		return fmt.Errorf("--to %s is inside the data directory %s", to, dataDir)
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	if err := sqlite.Backup(context.Background(), filepath.Join(dataDir, "audit.db"), filepath.Join(to, "audit.db")); err != nil {
		return err
	}
	n, err := copyTree(dataDir, to)
	if err != nil {
		return fmt.Errorf("copying the data directory's files: %w", err)
	}
	fmt.Fprintf(stdout, "backed up %s into %s: the database and %d other files\n", dataDir, to, n)
	return nil
}

// copyTree copies every regular file under from into to, but the live
// database's (audit.db and its -wal and -shm), owner-only, and returns
// how many it copied.
func copyTree(from, to string) (int, error) {
	n := 0
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		switch {
		case rel == ".":
			return nil
		case d.IsDir():
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		case !d.Type().IsRegular() || rel == "audit.db" || rel == "audit.db-wal" || rel == "audit.db-shm":
			return nil
		}
		n++
		return copyFile(path, filepath.Join(to, rel))
	})
	return n, err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return errors.Join(out.Sync(), out.Close())
}
