// Package s3 is blob.Store in an S3-compatible bucket (AWS S3, MinIO,
// versitygw, Ceph …) through minio-go: export job files, downloaded with
// presigned URLs so that large files never pass through the API process,
// and the periodic export. Its sibling for a local directory is localfs.
package s3

import (
	"context"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/blob"
	"io"
	"mime"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/auditlog/auditlog/audit"
)

// Config is the S3 section of the configuration.
type Config struct {
	// Endpoint is the server's URL, e.g. https://s3.eu-west-1.amazonaws.com
	// or http://127.0.0.1:9000.
	Endpoint  string
	Region    string
	Bucket    string
	AccessKey string
	SecretKey string
	// Prefix is prepended to every key (e.g. "auditlog/").
	Prefix string
	// PathStyle addresses the bucket in the path (MinIO, versitygw) rather
	// than in the host name.
	PathStyle bool
	// CreateBucket creates the bucket at start when it is missing.
	CreateBucket bool
}

// Files implements blob.Store on a bucket.
type Files struct {
	c   *minio.Client
	cfg Config
}

// Open connects to the bucket; with CreateBucket it creates a missing one.
func Open(ctx context.Context, cfg Config) (*Files, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, audit.Errorf(audit.EINVALID, "s3: endpoint %q must be an http(s) URL", cfg.Endpoint)
	}
	if cfg.Bucket == "" {
		return nil, audit.Errorf(audit.EINVALID, "s3: no bucket configured")
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	lookup := minio.BucketLookupDNS
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Region:       cfg.Region,
		BucketLookup: lookup,
	})
	if err != nil {
		return nil, audit.Wrap(audit.EINVALID, err, "s3: bad configuration")
	}
	f := &Files{c: c, cfg: cfg}
	ok, err := c.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "s3: checking bucket %s", cfg.Bucket)
	}
	if !ok {
		if !cfg.CreateBucket {
			return nil, audit.Errorf(audit.EINVALID, "s3: bucket %s does not exist", cfg.Bucket)
		}
		if err := c.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "s3: creating bucket %s", cfg.Bucket)
		}
	}
	return f, nil
}

// Ping checks that the bucket answers (for /readyz).
func (f *Files) Ping(ctx context.Context) error {
	if _, err := f.c.BucketExists(ctx, f.cfg.Bucket); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "s3 unavailable")
	}
	return nil
}

func (f *Files) key(k string) string { return f.cfg.Prefix + k }

// Each method of Files checks the key with blob.CheckKey first.

// Put implements blob.Store. An export job's file (.csv.gz) is stored
// with Content-Encoding gzip, so a browser following the presigned URL
// saves plain CSV; any other object is stored as it is (a periodic
// export's .ndjson.gz is an application/gzip object, not a transparently
// decoded one), so that what a customer downloads is byte for byte what
// the digests vouch for.
func (f *Files) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	opts := minio.PutObjectOptions{ContentType: contentType(key), PartSize: 16 << 20,
		// A plain signed PUT, not the aws-chunked streaming upload minio-go
		// uses over http: some servers keep "aws-chunked" in the stored
		// Content-Encoding, and clients then cannot decode the file.
		DisableContentSha256: true,
	}
	if strings.HasSuffix(key, ".csv.gz") {
		opts.ContentEncoding = "gzip"
	}
	if size >= 0 {
		r = &exactly{r: r, left: size}
	}
	if _, err := f.c.PutObject(ctx, f.cfg.Bucket, f.key(key), r, size, opts); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "s3: storing %s", key)
	}
	return nil
}

// exactly reads r, which must hold exactly left bytes: minio-go reads
// size bytes and would store a longer source cut short, so the read that
// reaches the end looks one byte further and, when there is more, returns
// nothing but the error (minio-go reads with io.ReadFull, which drops an
// error that comes with the last bytes).
type exactly struct {
	r    io.Reader
	left int64
}

func (e *exactly) Read(p []byte) (int, error) {
	if e.left == 0 {
		return 0, e.end()
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if e.left == 0 && (err == nil || err == io.EOF) {
		if err := e.end(); err != io.EOF {
			return 0, err
		}
		return n, io.EOF
	}
	return n, err
}

func (e *exactly) end() error {
	var b [1]byte
	if n, _ := io.ReadFull(e.r, b[:]); n > 0 {
		return errors.New("the source is longer than its stated size")
	}
	return io.EOF
}

func contentType(key string) string {
	switch {
	case strings.HasSuffix(key, ".csv.gz"):
		return "text/csv; charset=utf-8"
	case strings.HasSuffix(key, ".gz"):
		return "application/gzip"
	case strings.HasSuffix(key, ".json"):
		return "application/json"
	case strings.HasSuffix(key, ".pem"):
		return "application/x-pem-file"
	}
	return "application/octet-stream"
}

// Open implements blob.Store.
func (f *Files) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := blob.CheckKey(key); err != nil {
		return nil, err
	}
	o, err := f.c.GetObject(ctx, f.cfg.Bucket, f.key(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "s3: reading %s", key)
	}
	if _, err := o.Stat(); err != nil {
		o.Close()
		if minio.ToErrorResponse(err).Code == "NoSuchKey" {
			return nil, audit.Errorf(audit.ENOTFOUND, "no file %s", key)
		}
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "s3: reading %s", key)
	}
	return o, nil
}

// Delete implements blob.Store.
func (f *Files) Delete(ctx context.Context, key string) error {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	err := f.c.RemoveObject(ctx, f.cfg.Bucket, f.key(key), minio.RemoveObjectOptions{})
	if err != nil && minio.ToErrorResponse(err).Code != "NoSuchKey" {
		return audit.Wrap(audit.EUNAVAILABLE, err, "s3: deleting %s", key)
	}
	return nil
}

// DownloadURL implements blob.Store with a presigned GET that
// names the attachment.
func (f *Files) DownloadURL(ctx context.Context, key, filename string, ttl time.Duration) (string, error) {
	if err := blob.CheckKey(key); err != nil {
		return "", err
	}
	params := url.Values{}
	params.Set("response-content-disposition", mime.FormatMediaType("attachment", map[string]string{"filename": strings.ReplaceAll(filename, "/", "_")}))
	u, err := f.c.PresignedGetObject(ctx, f.cfg.Bucket, f.key(key), ttl, params)
	if err != nil {
		return "", audit.Wrap(audit.EINTERNAL, err, "s3: presigning %s", key)
	}
	return u.String(), nil
}

// List implements blob.Store: every key under prefix (without the
// configured prefix of the bucket), sorted.
func (f *Files) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	for o := range f.c.ListObjects(ctx, f.cfg.Bucket, minio.ListObjectsOptions{Prefix: f.key(prefix), Recursive: true}) {
		if o.Err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, o.Err, "s3: listing %s", prefix)
		}
		keys = append(keys, strings.TrimPrefix(o.Key, f.cfg.Prefix))
	}
	sort.Strings(keys)
	return keys, nil
}

// String describes the bucket for logs.
func (f *Files) String() string { return fmt.Sprintf("s3 %s/%s", f.cfg.Endpoint, f.cfg.Bucket) }
