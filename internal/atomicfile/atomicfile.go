// Package atomicfile keeps files under keys in a directory: Below maps a
// key to its path, refusing any that would leave the directory, and Write
// writes a file so that a reader sees it whole or not at all (into a
// temporary file beside it, synced, then renamed over the name). Export
// files, periodic export objects in a directory, the restore outbox and
// the e-mail outbox all use it.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Below returns the path of key (slash-separated) under root. A key that
// is empty, not clean ("a//b", "a/./b", a trailing slash) or holds ".."
// anywhere is refused with ErrBadKey, so no key reaches outside root.
func Below(root, key string) (string, error) {
	if key == "" || filepath.Clean("/"+key) != "/"+key || strings.Contains(key, "..") {
		return "", fmt.Errorf("%w: %q", ErrBadKey, key)
	}
	return filepath.Join(root, filepath.FromSlash(key)), nil
}

// ErrBadKey is the error of a key Below refuses.
var ErrBadKey = errors.New("not a key below the directory")

// Write copies r into path (creating its directory) and returns the
// number of bytes written. With size >= 0, a source of another length is
// an error and nothing is written.
func Write(path string, r io.Reader, size int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	n, err := io.Copy(f, r)
	if err == nil && size >= 0 && n != size {
		err = fmt.Errorf("wrote %d bytes, want %d", n, size)
	}
	if err := errors.Join(err, f.Sync(), f.Close()); err != nil {
		return n, err
	}
	return n, os.Rename(f.Name(), path)
}
