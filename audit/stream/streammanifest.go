package stream

import (
	"cmp"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit/signing"

	"github.com/auditlog/auditlog/audit"
)

// ManifestVersion is the format of the manifests written now.
const ManifestVersion = 1

// Object is one batch an S3 stream delivered: the log range
// [From, To) it covers, the events of it the stream kept (Count), and
// the object that holds them (Key, the SHA-256 of its stored bytes);
// Key is "" for a range whose events the filter all left out.
type Object struct {
	Key    string `json:"key,omitempty"`
	From   uint64 `json:"from"`
	To     uint64 `json:"to"`
	Count  int    `json:"count"`
	SHA256 string `json:"sha256,omitempty"`
}

// Manifest vouches for the objects an S3 stream wrote in one hour:
// each one's range, count and hash, and the tenant's signed checkpoint
// that covers them, signed with the deployment's key (the one that signs
// the log's checkpoints and the periodic digests), so that a reader
// holding the public key proves what the bucket holds complete and
// unaltered (`auditlog stream check`).
type Manifest struct {
	Version    int             `json:"version"`
	TenantID   string          `json:"tenantId"`
	StreamID   string          `json:"streamId"`
	Hour       audit.Timestamp `json:"hour"`
	Objects    []Object        `json:"objects"`
	Checkpoint string          `json:"checkpoint"`
	KeyID      string          `json:"keyId"`
	SignedAt   audit.Timestamp `json:"signedAt"`
	Signature  string          `json:"signature"`
}

// HourPrefix is where an S3 stream's objects and manifest of the
// hour of t go: <prefix>/<tenant>/<stream>/<yyyy>/<mm>/<dd>/<hh>. The hour
// is the delivery's, UTC (a batch holds events of many times).
func HourPrefix(prefix, tenantID, streamID string, t time.Time) string {
	return path.Join(prefix, tenantID, streamID, t.UTC().Format("2006/01/02/15"))
}

// ObjectKey is the key of the object of the range [from, to) in
// the hour's prefix: zero-padded, so that keys sort in log order, and
// derived from the range, so that a batch sent again replaces its object.
func ObjectKey(hour string, from, to uint64) string {
	return fmt.Sprintf("%s/%020d-%020d.ndjson.gz", hour, from, to)
}

// ManifestKey is the key of the hour's manifest.
func ManifestKey(hour string) string { return hour + "/manifest.json" }

// Add records o in m, replacing an object of the same range (a batch
// sent again), in range order.
func (m *Manifest) Add(o Object) {
	m.Objects = slices.DeleteFunc(m.Objects, func(x Object) bool { return x.From == o.From && x.To == o.To })
	m.Objects = append(m.Objects, o)
	slices.SortFunc(m.Objects, func(a, b Object) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
}

// Sign sets the version, key id, signing time and signature.
func (m *Manifest) Sign(key ed25519.PrivateKey, now time.Time) {
	m.Version, m.SignedAt = ManifestVersion, audit.NewTimestamp(now)
	m.KeyID = signing.KeyID(key.Public().(ed25519.PublicKey))
	m.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(key, signing.CanonicalJSON(*m)))
}

// Verify checks m's signature with the key of its key id, from keys.
// Errors: EUNAUTHORIZED naming the unknown key or the bad signature.
func (m *Manifest) Verify(keys map[string]ed25519.PublicKey) error {
	pub, ok := keys[m.KeyID]
	if !ok {
		return audit.Errorf(audit.EUNAUTHORIZED, "unknown key %q", m.KeyID)
	}
	sig, err := base64.StdEncoding.DecodeString(m.Signature)
	if err != nil || !ed25519.Verify(pub, signing.CanonicalJSON(*m), sig) {
		return audit.Errorf(audit.EUNAUTHORIZED, "bad signature (key %s)", m.KeyID)
	}
	return nil
}
