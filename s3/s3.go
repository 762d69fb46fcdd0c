// Package s3 keeps export files in an S3-compatible bucket (AWS S3, MinIO,
// versitygw, Ceph …) through minio-go. Downloads then use presigned URLs,
// so large files never pass through the API process.
package s3

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/url"
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

// Files implements audit.ExportFiles on a bucket.
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

// Put implements audit.ExportFiles. The object is gzip-compressed CSV:
// it is stored with Content-Encoding gzip, so a browser following the
// presigned URL saves plain CSV.
func (f *Files) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	_, err := f.c.PutObject(ctx, f.cfg.Bucket, f.key(key), r, size, minio.PutObjectOptions{
		ContentType: "text/csv; charset=utf-8", ContentEncoding: "gzip", PartSize: 16 << 20,
		// A plain signed PUT, not the aws-chunked streaming upload minio-go
		// uses over http: some servers keep "aws-chunked" in the stored
		// Content-Encoding, and clients then cannot decode the file.
		DisableContentSha256: true,
	})
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "s3: storing %s", key)
	}
	return nil
}

// Open implements audit.ExportFiles.
func (f *Files) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	o, err := f.c.GetObject(ctx, f.cfg.Bucket, f.key(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "s3: reading %s", key)
	}
	if _, err := o.Stat(); err != nil {
		o.Close()
		if minio.ToErrorResponse(err).Code == "NoSuchKey" {
			return nil, audit.Errorf(audit.ENOTFOUND, "no export file %s", key)
		}
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "s3: reading %s", key)
	}
	return o, nil
}

// Delete implements audit.ExportFiles.
func (f *Files) Delete(ctx context.Context, key string) error {
	err := f.c.RemoveObject(ctx, f.cfg.Bucket, f.key(key), minio.RemoveObjectOptions{})
	if err != nil && minio.ToErrorResponse(err).Code != "NoSuchKey" {
		return audit.Wrap(audit.EUNAVAILABLE, err, "s3: deleting %s", key)
	}
	return nil
}

// DownloadURL implements audit.ExportFiles with a presigned GET that
// names the attachment.
func (f *Files) DownloadURL(ctx context.Context, key, filename string, ttl time.Duration) (string, error) {
	params := url.Values{}
	params.Set("response-content-disposition", mime.FormatMediaType("attachment", map[string]string{"filename": strings.ReplaceAll(filename, "/", "_")}))
	u, err := f.c.PresignedGetObject(ctx, f.cfg.Bucket, f.key(key), ttl, params)
	if err != nil {
		return "", audit.Wrap(audit.EINTERNAL, err, "s3: presigning %s", key)
	}
	return u.String(), nil
}

// String describes the bucket for logs.
func (f *Files) String() string { return fmt.Sprintf("s3 %s/%s", f.cfg.Endpoint, f.cfg.Bucket) }
