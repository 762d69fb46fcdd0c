package s3

import (
	"context"
	"io"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"

	"github.com/auditlog/auditlog/audit"
)

// Bucket is the same bucket seen as audit.ObjectBucket: the periodic
// export's data files and digests, stored as they are (a .ndjson.gz is
// an application/gzip object, not a transparently decoded one), so that
// what a customer downloads is byte for byte what the digests vouch for.
type Bucket struct{ f *Files }

// Objects returns the bucket of f as an audit.ObjectBucket.
func (f *Files) Objects() *Bucket { return &Bucket{f: f} }

// Put implements audit.ObjectBucket.
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	ct := "application/octet-stream"
	switch {
	case strings.HasSuffix(key, ".gz"):
		ct = "application/gzip"
	case strings.HasSuffix(key, ".json"):
		ct = "application/json"
	case strings.HasSuffix(key, ".pem"):
		ct = "application/x-pem-file"
	}
	_, err := b.f.c.PutObject(ctx, b.f.cfg.Bucket, b.f.key(key), r, size, minio.PutObjectOptions{ContentType: ct, PartSize: 16 << 20, DisableContentSha256: true})
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "s3: storing %s", key)
	}
	return nil
}

// Open implements audit.ObjectBucket.
func (b *Bucket) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	return b.f.Open(ctx, key)
}

// List implements audit.ObjectBucket: every key under prefix (without the
// configured prefix of the bucket), sorted.
func (b *Bucket) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	for o := range b.f.c.ListObjects(ctx, b.f.cfg.Bucket, minio.ListObjectsOptions{Prefix: b.f.key(prefix), Recursive: true}) {
		if o.Err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, o.Err, "s3: listing %s", prefix)
		}
		keys = append(keys, strings.TrimPrefix(o.Key, b.f.cfg.Prefix))
	}
	sort.Strings(keys)
	return keys, nil
}
