// Package periodic is the Enterprise periodic export: windows of a
// tenant's events written as gzip NDJSON files with a chain of signed
// digests (audit.Digest), and the offline verification of such a chain
// from a bucket or from a downloaded directory.
package periodicexport

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/atomicfile"
)

// Dir is a bucket in a local directory: keys are paths below Root.
type Dir struct{ Root string }

// Put implements audit.ObjectBucket: written to a temporary file,
// synced, renamed, so a reader never sees half an object.
func (d Dir) Put(_ context.Context, key string, r io.Reader, _ int64) error {
	path, err := d.path(key)
	if err != nil {
		return err
	}
	_, err = atomicfile.Write(path, r, -1)
	return err
}

// Open implements audit.ObjectBucket.
func (d Dir) Open(_ context.Context, key string) (io.ReadCloser, error) {
	path, err := d.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, audit.Errorf(audit.ENOTFOUND, "no object %s", key)
	}
	return f, err
}

// List implements audit.ObjectBucket.
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
	sort.Strings(keys)
	return keys, err
}

// path maps a key to a path below Root, refusing any that would leave it.
func (d Dir) path(key string) (string, error) {
	p, err := atomicfile.Below(d.Root, key)
	if err != nil {
		return "", audit.Errorf(audit.EINVALID, "object key %q leaves the directory", key)
	}
	return p, nil
}
