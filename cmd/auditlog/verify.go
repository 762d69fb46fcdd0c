package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/periodic"
	"github.com/auditlog/auditlog/s3"
)

// runVerify checks a tenant's periodic export offline, from a directory
// (a copy downloaded from the bucket), with nothing but the public keys.
// It prints one line per valid digest and per problem, then a summary,
// and fails (exit 1) on any problem.
func runVerify(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var dir, tenant, prefix, keyDir, bucket string
	var opts periodic.Options
	var keyFiles multiFlag
	var c Config
	b := newBinder("auditlog verify", getenv, stderr)
	b.fs.StringVar(&dir, "dir", "", "directory holding the export (a downloaded copy: the bucket's objects under their keys)")
	b.fs.StringVar(&bucket, "bucket", "", "or the S3 bucket holding it, on the AUDITLOG_S3_* server")
	b.fs.StringVar(&tenant, "tenant", "", "the tenant's id")
	b.fs.StringVar(&prefix, "prefix", "auditlog", "the key prefix the export was written under (AUDITLOG_PERIODIC_PREFIX)")
	b.fs.Var(&keyFiles, "key", "PEM file of an Ed25519 public key (repeatable: one per key id of the chain)")
	b.fs.StringVar(&keyDir, "keys", "", "directory of PEM public keys (every *.pem in it)")
	b.fs.BoolVar(&opts.Deep, "deep", false, "also decompress every data file and check its content's SHA-256 and line count (an intact stored object already proves them)")
	b.s3(&c.Export)
	if wantsHelp(args) {
		b.fs.SetOutput(stdout)
	}
	if err := b.parse(args); err != nil {
		return err
	}
	if (dir == "") == (bucket == "") || !audit.ValidUUID(tenant) {
		return fmt.Errorf("--tenant (a UUID) and one of --dir or --bucket are required")
	}
	if keyDir != "" {
		found, _ := filepath.Glob(filepath.Join(keyDir, "*.pem"))
		keyFiles = append(keyFiles, found...)
	}
	keys, err := publicKeys(keyFiles)
	if err != nil {
		return err
	}
	var from audit.ObjectBucket = periodic.Dir{Root: dir}
	if bucket != "" {
		ec := c.Export
		f, err := s3.Open(context.Background(), s3.Config{Endpoint: ec.S3Endpoint, Region: ec.S3Region, Bucket: bucket, AccessKey: ec.S3AccessKey,
			SecretKey: ec.S3SecretKey, PathStyle: ec.S3PathStyle})
		if err != nil {
			return fmt.Errorf("--bucket %s: %w", bucket, err)
		}
		from = f.Objects()
	}
	rep, err := periodic.Verify(context.Background(), from, strings.Trim(prefix, "/"), strings.ToLower(tenant), keys, opts,
		func(line string) { fmt.Fprintln(stdout, line) })
	if err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("verification failed: %d problems", rep.Problems)
	}
	return nil
}

// publicKeys reads Ed25519 public keys (PEM, PKIX) by key id.
func publicKeys(files []string) (map[string]ed25519.PublicKey, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no public key: give --key or --keys")
	}
	keys := map[string]ed25519.PublicKey{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ed, err := periodic.ParsePublicKey(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		keys[audit.KeyID(ed)] = ed
	}
	return keys, nil
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
