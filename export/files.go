package export

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/atomicfile"
)

// LocalFiles keeps export files in a directory (the default: under
// AUDITLOG_DATA_DIR). Downloads go through the API, which checks the
// caller, so it has no direct URLs.
type LocalFiles struct{ Dir string }

func (l LocalFiles) path(key string) (string, error) {
	p, err := atomicfile.Below(l.Dir, key)
	if err != nil {
		return "", audit.Errorf(audit.EINVALID, "bad file key %q", key)
	}
	return p, nil
}

// Put implements audit.ExportFiles: a temporary file, fsynced, then
// renamed into place.
func (l LocalFiles) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if _, err := atomicfile.Write(p, r, size); err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "storing export file %s", key)
	}
	return nil
}

// Open implements audit.ExportFiles.
func (l LocalFiles) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, audit.Errorf(audit.ENOTFOUND, "no export file %s", key)
	}
	if err != nil {
		return nil, audit.Wrap(audit.EINTERNAL, err, "opening export file %s", key)
	}
	return f, nil
}

// Delete implements audit.ExportFiles.
func (l LocalFiles) Delete(ctx context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return audit.Wrap(audit.EINTERNAL, err, "deleting export file %s", key)
	}
	return nil
}

// DownloadURL implements audit.ExportFiles: local files have none.
func (l LocalFiles) DownloadURL(context.Context, string, string, time.Duration) (string, error) {
	return "", audit.Errorf(audit.ENOTSUPPORTED, "local export files are served by the API")
}
