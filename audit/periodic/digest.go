package periodic

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/auditlog/auditlog/audit/signing"

	"github.com/auditlog/auditlog/audit"
)

// DigestVersion is the format version of the digests written now
// (docs/schemas/digest-v3.json). Version 3 adds the tenant's log
// checkpoint; version 2 added each file's stored object hash and size; a
// verifier still reads versions 1 and 2.
const DigestVersion = 3

// The kinds of a digest's files.
const (
	FileData = "data" // the window's events, exported once it settled
	FileLate = "late" // events that arrived after the window was exported
)

// DigestFile is one file a digest vouches for: its object key, the
// SHA-256 of its uncompressed content, its number of events, and (from
// version 2) the SHA-256 and size of the object as stored, so that a
// verifier checks an intact file at the speed of reading it, without
// decompressing it.
type DigestFile struct {
	Key          string `json:"key"`
	Kind         string `json:"kind"`
	SHA256       string `json:"sha256"`
	Count        int64  `json:"count"`
	ObjectSHA256 string `json:"objectSha256,omitempty"`
	ObjectSize   int64  `json:"objectSize,omitempty"`
}

// Digest vouches for the files of one window of a tenant's periodic
// export and for the digest before it: a chain, each link signed with
// Ed25519, that anyone holding the public keys verifies offline. The
// first digest of a tenant's chain says so (First, and no previous).
// Late is 0 for the window's digest, n for the digest of its n-th late
// file.
type Digest struct {
	Version     int             `json:"version"`
	TenantID    string          `json:"tenantId"`
	WindowStart audit.Timestamp `json:"windowStart"`
	WindowEnd   audit.Timestamp `json:"windowEnd"`
	Late        int             `json:"late"`
	Files       []DigestFile    `json:"files"`
	First       bool            `json:"first"`
	// PreviousKey and PreviousSignature name the digest before this one
	// in the chain; empty for the first.
	PreviousKey       string          `json:"previousDigestKey"`
	PreviousSignature string          `json:"previousDigestSignature"`
	KeyID             string          `json:"keyId"`
	SignedAt          audit.Timestamp `json:"signedAt"`
	// LogCheckpoint (version 3) is the tenant's latest log checkpoint
	// when the digest was signed (a signed note), which covers the
	// window's events; "" when the deployment keeps no log.
	LogCheckpoint string `json:"logCheckpoint,omitempty"`
	// Signature is the base64 (standard, padded) Ed25519 signature of the
	// digest's canonical form.
	Signature string `json:"signature"`
}

// Canonical is the byte string a digest's signature covers: the digest as
// JSON without its "signature" member, object keys sorted by their UTF-8
// bytes, no white space, strings escaped as Go's encoding/json does
// without HTML escaping, integers in decimal. (The digest holds only
// strings, integers, booleans, arrays and objects, for which this is RFC
// 8785's canonical JSON.)
func (d *Digest) Canonical() []byte {
	c := *d
	c.Signature = ""
	return signing.CanonicalJSON(c)
}

// Sign sets the key id, and the signature of the canonical form.
func (d *Digest) Sign(key ed25519.PrivateKey) {
	d.KeyID = signing.KeyID(key.Public().(ed25519.PublicKey))
	d.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(key, d.Canonical()))
}

// Verify checks the signature with the public key of d's key id, from
// keys. Errors: EUNAUTHORIZED naming the unknown key or the bad
// signature.
func (d *Digest) Verify(keys map[string]ed25519.PublicKey) error {
	pub, ok := keys[d.KeyID]
	if !ok {
		return audit.Errorf(audit.EUNAUTHORIZED, "unknown key %q", d.KeyID)
	}
	sig, err := base64.StdEncoding.DecodeString(d.Signature)
	if err != nil || !ed25519.Verify(pub, d.Canonical(), sig) {
		return audit.Errorf(audit.EUNAUTHORIZED, "bad signature (key %s)", d.KeyID)
	}
	return nil
}

// windowName is a window's part of its object keys.
func windowName(start, end time.Time) string {
	const f = "20060102T150405Z"
	return start.UTC().Format(f) + "_" + end.UTC().Format(f)
}

// DataKey is the object key of a window's data file (late = 0) or of its
// late-th late file.
func DataKey(prefix, tenant string, start, end time.Time, late int) string {
	k := fmt.Sprintf("%s/%s/%s/%s", prefix, tenant, start.UTC().Format("2006/01/02"), windowName(start, end))
	if late > 0 {
		k += fmt.Sprintf("_late_%d", late)
	}
	return k + ".ndjson.gz"
}

// DigestKey is the object key of a window's digest (late = 0) or of the
// digest of its late-th late file.
func DigestKey(prefix, tenant string, start, end time.Time, late int) string {
	k := fmt.Sprintf("%s/%s/digest/%s/%s", prefix, tenant, start.UTC().Format("2006/01/02"), windowName(start, end))
	if late > 0 {
		k += fmt.Sprintf("_late_%d", late)
	}
	return k + ".json"
}
