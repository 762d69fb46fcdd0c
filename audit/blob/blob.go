package blob

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Store is where files go: export job files, and the periodic export's
// data files, digests and keys. Two packages implement it: localfs (a
// directory: the embedded default, or a copy a customer downloaded) and
// s3 (an S3-compatible bucket). Keys are slash-separated paths; a key
// that would leave the store (.., an absolute path) is EINVALID.
type Store interface {
	// Put stores size bytes of r under key, durably and whole (a reader
	// never sees half an object), replacing any object of that key. A
	// source of another length than size is an error and stores nothing.
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Open reads the object of key; ENOTFOUND when there is none.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes the object of key; a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// List returns every key under prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
	// DownloadURL returns a URL that downloads the object directly, valid
	// for ttl, with filename as its attachment name, or ENOTSUPPORTED when
	// the store serves objects only through Open.
	DownloadURL(ctx context.Context, key, filename string, ttl time.Duration) (string, error)
}

// CheckKey returns EINVALID for a key no Store accepts: empty, with a
// backslash or a NUL, absolute, or with an empty, "." or ".." segment.
func CheckKey(key string) error {
	if key == "" || strings.ContainsAny(key, "\\\x00") || strings.HasPrefix(key, "/") {
		return audit.Errorf(audit.EINVALID, "bad object key %q", key)
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return audit.Errorf(audit.EINVALID, "bad object key %q", key)
		}
	}
	return nil
}
