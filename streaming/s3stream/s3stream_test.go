package s3stream_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/signing"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/s3"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/sqlite"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/s3stream"
)

// TestS3StreamVerifiesAndNamesWhatChanged: a tenant's log streamed into
// a bucket of the real S3 server checks complete against the signed
// manifests and the log's checkpoint; a deleted object and an edited
// one are each named, and so is the gap a deleted manifest leaves; a
// replay covers the gap again.
func TestS3StreamVerifiesAndNamesWhatChanged(t *testing.T) {
	ctx := context.Background()
	env := testenv.S3(t)
	bucket, err := s3.Open(ctx, s3.Config{Endpoint: env.Endpoint, Bucket: testenv.Name("streams"), AccessKey: env.AccessKey, SecretKey: env.SecretKey,
		PathStyle: true, CreateBucket: true})
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db"), DefaultPlan: audit.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	d := storetest.NewDataset(6000)
	storetest.Write(t, store, d.All)
	logPub, logPriv, _ := ed25519.GenerateKey(nil)
	storetest.SealAll(t, seal.New(seal.Config{Origin: "auditlog.test"}, seal.Deps{Accept: accepttest.Acceptor, Store: store, Key: logPriv}))
	logKey := vlog.NewKeys("auditlog.test", logPub)

	pub, priv, _ := ed25519.GenerateKey(nil)
	keys := map[string]ed25519.PublicKey{signing.KeyID(pub): pub}
	clock := time.Date(2026, 11, 27, 9, 50, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(40 * time.Minute); return clock } // the batches span hours
	dest := &s3stream.Destination{Bucket: func(context.Context, string) (blob.Store, error) { return bucket, nil }, Key: priv, Now: now}
	st := &stream.Stream{ID: "5e4d3c2b-1a09-4876-9543-210fedcba987", TenantID: d.A, Name: "Lake", Format: stream.FormatEvent, State: stream.Active,
		Filter: "-action:access", Destination: stream.NewDestination(&s3stream.Config{Bucket: "lake", Prefix: "siem"}), CreatedAt: clock}
	if err := st.Normalize(stream.Rules{}); err != nil {
		t.Fatal(err)
	}
	if err := store.PutStream(ctx, st); err != nil {
		t.Fatal(err)
	}
	s := &streaming.Streamer{Streams: store, Log: store, Events: store, BatchSize: 100, Now: now, MaskKey: accepttest.MaskKey,
		Dest: func(string) streaming.Destination { return dest }}
	drain := func() {
		for i := 0; i < 100; i++ {
			res, err := s.Step(ctx, st)
			if err != nil || res.Outcome == streaming.Idle {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if res.Outcome != streaming.Accepted {
				t.Fatalf("step: %v (%s)", res.Outcome, st.Reason)
			}
		}
	}
	drain()
	check := func() (s3stream.Report, string) {
		var lines []string
		rep, err := s3stream.Check(ctx, bucket, "siem", d.A, st.ID, keys, logKey, func(l string) { lines = append(lines, l) })
		if err != nil {
			t.Fatal(err)
		}
		return rep, strings.Join(lines, "\n")
	}
	kept := 0
	for _, e := range d.Events {
		if e.Action != audit.ActionAccess {
			kept++
		}
	}
	rep, out := check()
	if !rep.OK() || rep.Covered != st.Cursor || rep.LogSize != st.Cursor || rep.Events != int64(kept) || rep.Manifests < 2 {
		t.Fatalf("the intact stream: %+v (cursor %d, %d events kept)\n%s", rep, st.Cursor, kept, out)
	}
	all, _ := bucket.List(ctx, "siem/"+d.A+"/")
	var objects, manifests []string
	for _, k := range all {
		if strings.HasSuffix(k, ".ndjson.gz") {
			objects = append(objects, k)
		} else {
			manifests = append(manifests, k)
		}
	}
	// An edited object, then a deleted one, then a deleted manifest.
	r, _ := bucket.Open(ctx, objects[1])
	raw, _ := io.ReadAll(r)
	r.Close()
	raw[len(raw)/2] ^= 1
	if err := bucket.Put(ctx, objects[1], bytes.NewReader(raw), int64(len(raw))); err != nil {
		t.Fatal(err)
	}
	if rep, out = check(); rep.OK() || !strings.Contains(out, objects[1]+": altered") {
		t.Fatalf("an edited object:\n%s", out)
	}
	if err := bucket.Delete(ctx, objects[2]); err != nil {
		t.Fatal(err)
	}
	if rep, out = check(); rep.Problems != 2 || !strings.Contains(out, objects[2]+": missing") {
		t.Fatalf("a deleted object:\n%s", out)
	}
	if err := bucket.Delete(ctx, manifests[0]); err != nil {
		t.Fatal(err)
	}
	if rep, out = check(); !strings.Contains(out, "gap: leaves [0, ") {
		t.Fatalf("a deleted manifest:\n%s", out)
	}
	// A replay writes everything again, under this hour: the gap is
	// covered, and the damaged objects stay named (their manifests still
	// vouch for them: tampering does not go away with a replay).
	if err := st.Replay(0, clock); err != nil {
		t.Fatal(err)
	}
	drain()
	if rep, out = check(); rep.Problems != 2 || strings.Contains(out, "gap") || rep.Covered != st.Cursor {
		t.Fatalf("after the replay: %+v\n%s", rep, out)
	}
	// Manifests signed by a key the reader does not hold, a checkpoint by
	// another log key: each is named.
	other, _, _ := ed25519.GenerateKey(nil)
	var lines []string
	rep, _ = s3stream.Check(ctx, bucket, "siem", d.A, st.ID, map[string]ed25519.PublicKey{signing.KeyID(other): other},
		vlog.NewKeys("auditlog.test", other), func(l string) { lines = append(lines, l) })
	out = strings.Join(lines, "\n")
	if rep.OK() || !strings.Contains(out, "unknown key") || !strings.Contains(out, "the latest checkpoint: the checkpoint does not verify with the pinned keys") {
		t.Fatalf("foreign keys:\n%s", out)
	}
}
