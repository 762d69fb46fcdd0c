package periodicexport_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/blob"

	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
	"github.com/auditlog/auditlog/s3"
)

// TestVerifyFromTheBucketAndFromADownload: a chain written to the real
// S3-compatible server verifies from the bucket, and from a directory the
// customer downloaded it into; a byte changed in the bucket is named.
func TestVerifyFromTheBucketAndFromADownload(t *testing.T) {
	env := testenv.S3(t)
	ctx := context.Background()
	files, err := s3.Open(ctx, s3.Config{Endpoint: env.Endpoint, Bucket: testenv.Name("periodic"), AccessKey: env.AccessKey, SecretKey: env.SecretKey,
		PathStyle: true, CreateBucket: true, Prefix: "audit/"})
	if err != nil {
		t.Fatal(err)
	}
	bucket := files
	keys := chainIn(t, bucket)
	report := func(b blob.Store) (bool, string) {
		var lines []string
		rep, err := periodicexport.Verify(ctx, b, "exports", tenant, keys, periodicexport.Options{}, func(s string) { lines = append(lines, s) })
		if err != nil {
			t.Fatal(err)
		}
		return rep.OK(), strings.Join(lines, "\n")
	}
	if ok, out := report(bucket); !ok || !strings.Contains(out, "verified 5 digests") {
		t.Fatalf("from the bucket:\n%s", out)
	}
	// The customer's copy: every object under its key.
	dir := t.TempDir()
	all, err := bucket.List(ctx, "exports/")
	if err != nil || len(all) != 10 {
		t.Fatalf("%d objects %v", len(all), err)
	}
	for _, k := range all {
		r, err := bucket.Open(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		must(t, os.MkdirAll(filepath.Dir(path(dir, k)), 0o750))
		must(t, os.WriteFile(path(dir, k), b, 0o600))
	}
	if ok, out := report(localfs.Dir{Root: dir}); !ok {
		t.Fatalf("from the download:\n%s", out)
	}
	// One byte changed in the bucket.
	r, _ := bucket.Open(ctx, dataKey(2, 0))
	b, _ := io.ReadAll(r)
	r.Close()
	b[len(b)-12] ^= 0x01 // inside the gzip trailer: the CRC no longer matches
	must(t, bucket.Put(ctx, dataKey(2, 0), bytes.NewReader(b), int64(len(b))))
	if ok, out := report(bucket); ok || !strings.Contains(out, "ALTERED "+dataKey(2, 0)) {
		t.Fatalf("after a change in the bucket:\n%s", out)
	}
}
