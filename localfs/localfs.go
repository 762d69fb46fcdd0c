// Package localfs is blob.Store in a local directory: export job files
// under AUDITLOG_DATA_DIR, the periodic export of the embedded default,
// and a downloaded copy of a periodic export that `auditlog verify --dir`
// reads. Its sibling for buckets is package s3.
package localfs

import (
	"context"
	"errors"
	"github.com/auditlog/auditlog/audit/blob"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/atomicfile"
)

// Dir keeps objects as files below Root: a key is a path below it.
// Downloads go through the API, which checks the caller, so it has no
// direct URLs.
type Dir struct{ Root string }

// path maps a key to a path below Root, refusing any that would leave it.
func (d Dir) path(key string) (string, error) {
	if err := blob.CheckKey(key); err != nil {
		return "", err
	}
	p, err := atomicfile.Below(d.Root, key)
	if err != nil {
		return "", audit.Errorf(audit.EINVALID, "key %q leaves the directory", key)
	}
	return p, nil
}

// Put implements blob.Store: a temporary file, synced, then renamed into
// place.
func (d Dir) Put(_ context.Context, key string, r io.Reader, size int64) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if _, err := atomicfile.Write(p, r, size); err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "storing %s", key)
	}
	return nil
}

// Open implements blob.Store.
func (d Dir) Open(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, audit.Errorf(audit.ENOTFOUND, "no file %s", key)
	}
	if err != nil {
		return nil, audit.Wrap(audit.EINTERNAL, err, "opening %s", key)
	}
	return f, nil
}

// Delete implements blob.Store.
func (d Dir) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return audit.Wrap(audit.EINTERNAL, err, "deleting %s", key)
	}
	return nil
}

// List implements blob.Store. Dot files (a Put's temporary file) are
// not objects.
func (d Dir) List(_ context.Context, prefix string) ([]string, error) {
	var keys []string
	err := filepath.WalkDir(d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			return err
		}
		rel, _ := filepath.Rel(d.Root, p)
		if k := filepath.ToSlash(rel); strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, audit.Wrap(audit.EINTERNAL, err, "listing %s", prefix)
	}
	sort.Strings(keys)
	return keys, nil
}

// DownloadURL implements blob.Store: local files have none.
func (d Dir) DownloadURL(context.Context, string, string, time.Duration) (string, error) {
	return "", audit.Errorf(audit.ENOTSUPPORTED, "local files are served by the API")
}

// String describes the directory for logs.
func (d Dir) String() string { return "directory " + d.Root }
