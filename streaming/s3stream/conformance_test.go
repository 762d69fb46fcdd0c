package s3stream_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"github.com/auditlog/auditlog/audit/blob"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/desttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/s3"
	"github.com/auditlog/auditlog/streaming/s3stream"
)

// breakable is a bucket whose next Put fails when broken, as an
// unavailable server's does; every other call goes to the real bucket.
type breakable struct {
	blob.Store
	broken atomic.Bool
}

func (b *breakable) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if b.broken.Swap(false) {
		return audit.Wrap(audit.EUNAVAILABLE, errors.New("503 SlowDown"), "the S3 server")
	}
	return b.Store.Put(ctx, key, r, size)
}

// TestS3Conformance runs the destinations' delivery cases against a
// bucket of the real S3 server, read back object by object.
func TestS3Conformance(t *testing.T) {
	env := testenv.S3(t)
	desttest.Run(t, desttest.Kind{Big: 2500, Start: func(t *testing.T, _ bool) desttest.Target {
		ctx := context.Background()
		real, err := s3.Open(ctx, s3.Config{Endpoint: env.Endpoint, Bucket: testenv.Name("dests"), AccessKey: env.AccessKey, SecretKey: env.SecretKey,
			PathStyle: true, CreateBucket: true})
		if err != nil {
			t.Fatal(err)
		}
		bucket := &breakable{Store: real}
		_, key, _ := ed25519.GenerateKey(nil)
		dest := &s3stream.Destination{Bucket: func(context.Context, string) (blob.Store, error) { return bucket, nil }, Key: key, Now: time.Now}
		d := stream.NewDestination(&s3stream.Config{Bucket: "lake", Prefix: "siem"})
		return desttest.Target{Dest: dest, Config: d, Break: func() { bucket.broken.Store(true) }, Held: func() []uint64 { return held(t, real, "siem") }}
	}})
}

// held reads every object under prefix, in key (so log) order, and
// returns the leaf indexes of its lines.
func held(t *testing.T, b blob.Store, prefix string) []uint64 {
	ctx := context.Background()
	keys, err := b.List(ctx, prefix)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	var out []uint64
	for _, k := range keys {
		if !strings.HasSuffix(k, ".ndjson.gz") {
			continue
		}
		r, err := b.Open(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var line struct {
				LeafIndex uint64 `json:"leafIndex"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			out = append(out, line.LeafIndex)
		}
		_ = r.Close()
	}
	return out
}
