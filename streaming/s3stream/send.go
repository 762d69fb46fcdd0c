// Package s3stream is the S3 destination of a tenant's stream
// (Kind): each batch a gzip NDJSON object under a prefix per
// delivery hour, and a manifest per hour, signed with the deployment's
// key, that lists each object's log range, count and hash with the
// tenant's checkpoint; and the check that reads a bucket back against
// them (auditlog stream check).
package s3stream

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/blob"
	"io"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/streaming"
)

// DefaultPrefix is the first part of the keys of a stream without one.
const DefaultPrefix = "auditlog-streams"

// Destination writes batches into buckets of the deployment's S3 server.
type Destination struct {
	// Bucket opens a bucket by name.
	Bucket func(ctx context.Context, name string) (blob.Store, error)
	Key    ed25519.PrivateKey
	Now    func() time.Time
}

// Send writes b's events as one object (none when the filter kept none),
// then the hour's manifest with the object's entry and b's checkpoint.
// The object's key derives from its range, so a batch sent again
// replaces its object and its entry. A store that fails is a Retry.
func (s *Destination) Send(ctx context.Context, dest stream.Destination, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	d, err := streaming.SettingsOf[*Config](dest)
	if err != nil {
		return streaming.Rejected, 0, "", err
	}
	blobs, err := s.Bucket(ctx, d.Bucket)
	if err != nil {
		return streaming.Retry, 0, "the bucket " + d.Bucket + ": " + audit.ErrorMessage(err), err
	}
	now := s.Now()
	hour := stream.HourPrefix(d.KeyPrefix(), b.TenantID, b.StreamID, now)
	if b.Test {
		return s.probe(ctx, blobs, hour, b)
	}
	obj := stream.Object{From: b.From, To: b.To, Count: len(b.Events)}
	if len(b.Events) > 0 {
		data, err := encode(b.Events)
		if err != nil {
			return streaming.Rejected, 0, "", err
		}
		sum := sha256.Sum256(data)
		obj.Key, obj.SHA256 = stream.ObjectKey(hour, b.From, b.To), hex.EncodeToString(sum[:])
		if err := blobs.Put(ctx, obj.Key, bytes.NewReader(data), int64(len(data))); err != nil {
			return streaming.Retry, 0, "writing " + obj.Key + ": " + audit.ErrorMessage(err), err
		}
	}
	m, err := ReadManifest(ctx, blobs, stream.ManifestKey(hour))
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		m, err = &stream.Manifest{TenantID: b.TenantID, StreamID: b.StreamID, Hour: audit.NewTimestamp(now.UTC().Truncate(time.Hour))}, nil
	}
	if err != nil {
		return streaming.Retry, 0, "reading the manifest of " + hour + ": " + audit.ErrorMessage(err), err
	}
	m.Add(obj)
	m.Checkpoint = b.Checkpoint
	m.Sign(s.Key, now)
	raw, _ := json.MarshalIndent(m, "", "  ")
	if err := blobs.Put(ctx, stream.ManifestKey(hour), bytes.NewReader(raw), int64(len(raw))); err != nil {
		return streaming.Retry, 0, "writing the manifest of " + hour + ": " + audit.ErrorMessage(err), err
	}
	return streaming.Accepted, 0, "", nil
}

// probe is a test delivery: an object written and deleted again.
func (s *Destination) probe(ctx context.Context, blobs blob.Store, hour string, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	key := hour + "/test-" + fmt.Sprint(s.Now().UnixNano()) + ".json"
	raw := b.Events[0].Event
	if err := blobs.Put(ctx, key, bytes.NewReader(raw), int64(len(raw))); err != nil {
		return streaming.Retry, 0, "writing " + key + ": " + audit.ErrorMessage(err), err
	}
	if err := blobs.Delete(ctx, key); err != nil {
		return streaming.Retry, 0, "deleting " + key + ": " + audit.ErrorMessage(err), err
	}
	return streaming.Accepted, 0, "", nil
}

// encode is the events as gzip NDJSON, a line each: {"leafIndex", "event"}.
func encode(events []streaming.Entry) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	var line []byte
	for _, e := range events {
		line = append(e.AppendJSON(line[:0]), '\n')
		if _, err := zw.Write(line); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadManifest reads and decodes the manifest of key. Errors: ENOTFOUND,
// EINVALID for one that does not decode, the store's.
func ReadManifest(ctx context.Context, b blob.Store, key string) (*stream.Manifest, error) {
	r, err := b.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	raw, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "reading %s", key)
	}
	var m stream.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, audit.Wrap(audit.EINVALID, err, "the manifest %s does not decode", key)
	}
	return &m, nil
}
