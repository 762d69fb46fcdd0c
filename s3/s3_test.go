package s3_test

import (
	"context"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/blobtest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/s3"
)

// TestConformance runs the Blobs suite on a real S3 server, with a key
// prefix as deployments configure one.
func TestConformance(t *testing.T) {
	env := testenv.S3(t)
	f, err := s3.Open(context.Background(), s3.Config{Endpoint: env.Endpoint, Bucket: testenv.Name("blobs"), AccessKey: env.AccessKey,
		SecretKey: env.SecretKey, PathStyle: true, CreateBucket: true, Prefix: "deployment/"})
	if err != nil {
		t.Fatal(err)
	}
	blobtest.Run(t, f, true)
}
